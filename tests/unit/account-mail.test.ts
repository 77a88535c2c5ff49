import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import * as forgotRoute from "~/routes/ReciPals.Account.Forgot";
import * as resetRoute from "~/routes/ReciPals.Account.Reset.$token";
import * as verifyRoute from "~/routes/ReciPals.Account.Verify.$token";
import { getUserId } from "~/server/auth/session.server";
import { verifyPassword } from "~/server/auth/password.server";
import { db } from "~/server/db/connection.server";
import { ACCOUNT_MAIL_MESSAGES, changeEmail, FORGOT_REQUEST_LIMIT, sendEmailConfirmation, sendPasswordResetFor } from "~/server/services/account-mail-service.server";

import { cookiesFrom, dataOf, expectRedirect, formRequest, getRequest, makeUser, settle, signedInCookie, uniqueUsername } from "../support/app";
import { linkIn, startMailServer, type TestMailServer } from "../support/mail-server";
import { useSetting } from "../support/settings";

// Getting back into an account by email (docs/rules.md#account-email), against a real SMTP server
// the app talks to over a local port: the test reads each mail it received and follows its link.

const PUBLIC_URL = "https://recipes.example";
let mail: TestMailServer;
const restore: Array<() => void> = [];

beforeAll(async () => {
  mail = await startMailServer();
  restore.push(useSetting("SMTP_URL", mail.url), useSetting("PUBLIC_URL", PUBLIC_URL), useSetting("SMTP_TIMEOUT_SECONDS", 1));
});
afterAll(async () => {
  for (const undo of restore.reverse()) undo();
  await mail.stop();
});
beforeEach(() => {
  mail.refuse = false;
  mail.stall = false;
});

const address = () => `${uniqueUsername()}@mail.example`;

/** A person with a confirmed address (as if its link had been followed). */
async function personWithAddress(password = "old password") {
  const user = await makeUser({ password });
  const email = address();
  await db.updateTable("users").set({ email, email_confirmed_at: new Date().toISOString() }).where("id", "=", user.id).execute();
  return { ...user, email };
}

async function forgot(login: string, { host, from }: { host?: string; from?: string } = {}) {
  const request = formRequest("/ReciPals/Account/Forgot", { login });
  const headers = new Headers(request.headers);
  if (host) headers.set("Host", host);
  const forged = new Request(host ? `http://${host}/ReciPals/Account/Forgot` : request.url, { method: "POST", body: await request.text(), headers });
  const result = await settle(() => forgotRoute.action({ request: forged, params: {}, context: from ? { clientAddress: from } : {} }));
  return result;
}

const resetPath = (link: string) => new URL(link).pathname;
const tokenOf = (link: string) => decodeURIComponent(resetPath(link).split("/").pop()!);

