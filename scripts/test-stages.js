// The stages of `npm test` (scripts/test.js) and `npm run test:postgres` (scripts/test-postgres.js):
// each run in turn, timed, and at the end the table of their times and the 20 slowest test files,
// kept in test-results-timings/summary.json (docs/testing.md). .ci/run holds the time of the whole
// `npm test` against its budget.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const TIMINGS_DIR = path.resolve("test-results-timings");

/**
 * @typedef {object} Stage
 * @property {string} name What the table calls it.
 * @property {string} command
 * @property {string[]} args
 * @property {Record<string, string>} [env] Added to this process's environment.
 * @property {{ file: string, dir?: string }} [timings] A reporter's JSON file (in TIMINGS_DIR) naming each
 *   test file's time; `dir`: where a Playwright report's file names are (its testDir).
 * @property {() => Promise<void>} [before] Run first (a database to make).
 * @property {() => Promise<void>} [after] Run last, whatever the outcome (the database dropped).
 * @property {Stage} [alongside] Run at the same time: a stage that keeps one core busy beside
 *   another that does too (the typecheck and lint).
 */

/**
 * @typedef {object} StageResult
 * @property {string} name
 * @property {number} seconds
 * @property {number} status
 * @property {string} [beside] The stage it ran alongside (its time is within that one's).
 */

/**
 * @typedef {object} FileTime
 * @property {string} file
 * @property {number} seconds
 * @property {string} stage
 */

/**
 * The stages of `npm test` without PostgreSQL (test-postgres.js adds its own).
 * @returns {Stage[]}
 */
export function baseStages() {
  return [
    { name: "chromium", command: "node", args: ["scripts/ensure-chromium.js"] },
    // One build for every stage: the security tests' servers, the browser tests' server and the
    // cluster's build into their own folders when run alone, and into this one under npm test.
    { name: "build", command: "node", args: ["scripts/start.js", "--build-only"] },
    // Each of these uses one core: side by side they take the time of the longer.
    { name: "typecheck", command: "npx", args: ["tsc"], alongside: { name: "lint", command: "npx", args: ["eslint", "--max-warnings", "0", "."] } },
    {
      name: "unit (SQLite)",
      command: "npx",
      args: ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${path.join(TIMINGS_DIR, "unit-sqlite.json")}`],
      env: { RECIPALS_TEST_POSTGRES: "" },
      timings: { file: "unit-sqlite.json" },
    },
    {
      name: "browser",
      command: "npx",
      args: ["playwright", "test"],
      env: { PLAYWRIGHT_TIMINGS: path.join(TIMINGS_DIR, "browser.json") },
      timings: { file: "browser.json", dir: "tests/e2e" },
    },
  ];
}

/**
 * Runs each stage in turn (with the one it runs alongside, if any) until one fails.
 * @param {Stage[]} stages
 * @returns {Promise<StageResult[]>}
 */
export async function runStages(stages) {
  fs.mkdirSync(TIMINGS_DIR, { recursive: true });
  /** @type {StageResult[]} */
  const results = [];
  for (const stage of stages) {
    const ran = await Promise.all([runStage(stage), ...(stage.alongside ? [runStage(stage.alongside, stage.name)] : [])]);
    results.push(...ran);
    if (ran.some((result) => result.status !== 0)) break;
  }
  return results;
}

/**
 * @param {Stage} stage
 * @param {string} [beside] The stage it runs alongside.
 * @returns {Promise<StageResult>}
 */
async function runStage(stage, beside) {
  console.log(`\n== ${stage.name}${beside ? ` (alongside ${beside})` : ""}`);
  const started = Date.now();
  let status = 1;
  try {
    await stage.before?.();
    status = await new Promise((resolve) => {
      const child = spawn(stage.command, stage.args, { stdio: "inherit", env: { ...process.env, ...stage.env } });
      child.on("error", () => resolve(1));
      child.on("exit", (code) => resolve(code ?? 1));
    });
  } finally {
    await stage.after?.();
  }
  const seconds = (Date.now() - started) / 1000;
  if (beside) console.log(`\n== ${stage.name} (alongside ${beside}) ${status === 0 ? "passed" : "failed"} in ${Math.round(seconds)} s`);
  return { name: beside ? `${stage.name} (alongside ${beside})` : stage.name, seconds, status, beside };
}

/**
 * Each test file's time from a reporter's JSON: vitest's (`testResults`: a file each, with its
 * start and end) or Playwright's (`suites`: a file each, its tests' results with durations, summed:
 * the file's share of the workers' time).
 * @param {{ file: string, dir?: string }} timings
 * @param {string} stage
 * @returns {FileTime[]}
 */
export function fileTimes({ file, dir = "" }, stage) {
  let report;
  try {
    report = JSON.parse(fs.readFileSync(path.join(TIMINGS_DIR, file), "utf8"));
  } catch {
    return [];
  }
  if (Array.isArray(report.testResults)) {
    return report.testResults.map((/** @type {{ name: string, startTime: number, endTime: number }} */ result) => ({
      file: path.relative(process.cwd(), result.name),
      seconds: (result.endTime - result.startTime) / 1000,
      stage,
    }));
  }
  /** @type {Map<string, number>} */
  const byFile = new Map();
  /** @param {any} suite */
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        for (const result of test.results ?? []) byFile.set(spec.file, (byFile.get(spec.file) ?? 0) + (result.duration ?? 0) / 1000);
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites ?? []) walk(suite);
  return [...byFile].map(([name, seconds]) => ({ file: path.join(dir, name), seconds, stage }));
}

/**
 * `m:ss`, rounded to the second first (59.6 s is 1:00, not 0:60).
 * @param {number} seconds
 */
export function minutes(seconds) {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/**
 * The stages' time together: one run alongside another takes no time of its own, unless it
 * outlasted that one.
 * @param {StageResult[]} results
 */
export function totalSeconds(results) {
  return results.reduce((sum, result) => {
    if (!result.beside) return sum + result.seconds;
    const main = results.find((other) => other.name === result.beside);
    return sum + Math.max(0, result.seconds - (main?.seconds ?? 0));
  }, 0);
}

/**
 * Prints the stages' times and the slowest files, and keeps them in summary.json (this run's only).
 * @param {StageResult[]} results
 * @param {Stage[]} stages
 */
export function report(results, stages) {
  const files = stages
    .flatMap((stage) => (stage.alongside ? [stage, stage.alongside] : [stage]))
    .flatMap((stage) => (stage.timings ? fileTimes(stage.timings, stage.name) : []));
  files.sort((a, b) => b.seconds - a.seconds);
  console.log("\n== time per stage (m:ss)");
  for (const result of results) console.log(`${minutes(result.seconds).padStart(7)}  ${result.name}${result.status === 0 ? "" : "  (failed)"}`);
  console.log(`${minutes(totalSeconds(results)).padStart(7)}  all stages`);
  console.log("\n== the 20 slowest test files (m:ss; a browser file: its tests' time summed over the workers)");
  for (const file of files.slice(0, 20)) console.log(`${minutes(file.seconds).padStart(7)}  ${file.file}  [${file.stage}]`);
  fs.writeFileSync(path.join(TIMINGS_DIR, "summary.json"), JSON.stringify({ stages: results, files }, null, 2));
}

