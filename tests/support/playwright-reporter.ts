import type { ReporterDescription } from "@playwright/test";

/**
 * The list reporter, and with PLAYWRIGHT_TIMINGS (set by npm test, scripts/test-stages.js) also
 * the JSON one, whose per-test times make the table of the slowest files.
 */
export function reporters(): ReporterDescription[] {
  const timings = process.env.PLAYWRIGHT_TIMINGS;
  return timings ? [["list"], ["json", { outputFile: timings }]] : [["list"]];
}
