import path from "node:path";

import { defineConfig } from "@playwright/test";

import { chromiumLaunch } from "./tests/support/chromium";

const PORT = Number(process.env.E2E_PORT ?? 4100);
// E2E_PORT and E2E_DATA_DIR let two runs share a machine without clobbering each other.
const E2E_DATA = path.resolve(process.env.E2E_DATA_DIR ?? ".e2e-data");
process.env.E2E_DATA_DIR = E2E_DATA;
const E2E_ADMIN_PASSWORD = "e2e-admin-password"; // tests/e2e/utils.ts signs in with it


export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: process.env.CI ? 2 : undefined,
  retries: 0,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  timeout: 30_000,
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    launchOptions: chromiumLaunch,
    trace: "off",
  },
  // Every flow runs twice: once as a modern browser, once with JavaScript off.
  projects: [
    { name: "js", use: { javaScriptEnabled: true } },
    { name: "no-js", use: { javaScriptEnabled: false } },
  ],
  webServer: {
    // The database is wiped here, not in globalSetup: the server holds it open (STACK trap 12).
    command: `rm -rf "${E2E_DATA}" && node scripts/start.js`,
    url: `http://127.0.0.1:${PORT}/ReciPals/Info`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      NODE_ENV: "production",
      PORT: String(PORT),
      HOST: "127.0.0.1",
      DATABASE_PATH: path.join(E2E_DATA, "recipals.db"),
      // An empty PostgreSQL database instead (npm run test:postgres runs the search flows there too).
      ...(process.env.E2E_DATABASE_URL ? { DATABASE_URL: process.env.E2E_DATABASE_URL } : {}),
      RECIPALS_SEED_FILE: process.env.RECIPALS_SEED_FILE ?? path.resolve("../shared/data/recipals-seed.json"),
      SEED_ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
      SESSION_SECRET: "e2e-session-secret-0123456789abcdef",
      ADMIN_SECRET: "e2e-admin-secret",
      MEALDB_BASE_URL: "http://127.0.0.1:9/none",
      // Import by link reads a stub page the test serves on 127.0.0.1 (tests/e2e/extras.spec.ts).
      IMPORT_ALLOW_PRIVATE: "1",
    },
  },
});