describe("forgot password", () => {
  it("mails a link on PUBLIC_URL; the new password works, the old one and every old session do not, and a mail says so", async () => {
    const person = await personWithAddress();
    const oldSession = await signedInCookie(person.id);
    const answer = dataOf<{ sent: string }>(await forgot(person.username));
    expect(answer.status).toBe(200);
    expect(answer.data.sent).toBe(ACCOUNT_MAIL_MESSAGES.forgotAnswer);

    const message = await mail.waitFor(person.email, /Choose a new password/);
    expect(message.subject).toContain("ReciPals");
    expect(message.text).toContain("ReciPals");
    expect(message.html).toContain("<a href=");
    const link = linkIn(message, `${PUBLIC_URL}/ReciPals/Account/Reset/`);
    const token = tokenOf(link);
    // Only a hash of the token is stored.
    const stored = await db.selectFrom("account_tokens").selectAll().where("user_id", "=", person.id).execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token);

    const page = dataOf<{ usable: boolean }>(await settle(() => resetRoute.loader({ request: getRequest(resetPath(link)), params: { token }, context: {} })));
    expect(page.data.usable).toBe(true);
    const saved = await settle(() => resetRoute.action({ request: formRequest(resetPath(link), { password: "new password", verifyPassword: "new password" }), params: { token }, context: {} }));
    const response = expectRedirect(saved, `/ReciPals/Account/Profile/${encodeURIComponent(person.id)}?notice=password-changed`);
    // Signed in here; the old session is gone.
    const newCookie = cookiesFrom(response);
    expect(await getUserId(getRequest("/ReciPals/Home", newCookie))).toBe(person.id);
    expect(await getUserId(getRequest("/ReciPals/Home", oldSession))).toBeNull();
    const row = await db.selectFrom("users").select("password_hash").where("id", "=", person.id).executeTakeFirstOrThrow();
    expect(await verifyPassword("new password", row.password_hash)).toBe(true);
    expect(await verifyPassword("old password", row.password_hash)).toBe(false);
    await mail.waitFor(person.email, /password was changed/);

    // Used once.
    const again = dataOf<{ formError: string }>(await settle(() => resetRoute.action({ request: formRequest(resetPath(link), { password: "third one", verifyPassword: "third one" }), params: { token }, context: {} })));
    expect(again.status).toBe(400);
    expect(again.data.formError).toBe(ACCOUNT_MAIL_MESSAGES.linkInvalid);
  });

  it("keeps the link on PUBLIC_URL whatever Host the request names", async () => {
    const person = await personWithAddress();
    await forgot(person.email.toUpperCase(), { host: "attacker.example" });
    const message = await mail.waitFor(person.email, /Choose a new password/);
    expect(message.text).toContain(`${PUBLIC_URL}/ReciPals/Account/Reset/`);
    expect(message.text).not.toContain("attacker.example");
    expect(message.html).not.toContain("attacker.example");
  });

  it("answers the same, in the same time, for a known account, an unknown name and an unconfirmed address", async () => {
    const known = await personWithAddress();
    const unconfirmed = await makeUser();
    await db.updateTable("users").set({ email: address() }).where("id", "=", unconfirmed.id).execute();
    const cases = [known.username, `nobody-${uniqueUsername()}`, unconfirmed.username];
    const answers = new Set<string>();
    const times: number[][] = cases.map(() => []);
    for (let round = 0; round < 10; round++) {
      // A different order each round, so the mail sent after one answer does not always slow the same next one.
      const order = cases.map((_, index) => index).sort(() => Math.random() - 0.5);
      for (const index of order) {
        const started = performance.now();
        const result = dataOf<{ sent: string }>(await forgot(cases[index]!));
        times[index]!.push(performance.now() - started);
        answers.add(`${result.status} ${result.data.sent}`);
      }
    }
    expect([...answers]).toEqual([`200 ${ACCOUNT_MAIL_MESSAGES.forgotAnswer}`]);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const medians = times.map(median);
    // Within noise (a few milliseconds on a shared machine).
    expect(Math.max(...medians) - Math.min(...medians)).toBeLessThan(Math.max(12, Math.min(...medians) * 0.5));
    // Only the account with a confirmed address got mail (at most three an hour).
    await mail.waitFor(known.email, /Choose a new password/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mail.to(known.email).length).toBe(3);
  });

  it("answers without waiting for the mail: an SMTP server that never answers does not hold the answer up", async () => {
    const person = await personWithAddress();
    mail.stall = true;
    const started = performance.now();
    const answer = dataOf<{ sent: string }>(await forgot(person.username));
    const took = performance.now() - started;
    expect(answer.data.sent).toBe(ACCOUNT_MAIL_MESSAGES.forgotAnswer);
    // The SMTP timeout is a second here: an answer that waited for the mail would take longer.
    expect(took).toBeLessThan(500);
    // The mail that could not go is logged, and its link removed.
    await expect.poll(() => vi.mocked(console.error).mock.calls.length, { timeout: 5_000 }).toBeGreaterThan(0);
    vi.mocked(console.error).mockClear();
    mail.stall = false;
    expect(await db.selectFrom("account_tokens").select("token_hash").where("user_id", "=", person.id).execute()).toEqual([]);
  });

  it("refuses a forged token, an expired one, one for another purpose, one made before the password changed another way, and mismatched passwords", async () => {
    const person = await personWithAddress();
    const tryToken = async (token: string, password = "brand new", verify = password) =>
      dataOf<{ formError: string | null; fieldErrors: Record<string, string> }>(
        await settle(() => resetRoute.action({ request: formRequest(`/ReciPals/Account/Reset/${token}`, { password, verifyPassword: verify }), params: { token }, context: {} })),
      );
    expect((await tryToken("forged-token-forged-token-forged-token")).data.formError).toBe(ACCOUNT_MAIL_MESSAGES.linkInvalid);

    await forgot(person.username);
    const token = tokenOf(linkIn(await mail.waitFor(person.email, /Choose a new password/), `${PUBLIC_URL}/`));
    const before = await db.selectFrom("users").select("password_hash").where("id", "=", person.id).executeTakeFirstOrThrow();
    const mismatched = await tryToken(token, "brand new", "brand old");
    expect(mismatched.status).toBe(400);
    expect(mismatched.data.fieldErrors.verifyPassword).toBe("Passwords don't match");
    // Nothing changed, and the link still works.
    expect((await db.selectFrom("users").select("password_hash").where("id", "=", person.id).executeTakeFirstOrThrow()).password_hash).toBe(before.password_hash);
    expect(dataOf<{ usable: boolean }>(await settle(() => resetRoute.loader({ request: getRequest("/"), params: { token }, context: {} }))).data.usable).toBe(true);
    // A reset link does not confirm an address.
    expect(dataOf<{ email: string | null }>(await settle(() => verifyRoute.loader({ request: getRequest("/"), params: { token }, context: {} }))).data.email).toBeNull();

    // The password changed another way: the link is void.
    await db.updateTable("users").set({ password_hash: `${before.password_hash}x` }).where("id", "=", person.id).execute();
    expect((await tryToken(token)).data.formError).toBe(ACCOUNT_MAIL_MESSAGES.linkInvalid);
    await db.updateTable("users").set({ password_hash: before.password_hash }).where("id", "=", person.id).execute();
    // Past its hour.
    await db.updateTable("account_tokens").set({ expires_at: Date.now() - 1 }).where("user_id", "=", person.id).execute();
    expect((await tryToken(token)).data.formError).toBe(ACCOUNT_MAIL_MESSAGES.linkInvalid);
  });

  it("counts requests from one network address: the 21st in ten minutes is refused with 429, whatever account it names", async () => {
    const from = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
    const statuses: number[] = [];
    for (let i = 0; i < FORGOT_REQUEST_LIMIT.limit + 5; i++) statuses.push(dataOf(await forgot(`nobody${i}-${uniqueUsername()}`, { from })).status);
    expect(statuses.slice(0, FORGOT_REQUEST_LIMIT.limit).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(FORGOT_REQUEST_LIMIT.limit).every((status) => status === 429)).toBe(true);
  });
});

