import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import * as usersRoute from "~/routes/api.users";
import * as userRoute from "~/routes/api.users.$id";
import * as saveRoute from "~/routes/api.users.$id.save";
import * as unsaveRoute from "~/routes/api.users.$id.unsave";
import * as followRoute from "~/routes/api.users.follow.$id";
import * as profileRoute from "~/routes/api.users.profile";
import * as signinRoute from "~/routes/api.users.signin";
import * as signoutRoute from "~/routes/api.users.signout";
import * as signupRoute from "~/routes/api.users.signup";
import * as unfollowRoute from "~/routes/api.users.unfollow.$id";
import { LOGIN_MESSAGES } from "~/server/auth/sign-in.server";
import { db } from "~/server/db/connection.server";
import { env } from "~/server/env.server";
import { isFollowing } from "~/server/queries/follows.server";
import { verifyLogin } from "~/server/queries/users.server";
import { THROTTLE, THROTTLE_MESSAGE } from "~/server/auth/limits.server";
import { FILL_ALL_FIELDS, USERNAME_TAKEN } from "~/server/validation/auth-schema.server";
import { ADMIN_SECRET_UNSET, INCORRECT_ADMIN_PASSWORD, NOT_ALLOWED } from "~/server/validation/profile-schema.server";
import { TAG_LIMIT_MESSAGE } from "~/lib/tags";

import { call, expectError, PNG_DATA_URL, snapshot, useTempUploads } from "../support/api";
import { makeRecipeWithPost, follow as addFollow } from "../support/factories";
import { cookiesFrom, makeUser, signedInCookie, uniqueUsername } from "../support/app";

useTempUploads({ beforeAll, afterAll });
afterEach(() => {
  env.ADMIN_SECRET = undefined;
});

const USER_KEYS = ["_id", "bio", "followers", "following", "name", "posts", "profile", "role", "saved_recipes", "tags", "username"];

type U = Awaited<ReturnType<typeof makeUser>>;
async function person(options: Parameters<typeof makeUser>[0] = {}) {
  const user = await makeUser(options);
  return { ...user, cookie: await signedInCookie(user.id) };
}

async function sessionCount(userId: string) {
  const rows = await db.selectFrom("sessions").select("id").where("user_id", "=", userId).execute();
  return rows.length;
}

function setCookieOf(answer: { headers: Headers }): string {
  return cookiesFrom(new Response(null, { headers: answer.headers }));
}

