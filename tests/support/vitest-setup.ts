import { afterEach, vi } from "vitest";

// A console.error during a test is a bug we did not assert on: fail the test (a console.error nobody expected is a defect).
const consoleError = vi.spyOn(console, "error");
afterEach(() => {
  const calls = consoleError.mock.calls;
  consoleError.mockClear();
  if (calls.length > 0) throw new Error(`console.error was called: ${calls.map((c) => c.map(String).join(" ")).join("\n")}`);
});
