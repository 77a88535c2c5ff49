import { describe, expect, it } from "vitest";

import { action as loginAction } from "~/routes/ReciPals.Account.Login";
import { action as signupAction } from "~/routes/ReciPals.Account.Signup";
import { action as recipeAction } from "~/routes/ReciPals.Recipes.$rid";
import { BODY_LIMITS, bodyLimitFor, readForm } from "~/server/body.server";

import { makeUser, ORIGIN, settle, signedInCookie } from "./helpers";

const form = (path: string, body: string | FormData, contentType?: string) =>
  new Request(new URL(path, ORIGIN), { method: "POST", body, headers: contentType ? { "Content-Type": contentType } : {} });

/** A body that arrives without a declared length, counting how much of it was pulled. */
function streamed(path: string, totalBytes: number) {
  const state = { pulled: 0 };
  const chunk = new TextEncoder().encode(`a=${"b".repeat(16 * 1024 - 2)}`);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= totalBytes) return controller.close();
      state.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const request = new Request(new URL(path, ORIGIN), {
    method: "POST",
    body,
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    duplex: "half",
  } as RequestInit & { duplex: "half" });
  return { request, state };
}

describe("the limit for each request body", () => {
  it.each([
    ["/ReciPals/Account/Login", "application/x-www-form-urlencoded", BODY_LIMITS.formBytes],
    ["/ReciPals/Account/Login", "multipart/form-data; boundary=x", BODY_LIMITS.formBytes],
    ["/ReciPals/Recipes/r1", "application/x-www-form-urlencoded", BODY_LIMITS.formBytes],
    ["/ReciPals/Account/Admin/Recipes/r1", "application/x-www-form-urlencoded", BODY_LIMITS.longTextFormBytes],
    ["/ReciPals/Editor/r1", "multipart/form-data; boundary=x", BODY_LIMITS.multipartBytes],
    ["/recipals/editor/r1", "multipart/form-data; boundary=x", BODY_LIMITS.multipartBytes],
    ["/ReciPals/Editor/r1", "application/x-www-form-urlencoded", BODY_LIMITS.formBytes],
    ["/ReciPals/Account/Profile/u1/Edit", "multipart/form-data; boundary=x", BODY_LIMITS.multipartBytes],
    ["/api/recipes", "application/json", BODY_LIMITS.photoJsonBytes],
    ["/api/recipes/r1", "application/json", BODY_LIMITS.photoJsonBytes],
    ["/api/recipes/search", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/posts/p1", "application/json", BODY_LIMITS.photoJsonBytes],
    ["/api/posts/p1/comments", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/users", "application/json", BODY_LIMITS.photoJsonBytes],
    ["/api/users/u1", "application/json", BODY_LIMITS.photoJsonBytes],
    ["/api/users/signin", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/users/signup", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/users/u1/save", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/users/follow/u1", "application/json", BODY_LIMITS.jsonBytes],
    ["/api/anything/new", "application/json", BODY_LIMITS.jsonBytes],
  ])("%s (%s): %d bytes", (path, type, bytes) => expect(bodyLimitFor(path, type).bytes).toBe(bytes));
});

describe("page actions read their form once, within the limit", () => {
  it("refuses a form over 64 KB with 413 and a clear message, after reading no more than the limit", async () => {
    const { request, state } = streamed("/ReciPals/Account/Login", 50 * 1024 * 1024);
    const thrown = await readForm(request).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(413);
    expect(await (thrown as Response).text()).toMatch(/too large for this form \(64 KB at most\)/);
    expect(state.pulled).toBeLessThan(BODY_LIMITS.formBytes + 64 * 1024);
  });

  it.each<[string, () => Promise<unknown>]>([
    ["Login", () => loginAction({ request: form("/ReciPals/Account/Login", `username=a&password=${"x".repeat(100_000)}`, "application/x-www-form-urlencoded"), params: {}, context: {} })],
    ["Signup", () => signupAction({ request: form("/ReciPals/Account/Signup", `name=${"x".repeat(100_000)}`, "application/x-www-form-urlencoded"), params: {}, context: {} })],
    [
      "a signed-in person's comment",
      async () => {
        const request = form("/ReciPals/Recipes/r1", `intent=comment&text=${"x".repeat(100_000)}`, "application/x-www-form-urlencoded");
        request.headers.set("Cookie", await signedInCookie((await makeUser()).id));
        return recipeAction({ request, params: { rid: "r1" }, context: {} });
      },
    ],
  ])("%s: a 100 KB form is refused with 413", async (_what, run) => {
    const outcome = await settle(run);
    expect(outcome).toBeInstanceOf(Response);
    expect((outcome as Response).status).toBe(413);
  });
});
