import { describe, expect, it } from "vitest";

import * as signinRoute from "~/routes/api.users.signin";
import { action as loginAction } from "~/routes/ReciPals.Account.Login";
import { db } from "~/server/db/connection.server";
import { addressKey } from "~/server/http/ip.server";
import { checkAdminSecret, LimitReachedError, THROTTLE, THROTTLE_MESSAGE } from "~/server/auth/limits.server";

import { call } from "../support/api";
import { dataOf, expectRedirect, formRequest, makeUser, settle } from "../support/app";

const login = (fields: Record<string, string>, address = "203.0.113.7") =>
  settle(() => loginAction({ request: formRequest("/ReciPals/Account/Login", fields), params: {}, context: { clientAddress: address } }));

describe("sign-in throttling", () => {
  it("refuses an account to the address that failed on it 5 times, right password included, with 429 and the message", async () => {
    const user = await makeUser();
    for (let i = 0; i < THROTTLE.perUsernameAndAddress; i++) {
      expect(dataOf(await login({ username: user.username, password: "wrong" })).status).toBe(401);
    }
    const blocked = dataOf<{ formError: string }>(await login({ username: user.username, password: user.password }));
    expect(blocked.status).toBe(429);
    expect(blocked.data.formError).toBe(THROTTLE_MESSAGE);
    // In any letter case; but the owner elsewhere is not locked out by someone failing on purpose.
    expect(dataOf(await login({ username: user.username.toUpperCase(), password: user.password })).status).toBe(429);
    expectRedirect(await login({ username: user.username, password: user.password }, "198.51.100.1"), "/ReciPals/Home");
  });

  it("an account failed on from many addresses refuses those addresses, while the owner's clean address still signs in", { timeout: 60_000 }, async () => {
    const user = await makeUser();
    for (let i = 0; i < THROTTLE.usernameUnderAttack; i++) {
      expect(dataOf(await login({ username: user.username, password: "wrong" }, `198.51.100.${50 + i}`)).status).toBe(401);
    }
    // Each of those addresses failed once only, yet may not try again while the account is under attack…
    expect(dataOf(await login({ username: user.username, password: user.password }, "198.51.100.50")).status).toBe(429);
    expect(dataOf(await login({ username: user.username, password: "another guess" }, "198.51.100.51")).status).toBe(429);
    // …and an address with no failure on it still may: the right password signs in.
    expectRedirect(await login({ username: user.username, password: user.password }, "192.0.2.200"), "/ReciPals/Home");
  });

  it("lets the username in again once the window has passed", async () => {
    const user = await makeUser();
    for (let i = 0; i < THROTTLE.perUsernameAndAddress; i++) await login({ username: user.username, password: "wrong" });
    await db.updateTable("sign_in_failures").set((eb) => ({ at: eb("at", "-", THROTTLE.windowMs) })).execute();
    expectRedirect(await login({ username: user.username, password: user.password }), "/ReciPals/Home");
  });

  it("refuses an address after 20 failures across usernames, but never slows other people", async () => {
    const victim = await makeUser();
    const bystander = await makeUser();
    for (let i = 0; i < THROTTLE.perAddress; i++) await login({ username: `guess_${i}`, password: "x" }, "192.0.2.50");
    expect(dataOf(await login({ username: victim.username, password: victim.password }, "192.0.2.50")).status).toBe(429);
    expectRedirect(await login({ username: bystander.username, password: bystander.password }, "192.0.2.99"), "/ReciPals/Home");
    expectRedirect(await login({ username: victim.username, password: victim.password }, "192.0.2.98"), "/ReciPals/Home");
  });

  it("forgets a username's failures after a successful sign-in", async () => {
    const user = await makeUser();
    for (let i = 0; i < THROTTLE.perUsernameAndAddress - 1; i++) await login({ username: user.username, password: "wrong" });
    expectRedirect(await login({ username: user.username, password: user.password }), "/ReciPals/Home");
    for (let i = 0; i < THROTTLE.perUsernameAndAddress - 1; i++) await login({ username: user.username, password: "wrong" });
    expectRedirect(await login({ username: user.username, password: user.password }), "/ReciPals/Home");
  });

  it("does not count refused empty forms as failures", async () => {
    const user = await makeUser();
    for (let i = 0; i < 10; i++) expect(dataOf(await login({ username: user.username, password: "" })).status).toBe(400);
    expectRedirect(await login({ username: user.username, password: user.password }), "/ReciPals/Home");
  });
});

