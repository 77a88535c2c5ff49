// `npm run test:postgres` (the last part of `npm test`): the unit and integration tests again on
// PostgreSQL, then the cluster test (two app servers behind nginx on PostgreSQL and an S3 server).
// RECIPALS_TEST_POSTGRES names the server and a role that may create databases, e.g.
// postgres://recipals:recipals@127.0.0.1:5432/postgres (.ci/run starts PostgreSQL and makes the
// role). Without it this says so and stops: a machine without PostgreSQL still runs `npm test`.
import { spawnSync } from "node:child_process";

const url = process.env.RECIPALS_TEST_POSTGRES;
if (!url) {
  console.log(
    "PostgreSQL tests skipped: set RECIPALS_TEST_POSTGRES=postgres://USER:PASSWORD@127.0.0.1:5432/postgres " +
      "(a role that may create databases; see README, Running on more than one machine).",
  );
  process.exit(0);
}

for (const [label, command, args] of [
  ["unit and integration tests on PostgreSQL", "npx", ["vitest", "run"]],
  ["cluster test (PostgreSQL, S3, two servers behind nginx)", "npx", ["playwright", "test", "-c", "playwright.cluster.config.ts"]],
]) {
  console.log(`\n== ${label}`);
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, TEST_POSTGRES_URL: url } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
