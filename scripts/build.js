// `npm run build`: Remix's compiler, then a second pass that merges its small shared scripts
// (scripts/rechunk.js), then the compile hint on the framework's scripts (addCompileHints below).
// `npm start`, the tests and the benchmarks build through this file too, so every build serves
// the same scripts.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { rechunk } from "./rechunk.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Chrome's magic comment: compile every function of this script while it streams in. */
export const COMPILE_HINT = "//# allFunctionsCalledOnLoad\n";

/** Below this size a script's functions compile fast enough where they are first called. */
const HINTED_MIN_BYTES = 32 * 1024;

/**
 * Puts the compile hint first in each large shared script the client entry imports: React DOM,
 * Remix and its router, whose code every page runs as it hydrates. Chrome compiles a module on a
 * background thread while it downloads, but only the functions it expects to be called at once;
 * the others were compiled on the main thread at their first call, during the hydration a phone's
 * reader waits through (React DOM's module body alone took ~20 ms there, docs/rules.md#first-paint).
 * Other browsers read a comment. Returns the scripts it changed (already hinted ones are left).
 * @param {string} assetsDir the compiler's assets directory (`public/build`, or `<build>/assets`)
 * @returns {string[]}
 */
export function addCompileHints(assetsDir) {
  const entry = fs.readdirSync(assetsDir).find((name) => /^entry\.client-[\w-]+\.js$/.test(name));
  if (!entry) throw new Error(`no client entry in ${assetsDir}`);
  const source = fs.readFileSync(path.join(assetsDir, entry), "utf8");
  /** @type {string[]} */
  const hinted = [];
  for (const [, chunk = ""] of source.matchAll(/from\s*["'](?:\/build\/|\.\/)(_shared\/[\w.-]+\.js)["']/g)) {
    const file = path.join(assetsDir, chunk);
    const text = fs.readFileSync(file, "utf8");
    if (text.length < HINTED_MIN_BYTES || text.startsWith(COMPILE_HINT)) continue;
    fs.writeFileSync(file, COMPILE_HINT + text);
    hinted.push(chunk);
  }
  return hinted;
}

/**
 * Zopfli's gzip. Its WebAssembly build installs process-wide `uncaughtException` and
 * `unhandledRejection` handlers meant for its own command line (they rethrow from inside the
 * module, so any later error prints as one 30 KB line, and a stray rejection aborts): they are
 * taken off again once it has loaded.
 * @returns {Promise<typeof import("@gfx/zopfli").gzip>}
 */
async function loadZopfli() {
  const exceptions = new Set(process.listeners("uncaughtException"));
  const rejections = new Set(process.listeners("unhandledRejection"));
  const { gzip } = await import("@gfx/zopfli");
  for (const listener of process.listeners("uncaughtException")) if (!exceptions.has(listener)) process.off("uncaughtException", listener);
  for (const listener of process.listeners("unhandledRejection")) if (!rejections.has(listener)) process.off("unhandledRejection", listener);
  return gzip;
}

/**
 * Writes `<file>.gz` beside each script and stylesheet, compressed with Zopfli: the same gzip
 * format every browser reads, 3% smaller than zlib's best, for ~0.5 s of CPU per 100 KB, paid
 * once here instead of at each server start (docs/decisions/0009-terser-and-zopfli.md). The
 * server sends it to browsers that accept gzip but not brotli, when it unpacks to the file
 * (app/server/runtime/assets.server.ts).
 * @param {string} assetsDir
 * @returns {Promise<number>} how many files it compressed
 */
export async function writeGzipCopies(assetsDir) {
  /** @type {string[]} */
  const files = [];
  const walk = (/** @type {string} */ dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.(js|css)$/.test(entry.name)) files.push(file);
    }
  };
  walk(assetsDir);
  const gzip = await loadZopfli();
  await Promise.all(
    files.map(
      (file) =>
        new Promise((resolve, reject) => {
          gzip(fs.readFileSync(file), { numiterations: 5 }, (error, compressed) => {
            if (error) return reject(error);
            fs.writeFileSync(`${file}.gz`, compressed);
            resolve(undefined);
          });
        }),
    ),
  );
  return files.length;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/@remix-run/dev/dist/cli.js"), "build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // remix.config.js names the assets directory (it follows RECIPALS_BUILD_DIR).
  const { default: config } = await import("../remix.config.js");
  const assetsDir = path.resolve(root, config.assetsBuildDirectory ?? "public/build");
  const { before, after } = await rechunk(assetsDir, path.resolve(root, config.serverBuildPath ?? "build/index.js"));
  console.log(`Scripts merged: ${before} → ${after}.`);
  const hinted = addCompileHints(assetsDir);
  console.log(`Compile hint on ${hinted.length ? hinted.join(", ") : "no script"}.`);
  console.log(`Gzip copies (Zopfli) of ${await writeGzipCopies(assetsDir)} files.`);
}