describe("the address on the account", () => {
  it("a new address gets 'Confirm your email'; the link's button confirms it; the old confirmed address is told of a change", async () => {
    const user = await makeUser();
    const first = address();
    const set = await changeEmail({ userId: user.id, email: first });
    expect(set).toMatchObject({ ok: true, value: { email: first, mailed: true } });
    const link = linkIn(await mail.waitFor(first, /Confirm your email/), `${PUBLIC_URL}/ReciPals/Account/Verify/`);
    const token = tokenOf(link);
    const page = dataOf<{ email: string | null }>(await settle(() => verifyRoute.loader({ request: getRequest(new URL(link).pathname), params: { token }, context: {} })));
    expect(page.data.email).toBe(first);
    // Opening the link confirms nothing; the button does.
    expect((await db.selectFrom("users").select("email_confirmed_at").where("id", "=", user.id).executeTakeFirstOrThrow()).email_confirmed_at).toBeNull();
    const cookie = await signedInCookie(user.id);
    expectRedirect(await settle(() => verifyRoute.action({ request: formRequest(new URL(link).pathname, {}, cookie), params: { token }, context: {} })), `/ReciPals/Account/Profile/${encodeURIComponent(user.id)}/Edit?notice=email-confirmed`);
    expect((await db.selectFrom("users").select("email_confirmed_at").where("id", "=", user.id).executeTakeFirstOrThrow()).email_confirmed_at).not.toBeNull();

    // A second account cannot take the address, in any letter case.
    const other = await makeUser();
    expect(await changeEmail({ userId: other.id, email: first.toUpperCase() })).toMatchObject({ ok: false, status: 409, message: ACCOUNT_MAIL_MESSAGES.emailTaken });

    const second = address();
    await changeEmail({ userId: user.id, email: second });
    const told = await mail.waitFor(first, /email address was changed/);
    expect(told.text).toContain(second);
    await mail.waitFor(second, /Confirm your email/);
    // The old link no longer confirms anything.
    expect(dataOf<{ email: string | null }>(await settle(() => verifyRoute.loader({ request: getRequest("/"), params: { token }, context: {} }))).data.email).toBeNull();
    expect(await changeEmail({ userId: user.id, email: "not an address" })).toMatchObject({ ok: false, status: 400, message: ACCOUNT_MAIL_MESSAGES.emailInvalid });
  });

  it("an SMTP server that refuses or times out: the person is told, and no link is left behind", async () => {
    const user = await makeUser();
    const email = address();
    await db.updateTable("users").set({ email }).where("id", "=", user.id).execute();
    for (const fault of ["refuse", "stall"] as const) {
      mail[fault] = true;
      const sent = await sendEmailConfirmation(user.id);
      mail[fault] = false;
      expect(sent).toMatchObject({ ok: false, status: 503, message: "We could not send the mail; try again later." });
      expect(await db.selectFrom("account_tokens").select("token_hash").where("user_id", "=", user.id).execute()).toEqual([]);
    }
    // Each failure is logged for the operator (and only that).
    const logged = vi.mocked(console.error).mock.calls.map((call) => JSON.parse(String(call[0])) as { msg: string; err: { message: string } });
    expect(logged).toHaveLength(2);
    expect(logged.every((line) => line.msg === "mail not sent" && line.err.message.length > 0)).toBe(true);
    // The log says what failed, not to whom (an address is the person's).
    expect(logged.some((line) => JSON.stringify(line).includes(email))).toBe(false);
    vi.mocked(console.error).mockClear();
    // Working again: it goes.
    expect(await sendEmailConfirmation(user.id)).toMatchObject({ ok: true });
  });

  it("an admin's 'Send password reset' needs a confirmed address", async () => {
    const user = await makeUser();
    expect(await sendPasswordResetFor(user.id)).toMatchObject({ ok: false, status: 409, message: ACCOUNT_MAIL_MESSAGES.needsConfirmedAddress });
    const person = await personWithAddress();
    expect(await sendPasswordResetFor(person.id)).toMatchObject({ ok: true, value: { email: person.email } });
    await mail.waitFor(person.email, /Choose a new password/);
  });
});

