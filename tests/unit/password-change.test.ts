import { describe, expect, it } from "vitest";

import { action as logoutAction } from "~/routes/ReciPals.Account.Logout";
import { action as editAction } from "~/routes/ReciPals.Account.Profile.$uid_.Edit";
import * as userRoute from "~/routes/api.users.$id";
import { db } from "~/server/db/connection.server";
import { verifyLogin } from "~/server/queries/users.server";
import { changeRole, updateProfile, USER_MESSAGES } from "~/server/services/users-service.server";
import { getUser, sessionCookie, sessionKey } from "~/server/auth/session.server";
import { THROTTLE, THROTTLE_MESSAGE } from "~/server/auth/limits.server";

import { call } from "../support/api";
import { cookiesFrom, dataOf, expectRedirect, formRequest, getRequest, makeUser, ORIGIN, routeArgs, settle, signedInCookie } from "../support/app";

// Changing a password (docs/rules.md#passwords): one's own asks for the current one; a change ends
// every session of the account (the one that made it gets a fresh one); sessions are kept under a
// hash of their id; "Sign out everywhere"; a profile save writes only what it changes.

const editPath = (uid: string) => `/ReciPals/Account/Profile/${uid}/Edit`;

function editRequest(uid: string, fields: Record<string, string>, cookie: string) {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  body.append("photo", new File([], "", { type: "application/octet-stream" }));
  return new Request(new URL(editPath(uid), ORIGIN), { method: "POST", body, headers: { Cookie: cookie } });
}

const save = (uid: string, fields: Record<string, string>, cookie: string, address = "203.0.113.40") =>
  settle(() => editAction({ request: editRequest(uid, fields, cookie), params: { uid }, context: { clientAddress: address } }));

const formOf = (user: { name: string; username: string }, changes: Record<string, string> = {}) => ({
  name: user.name,
  username: user.username,
  password: "",
  role: "USER",
  bio: "",
  ...changes,
});

const signedIn = async (cookie: string) => (await getUser(getRequest("/ReciPals/Home", cookie)))?.id ?? null;

describe("changing one's own password in the profile editor", () => {
  it("asks for the current password: missing 400, wrong 403, each with its message by the field, nothing changed", async () => {
    const me = await makeUser({ password: "old password" });
    const cookie = await signedInCookie(me.id);
    const missing = dataOf<{ fieldErrors: Record<string, string> }>(await save(me.id, formOf(me, { password: "new password 1" }), cookie));
    expect(missing.status).toBe(400);
    expect(missing.data.fieldErrors.currentPassword).toBe(USER_MESSAGES.currentPasswordNeeded);
    const wrong = dataOf<{ fieldErrors: Record<string, string> }>(await save(me.id, formOf(me, { password: "new password 1", currentPassword: "guess" }), cookie));
    expect(wrong.status).toBe(403);
    expect(wrong.data.fieldErrors.currentPassword).toBe(USER_MESSAGES.currentPasswordWrong);
    expect((await verifyLogin({ username: me.username, password: "old password" })).ok).toBe(true);
    expect(await signedIn(cookie)).toBe(me.id);
  });

  it("with the right one: saved, every other session ended, this browser signed in afresh", async () => {
    const me = await makeUser({ password: "old password" });
    const here = await signedInCookie(me.id);
    const elsewhere = await signedInCookie(me.id);
    const answer = expectRedirect(await save(me.id, formOf(me, { password: "new password 2", currentPassword: "old password" }), here), `/ReciPals/Account/Profile/${me.id}`);
    expect((await verifyLogin({ username: me.username, password: "new password 2" })).ok).toBe(true);
    expect(await signedIn(elsewhere)).toBeNull();
    expect(await signedIn(here)).toBeNull();
    const renewed = cookiesFrom(answer);
    expect(await signedIn(renewed)).toBe(me.id);
    const rows = await db.selectFrom("sessions").select("id").where("user_id", "=", me.id).execute();
    expect(rows).toHaveLength(1);
  });

  it("wrong current passwords count as failed sign-ins: after 5, even the right one waits", async () => {
    const me = await makeUser({ password: "old password" });
    const cookie = await signedInCookie(me.id);
    for (let i = 0; i < THROTTLE.perUsernameAndAddress; i++) {
      expect(dataOf(await save(me.id, formOf(me, { password: "new password 3", currentPassword: `guess ${i}` }), cookie)).status).toBe(403);
    }
    const right = dataOf<{ formError: string }>(await save(me.id, formOf(me, { password: "new password 3", currentPassword: "old password" }), cookie));
    expect(right.status).toBe(429);
    expect(right.data.formError).toBe(THROTTLE_MESSAGE);
    expect((await verifyLogin({ username: me.username, password: "old password" })).ok).toBe(true);
  });
});

