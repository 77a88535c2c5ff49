import path from "node:path";

import { defineConfig } from "vitest/config";

// Each test file runs in its own module graph, so `db.server` opens a fresh, migrated
// in-memory SQLite database per file: real SQL, no mocks, no shared state. With
// RECIPALS_TEST_POSTGRES set (npm run test:postgres; npm run test:unit unsets it, so it always runs on SQLite), each file gets a fresh PostgreSQL
// database instead, copied from one migrated template (tests/support/postgres*.ts).
const onPostgres = Boolean(process.env.RECIPALS_TEST_POSTGRES);

// What runs on SQLite only: tests of real server processes (they start their own servers on a
// SQLite file; the cluster test runs servers on PostgreSQL), of SQLite's own tools, and of a
// migration's SQLite path over an older database (PostgreSQL's runs on every test database).
const SQLITE_ONLY = [
  "tests/security/{backup,durability,early-refusal-close,fuzz-routes,guards,http-headers,load,production-install,public-launch,slow-readers,workers}.test.ts",
  "tests/unit/{scale,query-plans,migrations-report-cooks}.test.ts",
];

export default defineConfig({
  resolve: { alias: { "~": path.resolve(__dirname, "app") } },
  esbuild: { jsx: "automatic" },
  test: {
    environment: "node",
    include: ["app/**/*.test.{ts,tsx}", "seed/**/*.test.ts", "tests/unit/**/*.test.{ts,tsx}", "tests/security/**/*.test.{ts,tsx}"],
    env: {
      DATABASE_PATH: ":memory:",
      NODE_ENV: "test",
      SESSION_SECRET: "test-session-secret-0123456789abcdef",
      RECIPALS_SEED_FILE: process.env.RECIPALS_SEED_FILE ?? path.resolve(__dirname, "../shared/data/recipals-seed.json"),
    },
    exclude: ["**/node_modules/**", ...(onPostgres ? SQLITE_ONLY : [])],
    globalSetup: onPostgres ? ["tests/support/postgres-global.ts"] : [],
    setupFiles: ["tests/support/postgres-file.ts", "tests/support/vitest-setup.ts"],
    testTimeout: 20_000,
  },
});