describe("without PUBLIC_URL", () => {
  it("sends no mail with links", async () => {
    const undo = useSetting("PUBLIC_URL", undefined);
    try {
      const user = await makeUser();
      await db.updateTable("users").set({ email: address() }).where("id", "=", user.id).execute();
      expect(await sendEmailConfirmation(user.id)).toMatchObject({ ok: false, status: 503 });
    } finally {
      undo();
    }
  });
});



describe("email on the sign-up and profile pages", () => {
  it("a sign-up with an address gets 'Confirm your email'; a taken or malformed address is refused at step one", async () => {
    const signupRoute = await import("~/routes/ReciPals.Account.Signup");
    const tagsRoute = await import("~/routes/ReciPals.Account.SignupTags");
    const email = address();
    const username = uniqueUsername("mailer");
    const step = (fields: Record<string, string>) =>
      settle(() => signupRoute.action({ request: formRequest("/ReciPals/Account/Signup", { name: "Mail Cook", username, password: "pw one", verifyPassword: "pw one", ...fields }), params: {}, context: {} }));
    const malformed = dataOf<{ fieldErrors: Record<string, string>; fields: Record<string, string> }>(await step({ email: "no-at-sign" }));
    expect(malformed.status).toBe(400);
    expect(malformed.data.fieldErrors.email).toBe(ACCOUNT_MAIL_MESSAGES.emailInvalid);
    expect(malformed.data.fields.email).toBe("no-at-sign");
    const holder = await personWithAddress();
    expect(dataOf<{ fieldErrors: Record<string, string> }>(await step({ email: holder.email.toUpperCase() })).data.fieldErrors.email).toBe(ACCOUNT_MAIL_MESSAGES.emailTaken);

    const first = expectRedirect(await step({ email }), "/ReciPals/Account/SignupTags");
    const done = expectRedirect(await settle(() => tagsRoute.action({ request: formRequest("/ReciPals/Account/SignupTags", {}, cookiesFrom(first)), params: {}, context: {} })), /\/ReciPals\/Account\/Profile\//);
    const userId = decodeURIComponent(new URL(done.headers.get("Location")!, "http://x").pathname.split("/").pop()!);
    const link = linkIn(await mail.waitFor(email, /Confirm your email/), `${PUBLIC_URL}/ReciPals/Account/Verify/`);
    expect((await db.selectFrom("users").select(["email", "email_confirmed_at"]).where("id", "=", userId).executeTakeFirstOrThrow())).toEqual({ email, email_confirmed_at: null });
    const token = tokenOf(link);
    expectRedirect(await settle(() => verifyRoute.action({ request: formRequest(new URL(link).pathname, {}), params: { token }, context: {} })), "/ReciPals/Account/Login?notice=email-confirmed");
    expect((await db.selectFrom("users").select("email_confirmed_at").where("id", "=", userId).executeTakeFirstOrThrow()).email_confirmed_at).not.toBeNull();
  });

  it("the profile editor changes the address only with the current password; 'Send again' mails the link again", async () => {
    const editRoute = await import("~/routes/ReciPals.Account.Profile.$uid_.Edit");
    const user = await makeUser({ password: "my password" });
    const cookie = await signedInCookie(user.id);
    const edit = (fields: Record<string, string>) => {
      const body = new FormData();
      for (const [name, value] of Object.entries({ name: user.name, username: user.username, password: "", role: "USER", bio: "", ...fields })) body.append(name, value);
      return settle(() => editRoute.action({ request: new Request(`http://localhost:4000/ReciPals/Account/Profile/${user.id}/Edit`, { method: "POST", body, headers: { Cookie: cookie } }), params: { uid: user.id }, context: {} }));
    };
    const email = address();
    const without = dataOf<{ fieldErrors: Record<string, string> }>(await edit({ email }));
    expect(without.status).toBe(400);
    expect(without.data.fieldErrors.currentPassword).toBe("Please enter your current password to change it.");
    const wrong = dataOf<{ fieldErrors: Record<string, string> }>(await edit({ email, currentPassword: "not it" }));
    expect(wrong.status).toBe(403);
    expect((await db.selectFrom("users").select("email").where("id", "=", user.id).executeTakeFirstOrThrow()).email).toBeNull();
    expectRedirect(await edit({ email, currentPassword: "my password" }), `/ReciPals/Account/Profile/${encodeURIComponent(user.id)}?notice=email-sent`);
    await mail.waitFor(email, /Confirm your email/);
    const loaded = (await settle(() => editRoute.loader({ request: getRequest(`/ReciPals/Account/Profile/${user.id}/Edit`, cookie), params: { uid: user.id }, context: {} }))) as { user: { email: string; emailConfirmed: boolean } };
    expect(loaded.user).toMatchObject({ email, emailConfirmed: false });

    expectRedirect(await edit({ intent: "send-confirmation" }), `/ReciPals/Account/Profile/${encodeURIComponent(user.id)}/Edit?notice=email-sent`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mail.to(email).filter((message) => /Confirm your email/.test(message.subject ?? "")).length).toBe(2);
  });
});

describe("the API", () => {
  it("password-reset answers 202 with the same words for any login; confirm sets the password and signs in; signup and PUT take an email; profile says emailConfirmed", async () => {
    const { call } = await import("../support/api");
    const resetRoute = (await import("~/routes/api.users.password-reset")) as never;
    const confirmRoute = (await import("~/routes/api.users.password-reset.confirm")) as never;
    const signupRoute = (await import("~/routes/api.users.signup")) as never;
    const profileRoute = (await import("~/routes/api.users.profile")) as never;
    const userRoute = (await import("~/routes/api.users.$id")) as never;

    const person = await personWithAddress("api password");
    const known = await call(resetRoute, "POST", "/api/users/password-reset", { body: { login: person.email } });
    const unknown = await call(resetRoute, "POST", "/api/users/password-reset", { body: { login: `nobody-${uniqueUsername()}` } });
    expect([known.status, unknown.status]).toEqual([202, 202]);
    expect(known.body).toEqual(unknown.body);
    const token = tokenOf(linkIn(await mail.waitFor(person.email, /Choose a new password/), `${PUBLIC_URL}/`));
    expect((await call(confirmRoute, "POST", "/api/users/password-reset/confirm", { body: { token: "forged-forged-forged-forged", password: "x y z" } })).status).toBe(400);
    const confirmed = await call(confirmRoute, "POST", "/api/users/password-reset/confirm", { body: { token, password: "api password 2" } });
    expect(confirmed.status).toBe(200);
    const cookie = cookiesFrom(new Response(null, { headers: confirmed.headers }));
    const own = await call(profileRoute, "GET", "/api/users/profile", { cookie });
    expect(own.body).toMatchObject({ _id: person.id, email: person.email, emailConfirmed: true });

    // Sign-up with an address: unconfirmed, and its link is mailed.
    const email = address();
    const made = await call(signupRoute, "POST", "/api/users/signup", { body: { name: "Api Cook", username: uniqueUsername("api"), password: "pw pw", email } });
    expect(made.status).toBe(201);
    const madeCookie = cookiesFrom(new Response(null, { headers: made.headers }));
    expect((await call(profileRoute, "GET", "/api/users/profile", { cookie: madeCookie })).body).toMatchObject({ email, emailConfirmed: false });
    await mail.waitFor(email, /Confirm your email/);
    expect((await call(signupRoute, "POST", "/api/users/signup", { body: { name: "Api Cook", username: uniqueUsername("api"), password: "pw pw", email: email.toUpperCase() } })).status).toBe(409);

    // PUT: one's own address needs the current password.
    const newAddress = address();
    const refused = await call(userRoute, "PUT", `/api/users/${person.id}`, { params: { id: person.id }, cookie, body: { email: newAddress } });
    expect(refused.status).toBe(400);
    expect((await call(userRoute, "PUT", `/api/users/${person.id}`, { params: { id: person.id }, cookie, body: { email: newAddress, currentPassword: "api password 2" } })).status).toBe(200);
    expect((await call(profileRoute, "GET", "/api/users/profile", { cookie })).body).toMatchObject({ email: newAddress, emailConfirmed: false });
    await mail.waitFor(newAddress, /Confirm your email/);
  });
});
