// `npm run test:postgres` (the last part of `npm test`): the unit and integration tests again on
// PostgreSQL, the search flows in a browser on PostgreSQL, then the cluster test (two app servers
// behind nginx on PostgreSQL and an S3 server). RECIPALS_TEST_POSTGRES names the server and a role
// that may create databases, e.g. postgres://recipals:recipals@127.0.0.1:5432/postgres (.ci/run
// starts PostgreSQL and makes the role). Without it this says so and stops: a machine without
// PostgreSQL still runs `npm test`.
import { spawnSync } from "node:child_process";
import path from "node:path";

import pg from "pg";

const url = process.env.RECIPALS_TEST_POSTGRES;
if (!url) {
  console.log(
    "PostgreSQL tests skipped: set RECIPALS_TEST_POSTGRES=postgres://USER:PASSWORD@127.0.0.1:5432/postgres " +
      "(a role that may create databases; see README, Running on more than one machine).",
  );
  process.exit(0);
}

/**
 * @param {string} statement
 * @returns {Promise<void>}
 */
async function admin(statement) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const e2eDatabase = `recipals_e2e_${process.pid}`;
const e2eUrl = new URL(url);
e2eUrl.pathname = `/${e2eDatabase}`;

/** @type {Array<[label: string, args: string[], env: { E2E_DATABASE_URL?: string, E2E_PORT?: string, E2E_DATA_DIR?: string }]>} */
const steps = [
  ["unit and integration tests on PostgreSQL", ["vitest", "run"], {}],
  [
    "search in the browser on PostgreSQL",
    // Its own results folder: a run clears its folder first, and CI prints the main run's failed pages at the end.
    ["playwright", "test", "tests/e2e/search.spec.ts", "--output", "test-results-postgres"],
    { E2E_DATABASE_URL: e2eUrl.toString(), E2E_PORT: "4190", E2E_DATA_DIR: path.resolve(".e2e-data-postgres") },
  ],
  ["cluster test (PostgreSQL, S3, two servers behind nginx)", ["playwright", "test", "-c", "playwright.cluster.config.ts"], {}],
];

let status = 0;
for (const [label, args, env] of steps) {
  console.log(`\n== ${label}`);
  if (env.E2E_DATABASE_URL) await admin(`create database "${e2eDatabase}"`);
  try {
    const result = spawnSync("npx", args, { stdio: "inherit", env: { ...process.env, TEST_POSTGRES_URL: url, ...env } });
    status = result.status ?? 1;
  } finally {
    if (env.E2E_DATABASE_URL) await admin(`drop database if exists "${e2eDatabase}" with (force)`);
  }
  if (status !== 0) break;
}
process.exit(status);
