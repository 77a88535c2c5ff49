// Loads the server build (which migrates on load) and seeds unless --migrate-only.
// `--scale [N]` (npm run seed -- --scale N) then adds the synthetic scale data: N users, default 10,000.
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
const scaleAt = process.argv.indexOf("--scale");
if (scaleAt >= 0 && !process.argv.includes("--migrate-only")) {
  const value = process.argv[scaleAt + 1];
  const users = value && /^\d+$/.test(value) ? Number(value) : 10_000;
  const scale = await build.entry.module.scaleSeed(users);
  if (!scale.skipped) {
    console.log(
      `Scale seed: ${scale.users} users, ${scale.recipes} recipes and posts, ${scale.follows} follows, ${scale.likes} likes, ` +
        `${scale.comments} comments in ${(scale.ms / 1000).toFixed(1)} s. Every scale user's password is ReciPals; ` +
        `${scale.heavyFollower} follows 200 people.`,
    );
  }
}
process.exit(0);
