import { defineConfig } from "@playwright/test";

// The cluster tests (tests/cluster/): two app servers behind nginx on one database and one photo
// store, started once by the global setup (CLUSTER_DB=postgres|sqlite, CLUSTER_IMAGES=s3|disk;
// see tests/cluster/harness.ts). The tests share that one cluster and one of them kills a
// server, so they run one at a time. The address of the balancer is only known once the cluster
// is up: tests/cluster/fixtures.ts gives it to them as baseURL.

// Debian's Chromium (browsers cannot be downloaded here); flags keep it off the network.
const chromium = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    // No network here: outside hosts (TheMealDB photos) fail at once instead of holding "load".
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
  ],
};

export default defineConfig({
  testDir: "tests/cluster",
  globalSetup: "./tests/cluster/global-setup.ts",
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: [["list"]],
  timeout: 90_000,
  // The whole run, set-up included, must stay well inside five minutes on two cores.
  globalTimeout: 6 * 60_000,
  use: {
    launchOptions: chromium,
    trace: "off",
  },
  // Every browser flow runs twice, JavaScript on and off; killing a server is not a browser flow.
  projects: [
    { name: "js", testIgnore: /failover\.spec\.ts/, use: { javaScriptEnabled: true } },
    { name: "no-js", testIgnore: /failover\.spec\.ts/, use: { javaScriptEnabled: false } },
    { name: "failover", testMatch: /failover\.spec\.ts/ },
  ],
});
