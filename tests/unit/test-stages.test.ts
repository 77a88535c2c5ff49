import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The runner of `npm test`'s stages (scripts/test-stages.js; docs/testing.md): a stage run
// alongside another runs at the same time and counts only for what outlasts it, a failure stops
// the stages after it, and the table's times read as minutes and seconds.

type StagesModule = typeof import("../../scripts/test-stages.js");
let stages: StagesModule;
const startedIn = process.cwd();
let scratch: string;

beforeAll(async () => {
  // The runner keeps its timings in ./test-results-timings: a folder of this test's own.
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-stages-"));
  process.chdir(scratch);
  stages = await import("../../scripts/test-stages.js");
});

afterAll(() => {
  process.chdir(startedIn);
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** A stage that takes `ms` and ends with `code`, noting its start and end in `log`. */
function sleeper(name: string, ms: number, code: number, log: string) {
  const script = `const fs=require("fs");fs.appendFileSync(${JSON.stringify(log)},"start ${name}\\n");setTimeout(()=>{fs.appendFileSync(${JSON.stringify(log)},"end ${name}\\n");process.exit(${code})},${ms})`;
  return { name, command: process.execPath, args: ["-e", script] };
}

/**
 * Runs typecheck with lint beside it (each taking `ms`, lint ending with `lintCode`), then unit:
 * what the runner says of each, and the order they started and ended in.
 */
async function typecheckLintUnit(ms: number, lintCode: number) {
  const log = path.join(scratch, `${ms}-${lintCode}.log`);
  const results = await stages.runStages([{ ...sleeper("typecheck", ms, 0, log), alongside: sleeper("lint", ms, lintCode, log) }, sleeper("unit", 10, 0, log)]);
  return { ran: results.map((result) => [result.name, result.status]), lines: fs.readFileSync(log, "utf8").trim().split("\n") };
}

describe("npm test's stages", () => {
  it("runs a stage alongside another at the same time, and the next stage after both", async () => {
    // Long enough that each starts before the other ends even when a busy machine is slow to start node.
    const { ran, lines } = await typecheckLintUnit(1500, 0);
    expect(ran).toEqual([
      ["typecheck", 0],
      ["lint (alongside typecheck)", 0],
      ["unit", 0],
    ]);
    // Both had started before either ended, and the next began after both.
    expect(lines.slice(0, 2).sort()).toEqual(["start lint", "start typecheck"]);
    expect(lines.slice(2, 4).sort()).toEqual(["end lint", "end typecheck"]);
    expect(lines.slice(4)).toEqual(["start unit", "end unit"]);
  });

  it("stops at a failure, whether of a stage or of the one beside it", async () => {
    const { ran, lines } = await typecheckLintUnit(10, 2);
    expect(ran).toEqual([
      ["typecheck", 0],
      ["lint (alongside typecheck)", 2],
    ]);
    expect(lines.join("\n")).not.toContain("unit");
  });

  it("counts a stage alongside another only for the time it outlasted it", () => {
    expect(
      stages.totalSeconds([
        { name: "typecheck", seconds: 30, status: 0 },
        { name: "lint (alongside typecheck)", seconds: 20, status: 0, beside: "typecheck" },
        { name: "unit", seconds: 300, status: 0 },
        { name: "slow (alongside unit)", seconds: 310, status: 0, beside: "unit" },
      ]),
    ).toBe(340);
  });

  it("writes times as minutes and seconds, rounded to the second first", () => {
    expect(stages.minutes(59.61)).toBe("1:00");
    expect(stages.minutes(119.5)).toBe("2:00");
    expect(stages.minutes(5.2)).toBe("0:05");
    expect(stages.minutes(2420)).toBe("40:20");
  });
});
