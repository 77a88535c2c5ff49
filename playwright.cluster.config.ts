import { defineConfig } from "@playwright/test";

import { chromiumLaunch } from "./tests/support/chromium";
import { reporters } from "./tests/support/playwright-reporter";

// The cluster tests (tests/cluster/): two app servers behind nginx on one database and one photo
// store, started once by the global setup (CLUSTER_DB=postgres|sqlite, CLUSTER_IMAGES=s3|disk;
// see tests/support/cluster.ts). The tests share that one cluster and one of them kills a
// server, so they run one at a time. The address of the balancer is only known once the cluster
// is up: tests/support/cluster-fixtures.ts gives it to them as baseURL.


export default defineConfig({
  testDir: "tests/cluster",
  // Beside the main browser tests' results, which a later run would otherwise wipe before CI prints them.
  outputDir: "test-results-cluster",
  globalSetup: "./tests/support/cluster-global-setup.ts",
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: reporters(),
  timeout: 90_000,
  // The whole run, set-up included, must stay well inside five minutes on two cores.
  globalTimeout: 6 * 60_000,
  use: {
    launchOptions: chromiumLaunch,
    trace: "off",
  },
  // Every browser flow runs twice, JavaScript on and off; killing a server is not a browser flow.
  projects: [
    { name: "js", testIgnore: /failover\.spec\.ts/, use: { javaScriptEnabled: true } },
    { name: "no-js", testIgnore: /failover\.spec\.ts/, use: { javaScriptEnabled: false } },
    { name: "failover", testMatch: /failover\.spec\.ts/ },
  ],
});
