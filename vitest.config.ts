import path from "node:path";

import { defineConfig } from "vitest/config";

// Each test file runs in its own module graph, so `db.server` opens a fresh, migrated
// in-memory SQLite database per file: real SQL, no mocks, no shared state.
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
    setupFiles: ["tests/unit/setup.ts"],
    testTimeout: 20_000,
  },
});
