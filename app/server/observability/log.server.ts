import { pino, type DestinationStream, type Logger } from "pino";

import { env } from "../env.server";

// The server's log (docs/operator-guide.md, "Logs"): one JSON object per line, at LOG_LEVEL and
// above, on standard output — a request line per request, and what goes wrong. What is logged is
// chosen field by field where it is written, never a request's headers or body, so no password,
// cookie, token or form field can reach it. Under `npm run dev` the lines are short and readable.

/** A log line as a person reads it: time, level, the message, then the other fields as key=value. */
export function readableLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.trimEnd();
  }
  const { time, level, msg, pid: _pid, hostname: _hostname, ...rest } = entry;
  const clock = typeof time === "string" ? time.slice(11, 23) : "";
  const fields = Object.entries(rest)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
  return `${clock} ${String(level).toUpperCase().padEnd(5)} ${String(msg ?? "")}${fields ? ` ${fields}` : ""}`;
}

/** An email address in a message (a mail server's refusal names the recipient): never logged. */
const ADDRESS = /[^\s<>"'()@,;:/]+@[^\s<>"'()@,;:/]+\.[A-Za-z]{2,}\b/g;
const withoutAddresses = (text: string | undefined) => text?.replace(ADDRESS, "[address]");

/** What the log keeps of an error: its type, code, message and stack, with any email address blanked. */
export function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: withoutAddresses(String(error)) };
  const code = (error as { code?: unknown }).code;
  return { type: error.name, ...(typeof code === "string" || typeof code === "number" ? { code } : {}), message: withoutAddresses(error.message), stack: withoutAddresses(error.stack) };
}

function destination(): DestinationStream {
  if (env.NODE_ENV === "development") {
    return { write: (line: string) => void process.stdout.write(`${readableLine(line)}\n`) };
  }
  if (env.NODE_ENV === "test") {
    // Under tests an error goes through console.error, which fails the test that caused it
    // (tests/support/vitest-setup.ts), and a warning through console.warn, where a test can
    // read it; the rest is written as in production.
    return {
      write: (line: string) => {
        if (/"level":"(error|fatal)"/.test(line)) console.error(line.trimEnd());
        else if (line.includes('"level":"warn"')) console.warn(line.trimEnd());
        else process.stdout.write(line);
      },
    };
  }
  return pino.destination({ dest: 1, sync: true });
}

export const log: Logger = pino(
  {
    level: env.LOG_LEVEL,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // "level":"info" rather than pino's 30: what log tools and people read.
    formatters: { level: (label) => ({ level: label }) },
    // An error is logged as its type, code, message and stack, never with the other things it
    // may carry (a mail error's recipients, a database error's row values).
    serializers: { err: errorFields },
  },
  destination(),
);
