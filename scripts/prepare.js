// Loads the server build (which migrates on load) and seeds unless --migrate-only.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const build = await import(pathToFileURL(path.join(root, process.env.RECIPALS_BUILD_DIR ?? "build", "index.js")).href);
if (!process.argv.includes("--migrate-only")) {
  const report = await build.entry.module.prepareDatabase();
  if (report.source !== "already-seeded") {
    console.log(
      `Seeded from ${report.source}: ${report.users} users, ${report.recipes} recipes, ${report.posts} posts, ${report.comments} comments.`,
    );
  }
}
process.exit(0);
