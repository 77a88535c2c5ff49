import { describe, expect, it } from "vitest";

import { action as loginAction } from "~/routes/ReciPals.Account.Login";
import { db } from "~/server/db.server";
import { THROTTLE, THROTTLE_MESSAGE } from "~/server/throttle.server";

import { dataOf, expectRedirect, formRequest, makeUser, settle } from "./helpers";

const login = (fields: Record<string, string>, address = "203.0.113.7") =>
  settle(() => loginAction({ request: formRequest("/ReciPals/Account/Login", fields), params: {}, context: { clientAddress: address } }));

describe("sign-in throttling", () => {
  it("refuses a username after 5 failures, right password included, with 429 and the message", async () => {
    const user = await makeUser();
    for (let i = 0; i < THROTTLE.perUsername; i++) {
      expect(dataOf(await login({ username: user.username, password: "wrong" })).status).toBe(401);
    }
    const blocked = dataOf<{ formError: string }>(await login({ username: user.username, password: user.password }));
    expect(blocked.status).toBe(429);
    expect(blocked.data.formError).toBe(THROTTLE_MESSAGE);
    // The username is blocked from any address, in any letter case.
    expect(dataOf(await login({ username: user.username.toUpperCase(), password: user.password }, "198.51.100.1")).status).toBe(429);
  });

  it("lets the username in again once the window has passed", async () => {
    const user = await makeUser();
    for (let i = 0; i < THROTTLE.perUsername; i++) await login({ username: user.username, password: "wrong" });
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
    for (let i = 0; i < THROTTLE.perUsername - 1; i++) await login({ username: user.username, password: "wrong" });
    expectRedirect(await login({ username: user.username, password: user.password }), "/ReciPals/Home");
    for (let i = 0; i < THROTTLE.perUsername - 1; i++) await login({ username: user.username, password: "wrong" });
    expectRedirect(await login({ username: user.username, password: user.password }), "/ReciPals/Home");
  });

  it("does not count refused empty forms as failures", async () => {
    const user = await makeUser();
    for (let i = 0; i < 10; i++) expect(dataOf(await login({ username: user.username, password: "" })).status).toBe(400);
    expectRedirect(await login({ username: user.username, password: user.password }), "/ReciPals/Home");
  });
});
