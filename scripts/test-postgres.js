// The PostgreSQL half of `npm test` (scripts/test.js runs these stages after its own; `npm run
// test:postgres` runs them alone): the unit and integration tests again on PostgreSQL, the search
// flows in a browser on PostgreSQL, then the cluster test (two app servers behind nginx on
// PostgreSQL and an S3 server). RECIPALS_TEST_POSTGRES names the server and a role that may create
// databases, e.g. postgres://recipals:recipals@127.0.0.1:5432/postgres (.ci/run starts PostgreSQL
// and makes the role). Without it there are no stages, and this says so: a machine without
// PostgreSQL still runs `npm test`.
import path from "node:path";
import { pathToFileURL } from "node:url";

import pg from "pg";

import { report, runStages, TIMINGS_DIR } from "./test-stages.js";

/**
 * @param {string} url
 * @param {string} statement
 * @returns {Promise<void>}
 */
async function admin(url, statement) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** @returns {import("./test-stages.js").Stage[]} */
export function postgresStages() {
  const url = process.env.RECIPALS_TEST_POSTGRES;
  if (!url) {
    console.log(
      "PostgreSQL tests skipped: set RECIPALS_TEST_POSTGRES=postgres://USER:PASSWORD@127.0.0.1:5432/postgres " +
        "(a role that may create databases; see docs/operator-guide.md, More than one machine).",
    );
    return [];
  }
  const e2eDatabase = `recipals_e2e_${process.pid}`;
  const e2eUrl = new URL(url);
  e2eUrl.pathname = `/${e2eDatabase}`;
  const env = { TEST_POSTGRES_URL: url };
  return [
    {
      name: "unit (PostgreSQL)",
      command: "npx",
      args: ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${path.join(TIMINGS_DIR, "unit-postgres.json")}`],
      env,
      timings: { file: "unit-postgres.json" },
    },
    {
      name: "browser search (PostgreSQL)",
      // Its own results folder: a run clears its folder first, and CI prints the main run's failed pages at the end.
      command: "npx",
      args: ["playwright", "test", "tests/e2e/search.spec.ts", "--output", "test-results-postgres"],
      env: {
        ...env,
        E2E_DATABASE_URL: e2eUrl.toString(),
        E2E_PORT: "4190",
        E2E_DATA_DIR: path.resolve(".e2e-data-postgres"),
        PLAYWRIGHT_TIMINGS: path.join(TIMINGS_DIR, "browser-postgres.json"),
      },
      timings: { file: "browser-postgres.json", dir: "tests/e2e" },
      before: () => admin(url, `create database "${e2eDatabase}"`),
      after: () => admin(url, `drop database if exists "${e2eDatabase}" with (force)`),
    },
    {
      name: "cluster",
      command: "npx",
      args: ["playwright", "test", "-c", "playwright.cluster.config.ts"],
      env: { ...env, PLAYWRIGHT_TIMINGS: path.join(TIMINGS_DIR, "cluster.json") },
      timings: { file: "cluster.json", dir: "tests/cluster" },
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const stages = postgresStages();
  const results = await runStages(stages);
  if (stages.length > 0) report(results, stages);
  process.exit(results.find((result) => result.status !== 0)?.status ?? 0);
}