describe("POST /api/users/signin", () => {
  it("answers the user (the API's fields, no password) with a session cookie that works", async () => {
    const user = await makeUser({ tags: ["Baker"] });
    const answer = await call(signinRoute, "POST", "/api/users/signin", { body: { username: user.username, password: user.password } });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(USER_KEYS);
    expect(answer.body).toMatchObject({ _id: user.id, username: user.username, role: "USER", tags: ["Baker"], posts: [], followers: [] });
    const cookie = setCookieOf(answer);
    expect(cookie).toMatch(/recipals_session=/);
    const me = await call(profileRoute, "GET", "/api/users/profile", { cookie });
    expect(me).toMatchObject({ status: 200, body: { _id: user.id } });
  });

  it("takes the username in any case", async () => {
    const user = await makeUser();
    const answer = await call(signinRoute, "POST", "/api/users/signin", { body: { username: user.username.toUpperCase(), password: user.password } });
    expect(answer.status).toBe(200);
  });

  it("refuses a wrong password with 401, an unknown user with 404, empty fields with 400 (docs/rules.md#login-screen texts)", async () => {
    const user = await makeUser();
    expectError(await call(signinRoute, "POST", "/api/users/signin", { body: { username: user.username, password: "nope" } }), 401, LOGIN_MESSAGES.invalid);
    expectError(await call(signinRoute, "POST", "/api/users/signin", { body: { username: uniqueUsername("ghost"), password: "x" } }), 404, LOGIN_MESSAGES.unknownUser);
    const empty = await call(signinRoute, "POST", "/api/users/signin", { body: { username: "", password: "" } });
    expectError(empty, 400, FILL_ALL_FIELDS);
    expect(empty.body.errors).toEqual({ username: FILL_ALL_FIELDS });
    expect(empty.headers.get("Set-Cookie")).toBeNull();
  });

  it("throttles: after the failure limit even the right password gets 429 with Retry-After", async () => {
    const user = await makeUser();
    for (let i = 0; i < THROTTLE.perUsernameAndAddress; i += 1) {
      await call(signinRoute, "POST", "/api/users/signin", { body: { username: user.username, password: "wrong" } });
    }
    const answer = await call(signinRoute, "POST", "/api/users/signin", { body: { username: user.username, password: user.password } });
    expectError(answer, 429, THROTTLE_MESSAGE);
    expect(Number(answer.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(answer.headers.get("Set-Cookie")).toBeNull();
  });

  it("refuses a body that is not JSON (415), malformed JSON (400) and GET (405)", async () => {
    expectError(await call(signinRoute, "POST", "/api/users/signin", { raw: "username=a&password=b", contentType: "application/x-www-form-urlencoded" }), 415);
    expectError(await call(signinRoute, "POST", "/api/users/signin", { raw: "{username:", contentType: "application/json" }), 400, /not valid JSON/);
    const get = await call(signinRoute, "GET", "/api/users/signin");
    expectError(get, 405);
    expect(get.headers.get("Allow")).toBe("POST, OPTIONS");
  });
});

describe("POST /api/users/signup", () => {
  it("creates a USER with the product's defaults, signs them in (201 + cookie) and keeps only a hash", async () => {
    const username = uniqueUsername("new");
    const answer = await call(signupRoute, "POST", "/api/users/signup", {
      body: { name: "New Person", username, password: "pass word", tags: ["Baker", "Vegan"], bio: "", role: "USER", profile: "/images/profile.png", posts: [], followers: [], following: [], saved_recipes: [] },
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      _id: expect.any(String),
      name: "New Person",
      username,
      role: "USER",
      bio: "",
      profile: "/images/profile.png",
      tags: ["Baker", "Vegan"],
      posts: [],
      followers: [],
      following: [],
      saved_recipes: [],
    });
    const me = await call(profileRoute, "POST", "/api/users/profile", { cookie: setCookieOf(answer) });
    expect(me.body._id).toBe(answer.body._id);
    expect((await verifyLogin({ username, password: "pass word" })).ok).toBe(true);
  });

  it("stores a data-URL profile picture as a file and answers its URL", async () => {
    const answer = await call(signupRoute, "POST", "/api/users/signup", {
      body: { name: "Pic", username: uniqueUsername("pic"), password: "pw", profile: PNG_DATA_URL },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.profile).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
  });

  it("refuses missing and invalid fields with 400 and per-field errors, writing nothing", async () => {
    const before = await snapshot();
    const missing = await call(signupRoute, "POST", "/api/users/signup", { body: { name: "", username: "ok_name" } });
    expectError(missing, 400, FILL_ALL_FIELDS);
    expect(missing.body.errors).toEqual({ name: FILL_ALL_FIELDS, password: FILL_ALL_FIELDS });
    const bad = await call(signupRoute, "POST", "/api/users/signup", { body: { name: "A", username: "no spaces!", password: "x" } });
    expectError(bad, 400);
    expect(Object.keys(bad.body.errors)).toEqual(["username"]);
    const tags = await call(signupRoute, "POST", "/api/users/signup", {
      body: { name: "A", username: uniqueUsername(), password: "x", tags: ["Baker", "Vegan", "Halal", "Kosher"] },
    });
    expectError(tags, 400, TAG_LIMIT_MESSAGE);
    const typed = await call(signupRoute, "POST", "/api/users/signup", { body: { name: 5, username: uniqueUsername(), password: "x" } });
    expectError(typed, 400);
    expect(Object.keys(typed.body.errors)).toEqual(["name"]);
    const notImage = await call(signupRoute, "POST", "/api/users/signup", {
      body: { name: "A", username: uniqueUsername(), password: "x", profile: "data:text/plain;base64,aGVsbG8=" },
    });
    expectError(notImage, 400, "Please choose an image file.");
    expect(notImage.body.errors).toEqual({ profile: "Please choose an image file." });
    expect(await snapshot()).toBe(before);
  });

  it("refuses a taken username (any case) with 409", async () => {
    const user = await makeUser();
    const answer = await call(signupRoute, "POST", "/api/users/signup", { body: { name: "X", username: user.username.toUpperCase(), password: "x" } });
    expectError(answer, 409, USERNAME_TAKEN);
    expect(answer.body.errors).toEqual({ username: USERNAME_TAKEN });
  });

  it("refuses signing up as ADMIN (403)", async () => {
    const username = uniqueUsername();
    const answer = await call(signupRoute, "POST", "/api/users/signup", { body: { name: "X", username, password: "x", role: "ADMIN" } });
    expectError(answer, 403);
    expect(answer.body.refused).toEqual(["role"]);
    expect((await verifyLogin({ username, password: "x" })).ok).toBe(false);
  });
});

describe("POST /api/users/signout and GET|POST /api/users/profile", () => {
  it("answers the session user on GET and POST", async () => {
    const user = await person();
    for (const method of ["GET", "POST"]) {
      const answer = await call(profileRoute, method, "/api/users/profile", { cookie: user.cookie });
      expect(answer).toMatchObject({ status: 200, body: { _id: user.id, username: user.username } });
    }
  });

  it("answers 401 {message} without a session or with a forged cookie (never {})", async () => {
    for (const cookie of [undefined, "recipals_session=forged"]) {
      expectError(await call(profileRoute, "GET", "/api/users/profile", { cookie }), 401);
      expectError(await call(profileRoute, "POST", "/api/users/profile", { cookie }), 401);
    }
  });

  it("signs out: the session row goes, the cookie is cleared, the old cookie is refused", async () => {
    const user = await person();
    expect(await sessionCount(user.id)).toBe(1);
    const answer = await call(signoutRoute, "POST", "/api/users/signout", { cookie: user.cookie });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("Set-Cookie")).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
    expect(await sessionCount(user.id)).toBe(0);
    expectError(await call(profileRoute, "GET", "/api/users/profile", { cookie: user.cookie }), 401);
    // Signing out without a session is fine too.
    expect((await call(signoutRoute, "POST", "/api/users/signout")).status).toBe(200);
  });
});

describe("GET /api/users and /api/users/{id}", () => {
  let a: U, b: U, recipe: Awaited<ReturnType<typeof makeRecipeWithPost>>;
  beforeAll(async () => {
    a = await makeUser({ name: "Listy Alpha", tags: ["Vegan"] });
    b = await makeUser({ name: "Listy Beta" });
    await addFollow(a.id, b.id);
    recipe = await makeRecipeWithPost({ userId: a.id });
    await db.insertInto("saved_recipes").values({ user_id: b.id, recipe_id: recipe.recipeId, created_at: "2026-01-01", seq: 999_001 }).execute();
  });

  it("lists every user with id lists (posts, followers, following, saved_recipes)", async () => {
    const answer = await call(usersRoute, "GET", "/api/users");
    expect(answer.status).toBe(200);
    const byId = new Map(answer.body.map((u: { _id: string }) => [u._id, u]));
    expect(byId.get(a.id)).toMatchObject({ tags: ["Vegan"], posts: [recipe.postId], following: [b.id], followers: [] });
    expect(byId.get(b.id)).toMatchObject({ followers: [a.id], saved_recipes: [recipe.recipeId] });
    const count = await db.selectFrom("users").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    expect(answer.body).toHaveLength(Number(count.n));
  });

  it("pages with ?limit=&offset= and refuses bad numbers with 400", async () => {
    const all = (await call(usersRoute, "GET", "/api/users")).body;
    const page = await call(usersRoute, "GET", "/api/users", { query: { limit: "2", offset: "1" } });
    expect(page.body.map((u: { _id: string }) => u._id)).toEqual(all.slice(1, 3).map((u: { _id: string }) => u._id));
    const bad = await call(usersRoute, "GET", "/api/users", { query: { limit: "0", offset: "-1" } });
    expectError(bad, 400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["limit", "offset"]);
  });

  it("searches by ?name= as plain text (no regex: '(' or '*' never fails)", async () => {
    const found = await call(usersRoute, "GET", "/api/users", { query: { name: "Listy" } });
    expect(found.status).toBe(200);
    expect(found.body.map((u: { _id: string }) => u._id).sort()).toEqual([a.id, b.id].sort());
    expect(found.body[0]).toHaveProperty("followers");
    for (const name of ["(", "*", "[a-", "Listy (", ".*"]) {
      const answer = await call(usersRoute, "GET", "/api/users", { query: { name } });
      expect(answer.status).toBe(200);
      expect(Array.isArray(answer.body)).toBe(true);
    }
  });

  it("answers one user, or 404", async () => {
    expect(await call(userRoute, "GET", `/api/users/${a.id}`, { params: { id: a.id } })).toMatchObject({ status: 200, body: { _id: a.id } });
    expectError(await call(userRoute, "GET", "/api/users/nope", { params: { id: "nope" } }), 404, "User not found.");
  });
});

describe("POST /api/users (ADMIN)", () => {
  it("creates the user the admin panel sends (201), with a working password", async () => {
    const admin = await person({ role: "ADMIN" });
    const username = uniqueUsername("made");
    const answer = await call(usersRoute, "POST", "/api/users", {
      cookie: admin.cookie,
      body: { name: "Made", username, password: "password123", role: "USER", profile: "/images/profile.png" },
    });
    expect(answer).toMatchObject({ status: 201, body: { username, role: "USER", profile: "/images/profile.png" } });
    expect((await verifyLogin({ username, password: "password123" })).ok).toBe(true);
  });

  it("makes the placeholder user when no name or username is sent", async () => {
    const admin = await person({ role: "ADMIN" });
    const answer = await call(usersRoute, "POST", "/api/users", { cookie: admin.cookie, body: {} });
    expect(answer.status).toBe(201);
    expect(answer.body.username).toMatch(/^user[0-9]+$/);
    expect(answer.body.name).toMatch(/^User[0-9]+$/);
    // Anything else without a name and username creates nobody.
    const before = await snapshot();
    expectError(await call(usersRoute, "POST", "/api/users", { cookie: admin.cookie, body: { a: { a: { a: 1 } } } }), 400);
    expect(await snapshot()).toEqual(before);
  });

  it("refuses visitors (401), users (403), taken usernames (409) and invalid input (400)", async () => {
    const admin = await person({ role: "ADMIN" });
    const user = await person();
    const before = await snapshot();
    const body = { name: "X", username: uniqueUsername(), password: "pw" };
    expectError(await call(usersRoute, "POST", "/api/users", { body }), 401);
    expectError(await call(usersRoute, "POST", "/api/users", { cookie: user.cookie, body }), 403);
    expectError(await call(usersRoute, "POST", "/api/users", { cookie: admin.cookie, body: { ...body, username: user.username } }), 409, USERNAME_TAKEN);
    const bad = await call(usersRoute, "POST", "/api/users", { cookie: admin.cookie, body: { ...body, role: "ROOT" } });
    expectError(bad, 400);
    expect(Object.keys(bad.body.errors)).toEqual(["role"]);
    expect(await snapshot()).toBe(before);
  });
});

describe("PUT /api/users/{id}", () => {
  async function put(actor: { cookie?: string } | null, id: string, body: unknown) {
    return call(userRoute, "PUT", `/api/users/${id}`, { params: { id }, cookie: actor?.cookie, body });
  }
  async function current(id: string) {
    return (await call(userRoute, "GET", `/api/users/${id}`, { params: { id } })).body;
  }

  it("merges a whole user object field by field; unknown fields, __v and the lists are ignored", async () => {
    const me = await person({ name: "Old Name", tags: ["Baker"] });
    const other = await makeUser();
    const mine = await current(me.id);
    const answer = await put(me, me.id, {
      ...mine,
      name: "New Name",
      bio: "Hello",
      tags: ["Vegan", "Baker"],
      __v: 3,
      favouriteColour: "blue",
      posts: ["forged-post"],
      saved_recipes: ["forged-recipe"],
      following: [other.id],
      followers: [other.id],
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...mine, name: "New Name", bio: "Hello", tags: ["Vegan", "Baker"] });
    expect(await isFollowing({ followerId: me.id, followeeId: other.id })).toBe(false);
    expect(await isFollowing({ followerId: other.id, followeeId: me.id })).toBe(false);
  });

  it("sets a new password when non-empty and keeps it when empty or missing", async () => {
    const me = await person();
    await put(me, me.id, { _id: me.id, password: "" });
    expect((await verifyLogin({ username: me.username, password: me.password })).ok).toBe(true);
    const answer = await put(me, me.id, { ...(await current(me.id)), password: "brand new", currentPassword: me.password });
    expect(answer.status).toBe(200);
    expect((await verifyLogin({ username: me.username, password: "brand new" })).ok).toBe(true);
  });

  it("stores a changed profile picture (data URL) and keeps an unchanged one", async () => {
    const me = await person();
    const changed = await put(me, me.id, { ...(await current(me.id)), profile: PNG_DATA_URL });
    expect(changed.body.profile).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    const again = await put(me, me.id, await current(me.id));
    expect(again.body.profile).toBe(changed.body.profile);
    // The address of a picture elsewhere is kept as it is; other schemes are refused.
    expect((await put(me, me.id, { profile: "https://pictures.example/me.jpg" })).body.profile).toBe("https://pictures.example/me.jpg");
    expectError(await put(me, me.id, { profile: "javascript:alert(1)" }), 400);
  });

  it("lets an ADMIN edit anyone and change roles; a USER may not edit others (403, nothing changes)", async () => {
    const admin = await person({ role: "ADMIN" });
    const target = await person();
    const stranger = await person();
    const before = await snapshot();
    const refused = await put(stranger, target.id, { ...(await current(target.id)), name: "Hacked" });
    expectError(refused, 403, NOT_ALLOWED);
    expect(refused.body.refused).toEqual(["profile"]);
    expect(await snapshot()).toBe(before);
    const promoted = await put(admin, target.id, { ...(await current(target.id)), role: "ADMIN", name: "Promoted" });
    expect(promoted.body).toMatchObject({ role: "ADMIN", name: "Promoted" });
  });

  it("refuses self-elevation without the admin secret; grants it with ADMIN_SECRET as adminPassword", async () => {
    const me = await person();
    expectError(await put(me, me.id, { _id: me.id, role: "ADMIN" }), 403, ADMIN_SECRET_UNSET);
    env.ADMIN_SECRET = "s3cret";
    const wrong = await put(me, me.id, { _id: me.id, role: "ADMIN", adminPassword: "guess" });
    expectError(wrong, 403, INCORRECT_ADMIN_PASSWORD);
    expect(wrong.body.refused).toEqual(["role"]);
    expect((await current(me.id)).role).toBe("USER");
    const granted = await put(me, me.id, { _id: me.id, role: "ADMIN", adminPassword: "s3cret" });
    expect(granted).toMatchObject({ status: 200, body: { role: "ADMIN" } });
  });

  it("never leaves the site without an ADMIN (409)", async () => {
    await db.updateTable("users").set({ role: "USER" }).where("role", "=", "ADMIN").execute();
    const admin = await person({ role: "ADMIN" });
    const answer = await put(admin, admin.id, { _id: admin.id, role: "USER" });
    expectError(answer, 409, "You cannot remove the last admin's role.");
    expect((await current(admin.id)).role).toBe("ADMIN");
  });

  it("refuses invalid fields (400 with errors), a taken username (409), another _id or a password hash (400)", async () => {
    const me = await person();
    const other = await makeUser();
    const before = await snapshot();
    const invalid = await put(me, me.id, { name: "", bio: "x".repeat(301), tags: ["Not A Tag"] });
    expectError(invalid, 400);
    expect(Object.keys(invalid.body.errors).sort()).toEqual(["bio", "name", "tags"]);
    expectError(await put(me, me.id, { username: other.username.toUpperCase() }), 409, USERNAME_TAKEN);
    expectError(await put(me, me.id, { _id: other.id, name: "Swap" }), 400, /ids cannot be changed/);
    expectError(await put(me, me.id, { password_hash: "scrypt-ish" }), 400);
    expectError(await put(me, me.id, { name: ["array"] }), 400);
    expect(await snapshot()).toBe(before);
  });

  it("does not re-check unchanged legacy values against today's limits", async () => {
    const me = await person();
    await db.updateTable("users").set({ bio: "b".repeat(400) }).where("id", "=", me.id).execute();
    const answer = await put(me, me.id, { ...(await current(me.id)), name: "Still Fine" });
    expect(answer).toMatchObject({ status: 200, body: { name: "Still Fine" } });
  });

  it("answers 401 without a session and 404 for an unknown user", async () => {
    const me = await person();
    expectError(await put(null, me.id, { name: "X" }), 401);
    expectError(await put(me, "missing", { name: "X" }), 404);
  });

  describe("follows through PUT (the original client)", () => {
    it("follows and unfollows by adding or removing one's own id in the other user's followers", async () => {
      const me = await person();
      const them = await makeUser();
      const theirs = await current(them.id);
      const followed = await put(me, them.id, { ...theirs, followers: [...theirs.followers, me.id] });
      expect(followed.status).toBe(200);
      expect(followed.body.followers).toEqual([me.id]);
      // The client's second call, its own following: ignored (already one follow row).
      const mine = await current(me.id);
      expect((await put(me, me.id, { ...mine, following: [...mine.following, them.id] })).status).toBe(200);
      expect((await current(me.id)).following).toEqual([them.id]);
      const unfollowed = await put(me, them.id, { ...(await current(them.id)), followers: [] });
      expect(unfollowed.body.followers).toEqual([]);
      expect(await isFollowing({ followerId: me.id, followeeId: them.id })).toBe(false);
    });

    it("removes followers with {_id, followers} (removals only; the follower's following drops too)", async () => {
      const me = await person();
      const fan1 = await makeUser();
      const fan2 = await makeUser();
      await addFollow(fan1.id, me.id);
      await addFollow(fan2.id, me.id);
      const answer = await put(me, me.id, { _id: me.id, followers: [fan2.id] });
      expect(answer.body.followers).toEqual([fan2.id]);
      expect((await current(fan1.id)).following).toEqual([]);
      const before = await snapshot();
      const added = await put(me, me.id, { _id: me.id, followers: [fan2.id, fan1.id] });
      expectError(added, 403, /cannot be added/);
      expect(added.body.refused).toEqual(["followers"]);
      expect(await snapshot()).toBe(before);
    });

    it("a whole-object PUT with a stale followers list never removes followers", async () => {
      const me = await person();
      const stale = await current(me.id);
      const fan = await makeUser();
      await addFollow(fan.id, me.id);
      const answer = await put(me, me.id, { ...stale, bio: "new bio" });
      expect(answer.body).toMatchObject({ bio: "new bio", followers: [fan.id] });
    });

    it("removes a follower the old client's way: that user's following loses me", async () => {
      const me = await person();
      const fan = await makeUser();
      await addFollow(fan.id, me.id);
      const theirs = await current(fan.id);
      const answer = await put(me, fan.id, { ...theirs, following: [] });
      expect(answer.status).toBe(200);
      expect(await isFollowing({ followerId: fan.id, followeeId: me.id })).toBe(false);
    });

    it("refuses changing someone else's lists beyond one's own place (403, nothing changes)", async () => {
      const me = await person();
      const them = await makeUser();
      const third = await makeUser();
      const fourth = await makeUser();
      await addFollow(third.id, them.id);
      const theirs = await current(them.id);
      const before = await snapshot();
      const cases = [
        { ...theirs, followers: [] }, // removing someone else's follow
        { ...theirs, followers: [...theirs.followers, fourth.id, me.id] }, // adding someone else (with oneself)
        { ...theirs, following: [me.id] }, // making them follow me
        { ...theirs, posts: ["forged"] },
        { ...theirs, saved_recipes: ["forged"] },
      ];
      for (const body of cases) {
        const answer = await put(me, them.id, body);
        expectError(answer, 403);
        expect(answer.body.refused.length).toBeGreaterThan(0);
      }
      expect(await snapshot()).toBe(before);
    });
  });
});

describe("DELETE /api/users/{id} (ADMIN)", () => {
  it("deletes the user and ends their sessions", async () => {
    const admin = await person({ role: "ADMIN" });
    const doomed = await person();
    const answer = await call(userRoute, "DELETE", `/api/users/${doomed.id}`, { params: { id: doomed.id }, cookie: admin.cookie });
    expect(answer).toMatchObject({ status: 200, body: { deleted: true, _id: doomed.id } });
    expect(await sessionCount(doomed.id)).toBe(0);
    expectError(await call(userRoute, "GET", `/api/users/${doomed.id}`, { params: { id: doomed.id } }), 404);
  });

  it("refuses visitors (401), users — themselves included (403), unknown ids (404), the last admin (409)", async () => {
    const user = await person();
    const before = await snapshot();
    expectError(await call(userRoute, "DELETE", `/api/users/${user.id}`, { params: { id: user.id } }), 401);
    expectError(await call(userRoute, "DELETE", `/api/users/${user.id}`, { params: { id: user.id }, cookie: user.cookie }), 403);
    expect(await snapshot()).toBe(before);
    await db.updateTable("users").set({ role: "USER" }).where("role", "=", "ADMIN").execute();
    const admin = await person({ role: "ADMIN" });
    expectError(await call(userRoute, "DELETE", "/api/users/missing", { params: { id: "missing" }, cookie: admin.cookie }), 404);
    expectError(await call(userRoute, "DELETE", `/api/users/${admin.id}`, { params: { id: admin.id }, cookie: admin.cookie }), 409);
  });
});

describe("PUT /api/users/{id}/save and /unsave", () => {
  it("saves and unsaves (idempotent), answering the updated user", async () => {
    const me = await person();
    const { recipeId } = await makeRecipeWithPost({ userId: null });
    const opts = { params: { id: me.id }, cookie: me.cookie, body: { recipeId } };
    const saved = await call(saveRoute, "PUT", `/api/users/${me.id}/save`, opts);
    expect(saved).toMatchObject({ status: 200, body: { _id: me.id, saved_recipes: [recipeId] } });
    expect((await call(saveRoute, "PUT", `/api/users/${me.id}/save`, opts)).body.saved_recipes).toEqual([recipeId]);
    const unsaved = await call(unsaveRoute, "PUT", `/api/users/${me.id}/unsave`, opts);
    expect(unsaved).toMatchObject({ status: 200, body: { saved_recipes: [] } });
  });

  it("refuses visitors (401), other users and admins (403), a missing recipeId (400) or recipe (404)", async () => {
    const me = await person();
    const admin = await person({ role: "ADMIN" });
    const { recipeId } = await makeRecipeWithPost({ userId: null });
    const before = await snapshot();
    const path = `/api/users/${me.id}/save`;
    expectError(await call(saveRoute, "PUT", path, { params: { id: me.id }, body: { recipeId } }), 401);
    expectError(await call(saveRoute, "PUT", path, { params: { id: me.id }, cookie: admin.cookie, body: { recipeId } }), 403);
    const missing = await call(saveRoute, "PUT", path, { params: { id: me.id }, cookie: me.cookie, body: {} });
    expectError(missing, 400);
    expect(Object.keys(missing.body.errors)).toEqual(["recipeId"]);
    expectError(await call(unsaveRoute, "PUT", path, { params: { id: me.id }, cookie: me.cookie, body: { recipeId: "nope" } }), 404, "Recipe not found.");
    expect(await snapshot()).toBe(before);
  });
});

describe("POST /api/users/follow/{id} and /unfollow/{id}", () => {
  it("follows and unfollows (idempotent), answering the caller", async () => {
    const me = await person();
    const them = await makeUser();
    const opts = { params: { id: them.id }, cookie: me.cookie };
    const followed = await call(followRoute, "POST", `/api/users/follow/${them.id}`, opts);
    expect(followed).toMatchObject({ status: 200, body: { _id: me.id, following: [them.id] } });
    expect((await call(followRoute, "POST", `/api/users/follow/${them.id}`, opts)).body.following).toEqual([them.id]);
    const unfollowed = await call(unfollowRoute, "POST", `/api/users/unfollow/${them.id}`, opts);
    expect(unfollowed).toMatchObject({ status: 200, body: { following: [] } });
  });

  it("refuses visitors (401), following oneself (400) and unknown users (404)", async () => {
    const me = await person();
    const before = await snapshot();
    expectError(await call(followRoute, "POST", `/api/users/follow/${me.id}`, { params: { id: me.id } }), 401);
    expectError(await call(followRoute, "POST", `/api/users/follow/${me.id}`, { params: { id: me.id }, cookie: me.cookie }), 400, "You cannot follow yourself.");
    expectError(await call(unfollowRoute, "POST", "/api/users/unfollow/x", { params: { id: "x" }, cookie: me.cookie }), 404);
    expect(await snapshot()).toBe(before);
  });
});
