// Before the browser tests: Debian's Chromium must be where Playwright looks (CHROMIUM_PATH, else
// /usr/bin/chromium; browsers cannot be downloaded here). When it is missing, it is installed with
// apt-get if this process may (root, apt-get present, the default path); otherwise this stops at
// once with one line that says what to install, instead of failing later at the first browser test.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { pathToFileURL } from "node:url";

export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

/**
 * @param {string} file
 * @returns {boolean}
 */
function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * @param {string} command
 * @returns {boolean}
 */
function onPath(command) {
  return (process.env.PATH ?? "").split(":").some((dir) => dir && isExecutable(`${dir}/${command}`));
}

/**
 * @typedef {object} ChromiumSituation
 * @property {string | undefined} [configuredPath] CHROMIUM_PATH, when set.
 * @property {(file: string) => boolean} exists Whether an executable file is there.
 * @property {boolean} isRoot
 * @property {boolean} hasAptGet
 */
/**
 * @typedef {object} ChromiumPlan
 * @property {"ready" | "install" | "missing"} action
 * @property {string} path
 * @property {string} [message] The line to print, when "missing".
 */
/**
 * What to do about the browser: "ready", "install" (with apt-get), or "missing" with the line to
 * print. Pure, so the choice is tested without touching the machine.
 * @param {ChromiumSituation} situation
 * @returns {ChromiumPlan}
 */
export function chromiumPlan({ configuredPath, exists, isRoot, hasAptGet }) {
  const target = configuredPath || DEFAULT_CHROMIUM;
  if (exists(target)) return { action: "ready", path: target };
  if (target === DEFAULT_CHROMIUM && isRoot && hasAptGet) return { action: "install", path: target };
  const how = target === DEFAULT_CHROMIUM ? "install Debian's chromium as root (apt-get install -y chromium)" : "point CHROMIUM_PATH at a Chromium binary, or unset it and install Debian's chromium (apt-get install -y chromium)";
  return { action: "missing", path: target, message: `Chromium not found at ${target}: ${how}, then run the tests again.` };
}

/** @returns {number} The exit code. */
function main() {
  const plan = chromiumPlan({
    configuredPath: process.env.CHROMIUM_PATH,
    exists: isExecutable,
    isRoot: typeof process.getuid === "function" && process.getuid() === 0,
    hasAptGet: onPath("apt-get"),
  });
  if (plan.action === "ready") return 0;
  if (plan.action === "missing") {
    console.error(plan.message);
    return 1;
  }
  console.log(`Chromium not found at ${plan.path}: installing Debian's chromium with apt-get…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [["update"], ["install", "-y", "chromium"]]) {
    const result = spawnSync("apt-get", args, { stdio: "inherit", env });
    if (result.status !== 0) {
      console.error(`Installing Chromium failed (apt-get ${args.join(" ")} exited ${result.status}): install Debian's chromium (apt-get install -y chromium), then run the tests again.`);
      return 1;
    }
  }
  if (!isExecutable(plan.path)) {
    console.error(`apt-get installed chromium but ${plan.path} is still missing: install Debian's chromium by hand, then run the tests again.`);
    return 1;
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) process.exit(main());