describe("sign-in throttling under parallel attempts", () => {
  it("40 wrong passwords at once for one account from one address: exactly 5 are checked, the rest get 429", async () => {
    const user = await makeUser();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => login({ username: user.username, password: `wrong-${i}` }, "198.51.100.7")));
    const statuses = answers.map((answer) => dataOf(answer).status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(THROTTLE.perUsernameAndAddress);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40 - THROTTLE.perUsernameAndAddress);
    // And the right password is refused too, from there, until the window has passed.
    expect(dataOf(await login({ username: user.username, password: user.password }, "198.51.100.7")).status).toBe(429);
  });

  it("the per-address limit holds in parallel too: 40 guesses from one address at 40 usernames, 20 checked", async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => login({ username: `parallel_guess_${i}`, password: "x" }, "192.0.2.77")));
    const statuses = answers.map((answer) => dataOf(answer).status);
    expect(statuses.filter((status) => status === 404)).toHaveLength(THROTTLE.perAddress);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40 - THROTTLE.perAddress);
  });

  it("POST /api/users/signin holds the same limit in parallel", async () => {
    const user = await makeUser();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(signinRoute, "POST", "/api/users/signin", { body: { username: user.username, password: `nope-${i}` }, context: { clientAddress: "203.0.113.77" } }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(THROTTLE.perUsernameAndAddress);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(30 - THROTTLE.perUsernameAndAddress);
  });

  it("the admin secret holds the same limit in parallel", async () => {
    const user = await makeUser();
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => checkAdminSecret({ typed: `guess-${i}`, secret: "the-secret", userId: user.id, address: "203.0.113.78" })),
    );
    expect(results.filter((result) => result.status === "fulfilled" && result.value === false)).toHaveLength(THROTTLE.perUsernameAndAddress);
    expect(results.filter((result) => result.status === "rejected" && result.reason instanceof LimitReachedError)).toHaveLength(30 - THROTTLE.perUsernameAndAddress);
    await expect(checkAdminSecret({ typed: "the-secret", secret: "the-secret", userId: user.id, address: "203.0.113.78" })).rejects.toBeInstanceOf(LimitReachedError);
  });

  it("a success or a form refused before any check does not stay counted", async () => {
    const user = await makeUser();
    for (let i = 0; i < THROTTLE.perUsernameAndAddress * 2; i++) expectRedirect(await login({ username: user.username, password: user.password }), "/ReciPals/Home");
    const rows = await db.selectFrom("sign_in_failures").select("id").where("username_key", "=", user.username.toLowerCase()).execute();
    expect(rows).toHaveLength(0);
  });
});

describe("per-address limits group IPv6 clients by /64", () => {
  it("20 failures spread over one /64 block the whole /64, not its neighbour", async () => {
    const user = await makeUser();
    for (let i = 0; i < THROTTLE.perAddress; i++) {
      await login({ username: `v6_guess_${i}`, password: "x" }, `2001:db8:aa:bb:${(i + 1).toString(16)}::${i + 7}`);
    }
    expect(dataOf(await login({ username: user.username, password: user.password }, "2001:db8:aa:bb:ffff:ffff:ffff:1")).status).toBe(429);
    expectRedirect(await login({ username: user.username, password: user.password }, "2001:db8:aa:bc::1"), "/ReciPals/Home");
  });

  it.each([
    ["203.0.113.9", "203.0.113.9"],
    ["::ffff:203.0.113.9", "203.0.113.9"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["2001:DB8:0:0:1:2:3:4", "2001:db8:0:0::/64"],
    ["[2001:db8:1:2::5]", "2001:db8:1:2::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
  ])("%s counts as %s", (address, key) => expect(addressKey(address)).toBe(key));
});
