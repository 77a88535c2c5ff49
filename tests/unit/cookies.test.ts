import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { isPersonalRequest } from "~/server/http/cookies.server";
import { sessionCookie, signupDraftStorage } from "~/server/auth/session.server";

// One definition of "personal": whenever Remix would read one of our cookies from a Cookie
// header, the page cache and the ETag path must treat the request as personal.

const junk = fc.constantFrom("", " ", "\t", ";", "; ", "a=1", "theme=dark", "x", "=", "==", ";;", "recipals", "recipals_", "b=recipals_session=1");
const sep = fc.constantFrom(";", "; ", " ;", ";\t", ";  ");

describe("isPersonalRequest", () => {
  it("is true for every header from which Remix reads our session or sign-up cookie", async () => {
    const session = (await sessionCookie.serialize("some-session-id")).split(";")[0]!;
    const draft = (await signupDraftStorage.commitSession(await signupDraftStorage.getSession())).split(";")[0]!;
    const ours = fc.constantFrom(session, draft).chain((pair) => {
      const [name, value] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
      return fc.tuple(fc.constantFrom("", " ", "\t", "  "), fc.constantFrom("", " ", "\t")).map(([before, after]) => `${before}${name}${after}=${value}`);
    });
    await fc.assert(
      fc.asyncProperty(fc.array(junk, { maxLength: 4 }), ours, fc.array(junk, { maxLength: 4 }), sep, async (head, cookie, tail, separator) => {
        const header = [...head, cookie, ...tail].join(separator);
        const readsSession = (await sessionCookie.parse(header)) !== null;
        const readsDraft = Object.keys((await signupDraftStorage.getSession(header)).data).length > 0;
        if (readsSession || readsDraft) expect(isPersonalRequest(header)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ["no header", undefined, false],
    ["other sites' cookies", "theme=dark; _ga=1", false],
    ["our prefix only inside a value", "theme=recipals_dark", false],
    ["our prefix inside another name", "my_recipals_x=1", false],
    ["the session cookie", "recipals_session=abc", true],
    ["the session cookie with a space before =", "recipals_session =abc", true],
    ["our cookie after a bare semicolon", "foo=1;recipals_x=2", true],
  ])("%s → %s", (_case, header, expected) => expect(isPersonalRequest(header)).toBe(expected));

  it("is true with an Authorization header, whatever the cookies", () => {
    expect(isPersonalRequest(undefined, "Bearer x")).toBe(true);
  });
});
