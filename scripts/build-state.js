// Whether the server build is older than the sources it is made from: `npm start` and the
// security tests' servers rebuild only then.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SOURCES = ["app", "migrations", "seed", "patches", "remix.config.js", "scripts/build.js", "scripts/rechunk.js", "package.json", "node_modules/.package-lock.json"];

/**
 * @param {string} target
 * @returns {number}
 */
function newestMtime(target) {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/**
 * True when `buildFile` is missing or older than any source file.
 * @param {string} buildFile
 * @returns {boolean}
 */
export function buildIsStale(buildFile) {
  const built = fs.statSync(buildFile, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return built < Math.max(...SOURCES.map((entry) => newestMtime(path.join(root, entry))));
}
