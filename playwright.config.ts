import { defineConfig } from "@playwright/test";

import { E2E_DATA, E2E_PORT as PORT, e2eServerEnv } from "./tests/support/e2e-server";
import { chromiumLaunch, FULL_BROWSER_SPECS, fullChromiumLaunch } from "./tests/support/chromium";
import { reporters } from "./tests/support/playwright-reporter";

process.env.E2E_DATA_DIR = E2E_DATA;
// The people the specs make (tests/support/e2e.ts) get passwords hashed at the server's test cost.
process.env.RECIPALS_TEST_PASSWORD_COST = "low";


export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: process.env.CI ? 2 : undefined,
  // In CI a failed test runs once more and, if it then passes, is reported as flaky (the list
  // reporter names it, and .ci/run prints the page it failed on): two cores shared by two browsers
  // and the server have made a step miss its 10 s about once in 300 tests, and a run that fails
  // lands nothing. A test that fails twice fails the run. Locally, never.
  retries: process.env.CI ? 1 : 0,
  reporter: reporters(),
  timeout: 30_000,
  // Two browsers, the server and its image work share two cores in CI: a step may wait up to 10 s.
  expect: { timeout: 10_000 },
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    launchOptions: chromiumLaunch,
    trace: "off",
  },
  // Every flow runs twice: once as a modern browser, once with JavaScript off; the smoke specs
  // once more each way in the full browser (tests/support/chromium.ts).
  projects: [
    { name: "js", use: { javaScriptEnabled: true } },
    { name: "no-js", use: { javaScriptEnabled: false } },
    { name: "js-full-browser", testMatch: FULL_BROWSER_SPECS, use: { javaScriptEnabled: true, launchOptions: fullChromiumLaunch } },
    { name: "no-js-full-browser", testMatch: FULL_BROWSER_SPECS, use: { javaScriptEnabled: false, launchOptions: fullChromiumLaunch } },
  ],
  webServer: {
    // The database is wiped here, not in globalSetup: the server holds it open (STACK trap 12).
    command: `rm -rf "${E2E_DATA}" && node scripts/start.js`,
    url: `http://127.0.0.1:${PORT}/ReciPals/Info`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    env: e2eServerEnv(PORT),
  },
});
