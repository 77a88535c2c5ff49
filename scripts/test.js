// `npm test`: every check the project has, one stage after another, stopping at the first that
// fails — Chromium where the browser tests look, one build, the typecheck, lint, the unit and
// integration tests on SQLite, the browser tests (JavaScript on and off), then, with
// RECIPALS_TEST_POSTGRES set, the unit tests on PostgreSQL, the search flows in a browser on
// PostgreSQL and the cluster test (scripts/test-postgres.js). At the end (failed or not) it prints
// how long each stage took and the 20 slowest test files (scripts/test-stages.js; docs/testing.md).
import fs from "node:fs";

import { postgresStages } from "./test-postgres.js";
import { baseStages, report, runStages, TIMINGS_DIR } from "./test-stages.js";

fs.rmSync(TIMINGS_DIR, { recursive: true, force: true });
process.env.RECIPALS_BUILD_DIR ??= "build";
const stages = [...baseStages(), ...postgresStages()];
const results = await runStages(stages);
report(results, stages);
const failed = results.find((result) => result.status !== 0);
if (failed) console.log(`\n${failed.name} failed.`);
process.exit(failed ? failed.status : 0);
