import { describe, expect, it } from "vitest";

import { errorFields, readableLine } from "~/server/observability/log.server";

// The log's two faces (docs/operator-guide.md, "Logs"): what an error leaves in a JSON line, and
// the short line a developer reads under `npm run dev`.

describe("log lines", () => {
  it("keeps an error's type, code, message and stack, and nothing else it carries", () => {
    // As nodemailer words it: the mail server's reply, naming the recipient, is in the message.
    const error = Object.assign(new Error("Can't send mail - all recipients were rejected: 550 5.1.1 <cook@example.test>: Recipient address rejected"), {
      code: "EENVELOPE",
      rejected: ["cook@example.test"],
      response: "550 5.1.1 <cook@example.test>: Recipient address rejected",
    });
    const fields = errorFields(error);
    expect(Object.keys(fields).sort()).toEqual(["code", "message", "stack", "type"]);
    expect(JSON.stringify(fields)).not.toContain("cook@example.test");
    expect(fields.message).toBe("Can't send mail - all recipients were rejected: 550 5.1.1 <[address]>: Recipient address rejected");
    expect(errorFields("just words")).toEqual({ message: "just words" });
    // A stack's file paths are not addresses, scoped package folders included.
    const paths = new Error("broke");
    paths.stack = "Error: broke\n    at run (file:///srv/app/node_modules/@vitest/runner/dist/index.js:10:5)";
    expect(errorFields(paths).stack).toBe(paths.stack);
  });

  it("reads a request line as time, level, message and the fields, without the process's own", () => {
    const line = JSON.stringify({ level: "info", time: "2026-11-30T10:11:12.345Z", pid: 42, msg: "request", reqId: "abc", route: "routes/ReciPals.Info", status: 200, ms: 3.2 });
    expect(readableLine(line)).toBe("10:11:12.345 INFO  request reqId=abc route=routes/ReciPals.Info status=200 ms=3.2");
    expect(readableLine("not json\n")).toBe("not json");
  });
});
