import { PassThrough } from "node:stream";

import { expect, test } from "vitest";

import { createProgress, renderBar } from "./progress";

test("renders a fixed-width bar with the count", () => {
  expect(renderBar(150, 303, "recipes")).toBe("[##########..........] 150/303 recipes");
  expect(renderBar(0, 26, "letters")).toBe("[....................] 0/26 letters");
});

test("without a terminal, prints at most five lines however many steps there are", () => {
  const lines: string[] = [];
  const progress = createProgress("recipes", 303, { log: (line) => lines.push(line) });
  for (let i = 0; i < 303; i++) progress.advance();
  progress.finish();
  expect(lines.length).toBeLessThanOrEqual(5);
  expect(lines.at(-1)).toBe("[####################] 303/303 recipes");
});

test("on a terminal, redraws one line and ends it once", () => {
  const stream = new PassThrough();
  let written = "";
  stream.on("data", (chunk: Buffer) => (written += chunk.toString()));
  const progress = createProgress("letters", 2, { tty: stream });
  progress.advance();
  progress.advance();
  progress.finish();
  progress.finish();
  expect(written).toBe("\r[##########..........] 1/2 letters\r[####################] 2/2 letters\n");
});
