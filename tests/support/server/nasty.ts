import fc from "fast-check";
import { expect } from "vitest";

import { ORIGIN as SITE, type Outcome } from "./world";

// Hostile text for property tests: control characters, null bytes, markup, SQL and FTS5
// fragments, unicode edge cases (lone surrogates, bidi overrides, zero-width and combining
// characters, astral planes), template and prototype keys, and very long strings.

export const NASTY: readonly string[] = [
  "",
  " ",
  "   \t  ",
  "\u0000",
  "a\u0000b",
  "\u0000".repeat(64),
  "\x01\x02\x03\x07\x08\x0b\x0c\x1b[31mred\x1b[0m\x7f",
  "\r\n\r\nSet-Cookie: evil=1",
  "line1\nline2\rline3\u2028line4\u2029",
  "<script>alert(1)</script>",
  "</script><script>alert(document.cookie)</script>",
  "<img src=x onerror=alert(1)>",
  '"><svg onload=alert(1)>',
  "javascript:alert(1)",
  "<!--",
  "]]>",
  "&lt;&amp;&quot;",
  "'; DROP TABLE users; --",
  '" OR "1"="1',
  "' OR 1=1 --",
  "1; DELETE FROM sessions",
  "%' OR '%'='",
  "\\",
  "\\'",
  "*",
  "(",
  ")",
  '"',
  "'",
  "NEAR(a b",
  "a AND OR NOT",
  "name:x",
  "^x",
  "{}",
  "[]",
  "\uD800",
  "\uDFFF",
  "a\uD800b",
  "\uDC00\uD800",
  "\uDBFF\uDFFF",
  "\uFEFF",
  "\u202Egnp.exe",
  "\u200B\u200C\u200D\u2060",
  "e\u0301".repeat(300),
  "Z\u0351\u0352\u0357\u0358\u035B\u0360".repeat(40),
  "👩‍👩‍👧‍👦🏳️‍🌈",
  "𝕏𝕐𝕫",
  "ﷺ",
  "\uFFFD",
  "\uFFFF",
  "../../etc/passwd",
  "..\\..\\windows\\win.ini",
  "%2e%2e%2f%00",
  "${7*7}",
  "{{7*7}}",
  "__proto__",
  "constructor",
  "toString",
  "NaN",
  "-1",
  "0",
  "1e309",
  "99999999999999999999999",
  "//evil.example/",
  "/\\evil.example",
  "https://evil.example/",
  "a".repeat(100_000),
  "<".repeat(50_000),
  "x".repeat(1001),
  "Ω".repeat(40_000),
];

/** `redirectTo` values that try to leave the site. */
export const REDIRECT_ATTACKS: readonly string[] = [
  "//evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/\r\n/evil.example",
  "/\u0000/evil.example",
  " //evil.example",
  "https://evil.example",
  "javascript:alert(1)",
  "/%2F%2Fevil.example",
  "/%09/evil.example",
  "/./\t/evil.example",
  "/\u3000/evil.example",
  "/\uFF0F/evil.example",
  "/ReciPals/Home\r\nSet-Cookie: x=1",
];

const short = NASTY.filter((s) => s.length < 500);

/** A hostile string: a known nasty one, random code units (lone surrogates included), a mix, or a huge one. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 120 }) },
  { weight: 3, arbitrary: fc.array(fc.oneof(fc.constantFrom(...short), fc.string({ unit: "binary", maxLength: 8 })), { maxLength: 6 }).map((parts) => parts.join("")) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 60 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...short.filter(Boolean)), fc.integer({ min: 1_000, max: 110_000 })).map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n)) },
);

/** A field value that is sometimes sane, so that deeper code (past validation) is reached too. */
export function sometimesSane(sane: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof({ weight: 1, arbitrary: sane }, { weight: 2, arbitrary: nastyString });
}

/** Any JSON value with hostile strings in it (keys included). */
export const nastyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    nastyString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(nastyString, fc.constantFrom("__proto__", "constructor", "_id", "role", "password", "user_id")), tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** The text a refusal shows: a plain-text body, or `message` / `error` / `formError` / the first field error. */
export function messageOf(outcome: Outcome): string {
  const body = outcome.body;
  if (typeof body === "string") return body;
  if (body && typeof body === "object") {
    const record = body as Record<string, unknown>;
    for (const key of ["message", "error", "formError"]) if (typeof record[key] === "string" && record[key]) return record[key] as string;
    const fieldErrors = record.fieldErrors as Record<string, unknown> | undefined;
    const first = fieldErrors && Object.values(fieldErrors).find((v) => typeof v === "string" && v);
    if (typeof first === "string") return first;
  }
  return "";
}

/**
 * The hostile-input contract: never a 5xx; a refusal (4xx) carries a clear, human message (not
 * an echo of the input, not a stack trace); a redirect stays on this site.
 */
export function expectSafeAnswer(outcome: Outcome, label: string): void {
  expect(outcome.status, `${label}: status`).toBeLessThan(500);
  if (outcome.status >= 400) {
    const message = messageOf(outcome);
    expect(message.length, `${label}: a ${outcome.status} needs a message`).toBeGreaterThan(0);
    expect(message.length, `${label}: message too long to be a message`).toBeLessThan(400);
    expect(message, `${label}: no stack traces`).not.toMatch(/\n\s+at |SqliteError|TypeError|ZodError/);
  }
  if (outcome.status >= 300 && outcome.status < 400) {
    const location = outcome.location ?? "";
    expect(location, `${label}: redirect stays on this site`).toMatch(/^\/(?![/\\])/);
    // As a browser reads it (tabs and newlines dropped, backslashes as slashes): still this site.
    expect(new URL(location, SITE).origin, `${label}: redirect ${JSON.stringify(location)} leaves the site`).toBe(SITE);
    expect(location, `${label}: control characters in Location`).not.toMatch(/[\u0000-\u001F\u007F]/);
  }
}
