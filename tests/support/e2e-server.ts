import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

import { freePort } from "./free-port";

// What the e2e server is started with (playwright.config.ts), shared with specs that start a
// second server of their own on the same database (early-refusals.spec.ts).

export const E2E_PORT = Number(process.env.E2E_PORT ?? 4100);
// E2E_PORT and E2E_DATA_DIR let two runs share a machine without clobbering each other.
export const E2E_DATA = path.resolve(process.env.E2E_DATA_DIR ?? ".e2e-data");
export const E2E_ADMIN_PASSWORD = "e2e-admin-password"; // tests/support/e2e.ts signs in with it

export function e2eServerEnv(port: number): Record<string, string> {
  return {
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_PATH: path.join(E2E_DATA, "recipals.db"),
    // An empty PostgreSQL database instead (npm run test:postgres runs the search flows there too).
    ...(process.env.E2E_DATABASE_URL ? { DATABASE_URL: process.env.E2E_DATABASE_URL } : {}),
    RECIPALS_SEED_FILE: process.env.RECIPALS_SEED_FILE ?? path.resolve("../shared/data/recipals-seed.json"),
    SEED_ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
    // The tests sign in as seeded people with the published password (production seeds random ones).
    SEED_USER_PASSWORD: "ReciPals",
    SESSION_SECRET: "e2e-session-secret-0123456789abcdef",
    ADMIN_SECRET: "e2e-admin-secret",
    MEALDB_BASE_URL: "http://127.0.0.1:9/none",
    // The sample photos keep their links: the tests never reach another site (seed/photos.ts).
    RECIPALS_SEED_PHOTOS: "link",
    // Import by link reads a stub page the test serves on 127.0.0.1 (tests/e2e/extras.spec.ts).
    IMPORT_ALLOW_PRIVATE: "1",
    // Passwords hashed at the tests' cost (app/server/auth/password.server.ts; docs/testing.md).
    RECIPALS_TEST_PASSWORD_COST: "low",
    // Every sign-up of the suite comes from 127.0.0.1: the limit of 10 an hour per address
    // (tested in tests/unit/signup-limit.test.ts) would refuse the suite's own later sign-ups.
    SIGNUP_LIMIT: "100",
    // Links in mail (written to the outbox beside the database: no SMTP_URL) lead back here, and
    // people's ActivityPub actors live here (docs/federation.md).
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // Two instances on this machine federate over plain http (tests/e2e/federation.spec.ts).
    FEDERATION_ALLOW_PRIVATE: "1",
  };
}

/**
 * Starts another server of the app's build on a free port, with the e2e settings and `env` on top;
 * `script` is scripts/server.js (serve only) or scripts/start.js (migrate and seed first). Resolves
 * once it answers; `stop` ends it.
 */
export async function startAppServer({ script = "scripts/server.js", env = {} as Record<string, string> } = {}): Promise<{ port: number; base: string; stop: () => void }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server: ChildProcess = spawn(process.execPath, [script], { env: { ...process.env, ...e2eServerEnv(port), ...env }, stdio: "ignore" });
  for (let tries = 0; ; tries++) {
    if (server.exitCode !== null) throw new Error(`the server on ${port} exited (${server.exitCode}) before answering`);
    const up = await fetch(`${base}/ReciPals/Info`).then((response) => response.ok, () => false);
    if (up) break;
    if (tries > 300) throw new Error(`the server on ${port} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, base, stop: () => server.kill("SIGTERM") };
}
