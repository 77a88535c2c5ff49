import { describe, expect, it } from "vitest";

import { action as loginAction, loader as loginLoader } from "~/routes/ReciPals.Account.Login";
import { action as logoutAction } from "~/routes/ReciPals.Account.Logout";
import { loader as rootLoader } from "~/root";
import { db } from "~/server/db/connection.server";
import { getUser, sessionCookie } from "~/server/auth/session.server";

import {
  cookiesFrom,
  countRows,
  dataOf,
  expectRedirect,
  formRequest,
  getRequest,
  makeUser,
  routeArgs,
  settle,
  signedInCookie,
} from "../support/app";

const LOGIN = "/ReciPals/Account/Login";

async function login(fields: Record<string, string>, cookie?: string) {
  return settle(() => loginAction(routeArgs(formRequest(LOGIN, fields, cookie))));
}

describe("login", () => {
  it("signs in and goes to Home with a session cookie holding only a random id", async () => {
    const user = await makeUser();
    const result = await login({ username: user.username, password: user.password });
    const response = expectRedirect(result, "/ReciPals/Home");
    const cookie = cookiesFrom(response);
    expect(cookie).toMatch(/^recipals_session=/);
    expect(cookie).not.toContain(user.id);
    const signedIn = await getUser(getRequest("/", cookie));
    expect(signedIn).toMatchObject({ id: user.id, username: user.username, role: "USER" });
    expect(response.headers.get("Set-Cookie")).toMatch(/HttpOnly/i);
    expect(response.headers.get("Set-Cookie")).toMatch(/SameSite=Lax/i);
  });

  it("matches the username without regard to case", async () => {
    const user = await makeUser();
    const result = await login({ username: user.username.toUpperCase(), password: user.password });
    expectRedirect(result, "/ReciPals/Home");
  });

  it("follows a same-site redirectTo and ignores a foreign one", async () => {
    const user = await makeUser();
    expectRedirect(
      await login({ username: user.username, password: user.password, redirectTo: "/ReciPals/Saved" }),
      "/ReciPals/Saved",
    );
    expectRedirect(
      await login({ username: user.username, password: user.password, redirectTo: "//evil.example/x" }),
      "/ReciPals/Home",
    );
  });

  it("answers a wrong password with 401 and the product's message, keeping the username", async () => {
    const user = await makeUser();
    const before = await countRows("sessions");
    const { status, data } = dataOf<{ formError: string; fields: Record<string, string> }>(
      await login({ username: user.username, password: "wrong" }),
    );
    expect(status).toBe(401);
    expect(data.formError).toBe("Invalid username or password. Please try again.");
    expect(data.fields).toEqual({ username: user.username });
    expect(await countRows("sessions")).toBe(before);
  });

  it("answers an unknown user with 404 and the product's message", async () => {
    const { status, data } = dataOf<{ formError: string }>(await login({ username: "nobody_here", password: "x" }));
    expect(status).toBe(404);
    expect(data.formError).toBe("User not found. Please check your username.");
  });

  it("refuses empty fields and over-long input with a message", async () => {
    const empty = dataOf<{ formError: string }>(await login({ username: "", password: "" }));
    expect(empty.status).toBe(400);
    expect(empty.data.formError).toBe("Please fill in all fields");
    const long = dataOf<{ formError: string }>(await login({ username: "a".repeat(31), password: "x" }));
    expect(long.status).toBe(400);
    expect(long.data.formError).toBe("Username must be at most 30 characters.");
    const longPassword = dataOf<{ formError: string }>(await login({ username: "someone", password: "p".repeat(201) }));
    expect(longPassword.data.formError).toBe("Password must be at most 200 characters.");
  });

  it("rotates the session on sign-in: the old session id stops working", async () => {
    const user = await makeUser();
    const oldCookie = await signedInCookie(user.id);
    const response = expectRedirect(
      await login({ username: user.username, password: user.password }, oldCookie),
      "/ReciPals/Home",
    );
    expect(await getUser(getRequest("/", oldCookie))).toBeNull();
    expect(await getUser(getRequest("/", cookiesFrom(response)))).not.toBeNull();
  });

  it("sends a signed-in user away from the login page", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    expectRedirect(await settle(() => loginLoader(routeArgs(getRequest(LOGIN, cookie)))), "/ReciPals/Home");
    expect(await settle(() => loginLoader(routeArgs(getRequest(LOGIN))))).toBeNull();
  });
});

describe("sessions", () => {
  it("treats a tampered, unknown or expired session cookie as signed out", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const tampered = cookie.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    expect(await getUser(getRequest("/", tampered))).toBeNull();
    const forged = `recipals_session=${await sessionCookie.serialize("not-a-session").then((c) => c.split(";")[0]!.split("=")[1])}`;
    expect(await getUser(getRequest("/", forged))).toBeNull();
    await db.updateTable("sessions").set({ expires_at: Date.now() - 1 }).where("user_id", "=", user.id).execute();
    expect(await getUser(getRequest("/", cookie))).toBeNull();
  });

  it("gives the root loader the user without any password field", async () => {
    const user = await makeUser();
    const result = await rootLoader(routeArgs(getRequest("/ReciPals/Home", await signedInCookie(user.id))));
    expect(result.user).toEqual({
      id: user.id,
      username: user.username,
      name: user.name,
      role: "USER",
      profile: "/images/profile.png",
    });
    expect(JSON.stringify(result)).not.toMatch(/password|scrypt/i);
    const anonymous = await rootLoader(routeArgs(getRequest("/ReciPals/Home")));
    expect(anonymous.user).toBeNull();
  });

  it("signs out with a POST that deletes the session row", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const response = expectRedirect(
      await settle(() => logoutAction(routeArgs(formRequest("/ReciPals/Account/Logout", {}, cookie)))),
      "/ReciPals/Home",
    );
    expect(response.headers.get("Set-Cookie")).toMatch(/Max-Age=0/i);
    expect(await getUser(getRequest("/", cookie))).toBeNull();
    const rows = await db.selectFrom("sessions").select("id").where("user_id", "=", user.id).execute();
    expect(rows).toHaveLength(0);
  });

  it("ends a user's sessions when the user is deleted", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    await db.deleteFrom("users").where("id", "=", user.id).execute();
    expect(await getUser(getRequest("/", cookie))).toBeNull();
    const rows = await db.selectFrom("sessions").select("id").where("user_id", "=", user.id).execute();
    expect(rows).toHaveLength(0);
  });
});
