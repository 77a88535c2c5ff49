// Before the browser tests: Debian's Chromium must be where Playwright looks. Browsers cannot be
// downloaded here; Debian ships two binaries of one build: `chromium` (the full browser, which the
// smoke specs drive) and `chromium-headless-shell` (the old headless mode, which the suites run in
// at half the CPU; tests/support/chromium.ts). What is missing is installed with apt-get when this
// process may (root, apt-get present); otherwise a missing full browser stops this at once with one
// line that says what to install, and a missing shell only costs time (the suites use the full one).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { pathToFileURL } from "node:url";

export const DEFAULT_CHROMIUM = "/usr/bin/chromium";
export const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const PACKAGES = [
  { path: DEFAULT_CHROMIUM, name: "chromium" },
  { path: HEADLESS_SHELL, name: "chromium-headless-shell" },
];

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
 * @property {string[]} packages The Debian packages to install ("install"), or missing.
 * @property {string} [message] The line to print: why it stops ("missing"), or what a faster run needs.
 */
/**
 * What to do about the browsers: "ready", "install" (these packages, with apt-get), or "missing"
 * with the line to print. Pure, so the choice is tested without touching the machine.
 * @param {ChromiumSituation} situation
 * @returns {ChromiumPlan}
 */
export function chromiumPlan({ configuredPath, exists, isRoot, hasAptGet }) {
  if (configuredPath) {
    if (exists(configuredPath)) return { action: "ready", packages: [] };
    return { action: "missing", packages: [], message: `Chromium not found at ${configuredPath}: point CHROMIUM_PATH at a Chromium binary, or unset it and install Debian's chromium (apt-get install -y ${PACKAGES.map((p) => p.name).join(" ")}), then run the tests again.` };
  }
  const packages = PACKAGES.filter((p) => !exists(p.path)).map((p) => p.name);
  if (packages.length === 0) return { action: "ready", packages };
  if (isRoot && hasAptGet) return { action: "install", packages };
  const command = `apt-get install -y ${packages.join(" ")}`;
  if (packages.includes("chromium")) {
    return { action: "missing", packages, message: `Chromium not found at ${DEFAULT_CHROMIUM}: install Debian's chromium as root (${command}), then run the tests again.` };
  }
  return { action: "ready", packages, message: `${HEADLESS_SHELL} not found: the browser tests run in ${DEFAULT_CHROMIUM}, about twice as slow (as root: ${command}).` };
}

/** @returns {number} The exit code. */
function main() {
  const plan = chromiumPlan({
    configuredPath: process.env.CHROMIUM_PATH,
    exists: isExecutable,
    isRoot: typeof process.getuid === "function" && process.getuid() === 0,
    hasAptGet: onPath("apt-get"),
  });
  if (plan.action === "ready") {
    if (plan.message) console.log(plan.message);
    return 0;
  }
  if (plan.action === "missing") {
    console.error(plan.message);
    return 1;
  }
  console.log(`Chromium not found (${plan.packages.join(", ")}): installing Debian's packages with apt-get…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [["update"], ["install", "-y", ...plan.packages]]) {
    const result = spawnSync("apt-get", args, { stdio: "inherit", env });
    if (result.status !== 0 && !plan.packages.includes("chromium")) {
      console.log(`Installing ${HEADLESS_SHELL} failed (apt-get ${args.join(" ")} exited ${result.status}): the browser tests run in ${DEFAULT_CHROMIUM}, about twice as slow.`);
      return 0;
    }
    if (result.status !== 0) {
      console.error(`Installing Chromium failed (apt-get ${args.join(" ")} exited ${result.status}): install Debian's ${plan.packages.join(" and ")} (apt-get install -y ${plan.packages.join(" ")}), then run the tests again.`);
      return 1;
    }
  }
  const still = PACKAGES.filter((p) => plan.packages.includes(p.name) && !isExecutable(p.path));
  if (still.length > 0) {
    console.error(`apt-get installed ${plan.packages.join(" ")} but ${still.map((p) => p.path).join(" and ")} is still missing: install it by hand, then run the tests again.`);
    return 1;
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) process.exit(main());
