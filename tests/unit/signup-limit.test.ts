import { afterEach, describe, expect, it } from "vitest";

import { action as signupAction } from "~/routes/ReciPals.Account.Signup";
import * as signupRoute from "~/routes/api.users.signup";
import { db } from "~/server/db/connection.server";
import { env } from "~/server/env.server";
import { USER_MESSAGES } from "~/server/services/users-service.server";

import { call } from "../support/api";
import { countRows, dataOf, formRequest, settle, uniqueUsername } from "../support/app";

// The sign-up limit (docs/rules.md#sign-up-limit): SIGNUP_LIMIT sign-ups per address (IPv6 by
// its /64) per hour, the page's first step and the API counted together, before any hash or
// picture work; invalid sign-ups and taken usernames are not counted.

const details = (overrides: Record<string, string> = {}) => ({
  name: "Flood Cook",
  username: uniqueUsername("flood"),
  password: "s3cret pass",
  verifyPassword: "s3cret pass",
  ...overrides,
});

const page = (address: string, fields = details()) =>
  settle(() => signupAction({ request: formRequest("/ReciPals/Account/Signup", fields), params: {}, context: { clientAddress: address } }));

const api = (address: string, body: Record<string, unknown> = { name: "Flood Cook", username: uniqueUsername("api"), password: "s3cret pass" }) =>
  call(signupRoute, "POST", "/api/users/signup", { body, context: { clientAddress: address } });

const statusOf = (answer: unknown) => (answer instanceof Response ? answer.status : dataOf(answer).status);

let next = 0;
/** An address no other test uses (each test counts alone). */
const freshAddress = () => `198.51.100.${++next}`;

describe("sign-up limit", () => {
  // Each account costs a real password hash (~0.3 s): past the first test a smaller limit says the same.
  const defaultLimit = env.SIGNUP_LIMIT;
  afterEach(() => {
    env.SIGNUP_LIMIT = defaultLimit;
  });

  it(`12 parallel API sign-ups from one address: ${10} accounts, the rest 429 with the message and Retry-After, nothing else written`, async () => {
    expect(env.SIGNUP_LIMIT).toBe(10);
    const address = freshAddress();
    const before = await countRows("users");
    const answers = await Promise.all(Array.from({ length: 12 }, () => api(address)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(10).fill(201), 429, 429]);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.body).toEqual({ message: USER_MESSAGES.tooManySignups });
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(3000);
    expect(await countRows("users")).toBe(before + 10);
  });

  it("the page's first step and the API count together; the refused page keeps name and username", async () => {
    env.SIGNUP_LIMIT = 3;
    const address = freshAddress();
    for (let i = 0; i < 2; i++) expect((await api(address)).status).toBe(201);
    expect(statusOf(await page(address))).toBe(302);
    const refused = await page(address, details({ username: "kept_name_1" }));
    const { status, data } = dataOf<{ formError: string; fields: Record<string, string> }>(refused);
    expect(status).toBe(429);
    expect(data.formError).toBe(USER_MESSAGES.tooManySignups);
    expect(data.fields).toEqual({ name: "Flood Cook", username: "kept_name_1", email: "" });
    expect((await api(address)).status).toBe(429);
  });

  it("invalid sign-ups and taken usernames are refused before they count (and before any hash)", async () => {
    env.SIGNUP_LIMIT = 2;
    const address = freshAddress();
    const taken = uniqueUsername("taken");
    expect((await api(address, { name: "A", username: taken, password: "s3cret pass" })).status).toBe(201);
    for (let i = 0; i < 15; i++) {
      expect(statusOf(await page(address, details({ verifyPassword: "different" })))).toBe(400);
      expect((await api(address, { name: "A", username: taken, password: "s3cret pass" })).status).toBe(409);
      expect((await api(address, { name: "", username: uniqueUsername("x"), password: "s3cret pass" })).status).toBe(400);
    }
    expect((await api(address)).status).toBe(201);
  });

  it("an IPv6 household counts as one (/64); another /64 or address is not affected", async () => {
    env.SIGNUP_LIMIT = 3;
    for (let i = 0; i < 3; i++) expect((await api(`2001:db8:1:2::${i + 1}`)).status).toBe(201);
    expect((await api("2001:db8:1:2:ffff:ffff:ffff:ffff")).status).toBe(429);
    expect((await api("2001:db8:1:3::1")).status).toBe(201);
    expect((await api(freshAddress())).status).toBe(201);
  });

  it("a picture sent with a refused sign-up is never decoded or stored", async () => {
    env.SIGNUP_LIMIT = 1;
    const address = freshAddress();
    expect((await api(address)).status).toBe(201);
    const files = await db.selectFrom("users").select("profile").where("profile", "like", "/uploads/%").execute();
    const refused = await api(address, { name: "Pic", username: uniqueUsername("pic"), password: "s3cret pass", profile: "data:image/png;base64,not-a-picture" });
    // Refused for the limit, not for the picture: the picture was never looked at.
    expect(refused.status).toBe(429);
    expect(await db.selectFrom("users").select("profile").where("profile", "like", "/uploads/%").execute()).toEqual(files);
  });
});
