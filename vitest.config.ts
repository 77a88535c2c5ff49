import path from "node:path";

import { defineConfig } from "vitest/config";

import { filesWithoutDatabase } from "./tests/support/database-files";

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
  "tests/unit/{scale,query-plans,migrations-report-cooks,observability,observability-cluster}.test.ts",
];

const TEST_FOLDERS = ["app", "seed", "tests/unit", "tests/security"];

export default defineConfig({
  resolve: { alias: { "~": path.resolve(__dirname, "app") } },
  esbuild: { jsx: "automatic" },
  test: {
    environment: "node",
    include: TEST_FOLDERS.map((folder) => `${folder}/**/*.test.{ts,tsx}`),
    env: {
      DATABASE_PATH: ":memory:",
      NODE_ENV: "test",
      // Passwords hashed at a test cost (app/server/auth/password.server.ts; docs/testing.md).
      RECIPALS_TEST_PASSWORD_COST: "low",
      SESSION_SECRET: "test-session-secret-0123456789abcdef",
      RECIPALS_SEED_FILE: process.env.RECIPALS_SEED_FILE ?? path.resolve(__dirname, "../shared/data/recipals-seed.json"),
    },
    // On PostgreSQL, also leave out the files that never reach the database: they ran on SQLite.
    exclude: ["**/node_modules/**", ...(onPostgres ? [...SQLITE_ONLY, ...filesWithoutDatabase(__dirname, TEST_FOLDERS)] : [])],
    // Files at once. Most of a file's time is spent waiting (for a server it started, a browser,
    // PostgreSQL), so three share two cores well; vitest's default on two cores is one at a time.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 3),
    globalSetup: onPostgres ? ["tests/support/postgres-global.ts"] : [],
    setupFiles: ["tests/support/postgres-file.ts", "tests/support/vitest-setup.ts"],
    testTimeout: 20_000,
  },
});
