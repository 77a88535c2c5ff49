import { UNSAFE_ErrorResponseImpl as ErrorResponse } from "@remix-run/router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { handleError } from "~/entry.server";

// What the server log gets from errors Remix reports: one entry per failure, none for a refusal
// answered on purpose or a request the client gave up.

function args(request: Request) {
  return { request, params: {}, context: {} } as Parameters<typeof handleError>[1];
}

/** Remix's sanitized copy of an error outside development: the message only, no stack. */
function sanitized(): Error {
  const copy = new Error("Unexpected Server Error");
  copy.stack = undefined;
  return copy;
}

describe("the server log", () => {
  // console.error is watched by tests/support/vitest-setup.ts (a call fails the test): here the
  // calls are what is asserted, so they are read, then cleared.
  const logged = vi.mocked(console.error);
  beforeEach(() => {
    logged.mockImplementation(() => undefined);
  });
  afterEach(() => logged.mockClear());
  /** The errors' messages among what was logged (the log's JSON lines; under tests its errors go to console.error). */
  const loggedErrors = () =>
    logged.mock.calls
      .map((call) => JSON.parse(String(call[0])) as { level: string; err?: { message: string } })
      .filter((line) => line.level === "error")
      .map((line) => line.err?.message);

  it("logs a failure once, not again when a boundary rethrows Remix's sanitized copy of it", () => {
    const request = new Request("http://localhost/ReciPals/Home");
    const failure = new Error("the loader broke");
    handleError(failure, args(request));
    handleError(sanitized(), args(request));
    expect(loggedErrors()).toEqual(["the loader broke"]);
  });

  it("logs a stackless error of a request that had none logged yet", () => {
    const failure = sanitized();
    handleError(failure, args(new Request("http://localhost/ReciPals/Home")));
    expect(loggedErrors()).toEqual(["Unexpected Server Error"]);
  });

  it("logs nothing for a 4xx refusal or a request its client gave up", () => {
    handleError(new ErrorResponse(404, "Not Found", "Recipe not found."), args(new Request("http://localhost/ReciPals/Recipes/nope")));
    const gone = new AbortController();
    gone.abort();
    handleError(new Error("late"), args(new Request("http://localhost/ReciPals/Home", { signal: gone.signal })));
    expect(loggedErrors()).toEqual([]);
  });
});
