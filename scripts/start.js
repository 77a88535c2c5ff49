// `npm start`: build when the sources changed, migrate and seed, then serve on PORT (4000).
// Flags: --setup-only (build + migrate + seed), --migrate-only (build + migrate), --seed (same as --setup-only).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
process.env.NODE_ENV ??= "production";
process.env.PORT ??= "4000";

const buildFile = path.join(root, process.env.RECIPALS_BUILD_DIR ?? "build", "index.js");
const sourceRoots = ["app", "migrations", "seed", "remix.config.js", "package.json"];

function newestMtime(target) {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

function buildIfNeeded() {
  const built = fs.statSync(buildFile, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sources = Math.max(...sourceRoots.map((entry) => newestMtime(path.join(root, entry))));
  if (built >= sources) return;
  console.log("Building the app…");
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/@remix-run/dev/dist/cli.js"), "build"], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const args = process.argv.slice(2);
buildIfNeeded();

// Migrate and seed in a child process so the server below holds the only database handle.
const prepare = spawnSync(process.execPath, [path.join(root, "scripts/prepare.js"), ...args], { stdio: "inherit" });
if (prepare.status !== 0) process.exit(prepare.status ?? 1);
if (args.some((arg) => ["--setup-only", "--migrate-only", "--seed"].includes(arg))) process.exit(0);

const { serve } = await import(pathToFileURL(path.join(root, "scripts/server.js")).href);
await serve();