describe("changing a password through the JSON API", () => {
  const put = (cookie: string, id: string, body: unknown) => call(userRoute, "PUT", `/api/users/${id}`, { params: { id }, cookie, body, context: { clientAddress: "203.0.113.41" } });

  it("one's own: currentPassword missing 400, wrong 403; right: other sessions ended and a fresh cookie answered", async () => {
    const me = await makeUser({ password: "old password" });
    const first = await signedInCookie(me.id);
    const second = await signedInCookie(me.id);
    const missing = await put(first, me.id, { password: "new password 4" });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ message: USER_MESSAGES.currentPasswordNeeded, errors: { currentPassword: USER_MESSAGES.currentPasswordNeeded } });
    const wrong = await put(first, me.id, { password: "new password 4", currentPassword: "nope" });
    expect(wrong.status).toBe(403);
    expect(await signedIn(second)).toBe(me.id);
    const done = await put(first, me.id, { password: "new password 4", currentPassword: "old password" });
    expect(done.status).toBe(200);
    expect(JSON.stringify(done.body)).not.toMatch(/password/i);
    expect(await signedIn(second)).toBeNull();
    expect(await signedIn(first)).toBeNull();
    const setCookie = done.headers.get("Set-Cookie") ?? "";
    expect(setCookie).toMatch(/^recipals_session=/);
    expect(await signedIn(setCookie.split(";")[0]!)).toBe(me.id);
  });

  it("an ADMIN setting someone else's password needs none of theirs; that person's sessions end, the ADMIN's do not", async () => {
    const admin = await makeUser({ role: "ADMIN" });
    const adminCookie = await signedInCookie(admin.id);
    const target = await makeUser({ password: "their password" });
    const targetCookie = await signedInCookie(target.id);
    const answer = await put(adminCookie, target.id, { password: "reset by admin" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("Set-Cookie")).toBeNull();
    expect((await verifyLogin({ username: target.username, password: "reset by admin" })).ok).toBe(true);
    expect(await signedIn(targetCookie)).toBeNull();
    expect(await signedIn(adminCookie)).toBe(admin.id);
  });
});

describe("sessions", () => {
  it("are kept under a hash of their id: the database holds no id a cookie carries", async () => {
    const me = await makeUser();
    const cookie = await signedInCookie(me.id);
    const [row] = await db.selectFrom("sessions").select("id").where("user_id", "=", me.id).execute();
    const id = (await sessionCookie.parse(cookie)) as string;
    expect(id.length).toBeGreaterThan(30);
    expect(row!.id).toBe(sessionKey(id));
    expect(JSON.stringify(await db.selectFrom("sessions").selectAll().execute())).not.toContain(id);
    expect(await signedIn(cookie)).toBe(me.id);
  });

  it("Sign out everywhere ends every session of the account, and the answer tells the browser to forget its data", async () => {
    const me = await makeUser();
    const here = await signedInCookie(me.id);
    const elsewhere = await signedInCookie(me.id);
    const other = await makeUser();
    const otherCookie = await signedInCookie(other.id);
    const answer = expectRedirect(await settle(() => logoutAction(routeArgs(formRequest("/ReciPals/Account/Logout", { intent: "everywhere" }, here)))), "/ReciPals/Home");
    expect(answer.headers.get("Clear-Site-Data")).toBe('"cache", "storage"');
    expect(await signedIn(here)).toBeNull();
    expect(await signedIn(elsewhere)).toBeNull();
    expect(await signedIn(otherCookie)).toBe(other.id);
  });

  it("a plain sign-out ends this session only, and also clears the browser's data", async () => {
    const me = await makeUser();
    const here = await signedInCookie(me.id);
    const elsewhere = await signedInCookie(me.id);
    const answer = expectRedirect(await settle(() => logoutAction(routeArgs(formRequest("/ReciPals/Account/Logout", {}, here)))), "/ReciPals/Home");
    expect(answer.headers.get("Clear-Site-Data")).toBe('"cache", "storage"');
    expect(await signedIn(here)).toBeNull();
    expect(await signedIn(elsewhere)).toBe(me.id);
  });
});

describe("a profile save writes only what it changes", () => {
  it("a demotion during someone's slow save (a password being hashed) stays: the save does not put the old role back", async () => {
    const admin = await makeUser({ role: "ADMIN" });
    const other = await makeUser({ role: "ADMIN", password: "their password" });
    // The other ADMIN saves a new bio and password (hashing takes ~0.3 s)…
    const saving = updateProfile({
      actor: other,
      userId: other.id,
      changes: { bio: "Saved slowly", password: "a new password", currentPassword: "their password" },
      address: "203.0.113.42",
    });
    // …while the first ADMIN makes them a USER.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const demoted = await changeRole({ actor: admin, userId: other.id, role: "USER" });
    expect(demoted.ok).toBe(true);
    const saved = await saving;
    expect(saved.ok).toBe(true);
    const row = await db.selectFrom("users").select(["role", "bio"]).where("id", "=", other.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ role: "USER", bio: "Saved slowly" });
  });
});
