// `npm start`: build when the sources changed, migrate and seed, then serve on PORT (4000).
// Flags: --setup-only (build + migrate + seed), --migrate-only (build + migrate), --seed (same as
// --setup-only), --build-only (build when the sources changed; npm test's first stage).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { buildIsStale } from "./build-state.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
process.env.NODE_ENV ??= "production";
process.env.PORT ??= "4000";
// The quick start writes mail to the outbox folder (no SMTP_URL): its links then lead to this
// machine, so a newcomer can follow them. A real deployment sets PUBLIC_URL (docs/operator-guide.md).
if (!process.env.PUBLIC_URL && !process.env.SMTP_URL) {
  process.env.PUBLIC_URL = `http://localhost:${process.env.PORT}`;
  console.log(`PUBLIC_URL not set: links in mail (written to the outbox folder) lead to ${process.env.PUBLIC_URL}.`);
}

const buildFile = path.join(root, process.env.RECIPALS_BUILD_DIR ?? "build", "index.js");

function buildIfNeeded() {
  if (!buildIsStale(buildFile)) return;
  console.log("Building the app…");
  const result = spawnSync(process.execPath, [path.join(root, "scripts/build.js")], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const args = process.argv.slice(2);
buildIfNeeded();
if (args.includes("--build-only")) process.exit(0);

// Migrate and seed in a child process so the server below holds the only database handle.
const prepare = spawnSync(process.execPath, [path.join(root, "scripts/prepare.js"), ...args], { stdio: "inherit" });
if (prepare.status !== 0) process.exit(prepare.status ?? 1);
if (args.some((arg) => ["--setup-only", "--migrate-only", "--seed"].includes(arg))) process.exit(0);

await import(pathToFileURL(path.join(root, "scripts/server.js")).href);
