import fs from "node:fs";

// Debian's Chromium for every Playwright config (browsers cannot be downloaded here). Two binaries
// of the same Debian build: `chromium-headless-shell` (the old headless mode, the one Playwright
// itself runs headless tests in) drives the suites, at half the CPU of the full browser's headless
// mode (docs/testing.md, "The browser binary"); the full `/usr/bin/chromium` runs the smoke specs
// below, so the browser people install is still driven on every run. CHROMIUM_PATH overrides both.
export const FULL_CHROMIUM = "/usr/bin/chromium";
export const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";

/** The specs the full browser runs too (JavaScript on and off): signing in and moving around. */
export const FULL_BROWSER_SPECS = ["**/navigation.spec.ts", "**/auth.spec.ts"];

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The binary the suites run in: CHROMIUM_PATH, else the headless shell when installed, else the full browser. */
export function suiteChromiumPath(): string {
  return process.env.CHROMIUM_PATH || (executable(HEADLESS_SHELL) ? HEADLESS_SHELL : FULL_CHROMIUM);
}

// The flags keep it off the network: outside hosts (TheMealDB photos) fail at once instead of
// holding "load".
const args = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
];

export const chromiumLaunch = { executablePath: suiteChromiumPath(), args };
export const fullChromiumLaunch = { executablePath: process.env.CHROMIUM_PATH || FULL_CHROMIUM, args };
