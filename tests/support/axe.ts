import fs from "node:fs";
import { createRequire } from "node:module";

import type { Page } from "@playwright/test";
import type { Result, RunOptions } from "axe-core";

// axe-core run in the page itself (the layout tests, docs/testing.md): its script is put into each
// document once and `axe.run` gathers the violations alone. (@axe-core/playwright, used before,
// evaluated the 650 KB script twice per check and kept every passing node too: about 0.55 s a check
// where this takes 0.25-0.4 s.)

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

declare global {
  interface Window {
    axe?: { run(context: Document, options: RunOptions): Promise<{ violations: Result[] }> };
  }
}

/** What axe-core finds wrong on the page as it is now, with the rules `options` picks. */
export async function axeViolations(page: Page, options: RunOptions): Promise<Result[]> {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE_SOURCE);
  return page.evaluate((runOptions) => window.axe!.run(document, runOptions).then((results) => results.violations), {
    ...options,
    resultTypes: ["violations"],
  } satisfies RunOptions);
}
