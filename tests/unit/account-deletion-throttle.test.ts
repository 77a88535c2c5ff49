import { describe, expect, it } from "vitest";

import { action as deleteAction } from "~/routes/ReciPals.Account.Delete";
import { beginSignInAttempt, LimitReachedError, THROTTLE, THROTTLE_MESSAGE } from "~/server/auth/limits.server";
import { db } from "~/server/db/connection.server";
import { ACCOUNT_MESSAGES, deleteOwnAccount } from "~/server/services/account-service.server";

import { dataOf, expectRedirect, formRequest, makeUser, settle, signedInCookie } from "../support/app";

// "Delete my account" asks for the password (docs/rules.md#own-account): a wrong one is a failed
// sign-in under the same limits (docs/rules.md#sign-in-throttling), so the form is no way round
// them: past the limit it answers 429 and deletes nothing, even with the right password.

const remove = (fields: Record<string, string>, cookie: string, address = "203.0.113.60") =>
  settle(() => deleteAction({ request: formRequest("/ReciPals/Account/Delete", fields, cookie), params: {}, context: { clientAddress: address } }));

const exists = async (id: string) => (await db.selectFrom("users").select("id").where("id", "=", id).execute()).length === 1;

describe("deleting one's account under the sign-in limits", () => {
  it("counts wrong passwords: after 5, even the right one is refused with 429, the message and Retry-After, and nothing is deleted", async () => {
    const me = await makeUser({ password: "my own password" });
    const cookie = await signedInCookie(me.id);
    for (let i = 0; i < THROTTLE.perUsernameAndAddress; i++) {
      const wrong = dataOf<{ message: string }>(await remove({ password: `guess ${i}`, confirm: "yes" }, cookie));
      expect(wrong).toMatchObject({ status: 400, data: { message: ACCOUNT_MESSAGES.password } });
    }
    const right = await remove({ password: me.password, confirm: "yes" }, cookie);
    const refused = dataOf<{ message: string; errors: Record<string, string> }>(right);
    expect(refused).toMatchObject({ status: 429, data: { message: THROTTLE_MESSAGE } });
    const headers = new Headers((right as { init?: { headers?: HeadersInit } }).init?.headers);
    expect(Number(headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await exists(me.id)).toBe(true);
    // Once the counted failures leave the window, the right password deletes the account.
    await db.updateTable("sign_in_failures").set((eb) => ({ at: eb("at", "-", THROTTLE.windowMs) })).execute();
    expectRedirect(await remove({ password: me.password, confirm: "yes" }, cookie), "/ReciPals/Account/Delete?done=1");
    expect(await exists(me.id)).toBe(false);
  });

  it("wrong passwords here are failed sign-ins: the same address may then not sign in to the account", async () => {
    const me = await makeUser({ password: "my own password" });
    const cookie = await signedInCookie(me.id);
    for (let i = 0; i < THROTTLE.perUsernameAndAddress; i++) await remove({ password: `guess ${i}`, confirm: "yes" }, cookie, "198.51.100.70");
    await expect(beginSignInAttempt({ username: me.username, address: "198.51.100.70" })).rejects.toBeInstanceOf(LimitReachedError);
  });

  it("parallel guesses all count: no more than the limit get a password check, the rest are refused at once", async () => {
    const me = await makeUser({ password: "my own password" });
    const actor = { id: me.id, role: me.role };
    const outcomes = await Promise.all(
      Array.from({ length: THROTTLE.perUsernameAndAddress + 3 }, (_, i) => deleteOwnAccount({ actor, password: `parallel ${i}`, confirm: "yes", address: "198.51.100.71" })),
    );
    const statuses = outcomes.map((outcome) => (outcome.ok ? 200 : outcome.status));
    expect(statuses.filter((status) => status === 400)).toHaveLength(THROTTLE.perUsernameAndAddress);
    expect(statuses.filter((status) => status === 429)).toHaveLength(3);
    expect(await deleteOwnAccount({ actor, password: me.password, confirm: "yes", address: "198.51.100.71" })).toMatchObject({ ok: false, status: 429, message: THROTTLE_MESSAGE });
    expect(await exists(me.id)).toBe(true);
  });

  it("the right password within the limit deletes and does not leave a failure behind", async () => {
    const me = await makeUser({ password: "my own password" });
    const cookie = await signedInCookie(me.id);
    expect(dataOf(await remove({ password: "one guess", confirm: "yes" }, cookie, "198.51.100.72")).status).toBe(400);
    expectRedirect(await remove({ password: me.password, confirm: "yes" }, cookie, "198.51.100.72"), "/ReciPals/Account/Delete?done=1");
    const left = await db.selectFrom("sign_in_failures").select("id").where("username_key", "=", me.username.toLowerCase()).execute();
    // The one wrong guess stays counted; the right one was not a failure.
    expect(left).toHaveLength(1);
  });
});
