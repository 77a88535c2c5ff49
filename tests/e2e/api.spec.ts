import crypto from "node:crypto";
import http from "node:http";

import { expect, test, type APIRequestContext, type APIResponse } from "@playwright/test";

import { botPostFor, readDb, SEEDED_USER, uniqueName } from "../support/e2e";

// The JSON API end to end, over real HTTP against the production server (scripts/server.js):
// cookies, streaming lists, the cross-site guard and JSON errors. The calls are the ones the
// original single-page client makes (docs/rules.md#json-api). JavaScript does not matter here, so the no-js
// project skips this file.

test.skip(({ javaScriptEnabled }) => javaScriptEnabled === false, "API calls do not depend on page JavaScript");

const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** The session cookie from a sign-in or sign-up answer, as a Cookie header. */
function sessionCookie(response: APIResponse): string {
  const header = response.headersArray().find((h) => h.name.toLowerCase() === "set-cookie" && h.value.startsWith("recipals_session="));
  expect(header, "a session cookie").toBeTruthy();
  return header!.value.split(";")[0]!;
}

async function expectJsonError(response: APIResponse, status: number) {
  expect(response.status()).toBe(status);
  expect(response.headers()["content-type"]).toMatch(/^application\/json/);
  const body = await response.json();
  expect(body.message).toEqual(expect.any(String));
  return body;
}

async function signUp(request: APIRequestContext) {
  const username = uniqueName("api");
  const response = await request.post("/api/users/signup", {
    data: { name: "Api Tester", username, password: "api password", tags: ["Baker"], bio: "", role: "USER", profile: "/images/profile.png" },
  });
  expect(response.status()).toBe(201);
  const user = await response.json();
  return { user, cookie: sessionCookie(response) };
}

test("sign in, read the profile, sign out: the session cookie carries the API", async ({ request }) => {
  const signin = await request.post("/api/users/signin", { data: { username: SEEDED_USER.username, password: SEEDED_USER.password } });
  expect(signin.status()).toBe(200);
  const user = await signin.json();
  expect(user).toMatchObject({ _id: SEEDED_USER.id, username: SEEDED_USER.username, role: "USER" });
  expect(user).not.toHaveProperty("password");
  const cookie = sessionCookie(signin);
  const me = await request.get("/api/users/profile", { headers: { Cookie: cookie } });
  expect(await me.json()).toMatchObject({ _id: SEEDED_USER.id });
  expect((await request.post("/api/users/profile", { headers: { Cookie: cookie } })).status()).toBe(200);
  expect((await request.post("/api/users/signout", { headers: { Cookie: cookie } })).status()).toBe(200);
  await expectJsonError(await request.get("/api/users/profile", { headers: { Cookie: cookie } }), 401);
  await expectJsonError(await request.post("/api/users/signin", { data: { username: SEEDED_USER.username, password: "wrong" } }), 401);
});

test("the editor's create flow: recipe, then post (idempotent), then the user's posts; then like, comment, delete", async ({ request }) => {
  const { user, cookie } = await signUp(request);
  const headers = { Cookie: cookie };
  const recipeId = crypto.randomUUID();
  const postId = crypto.randomUUID();
  const created = await request.post("/api/recipes", {
    headers,
    data: {
      recipe_id: recipeId,
      post_id: postId,
      user_created: user._id,
      name: "E2E API Soup",
      description: "Made through the JSON API",
      total_time: "20min",
      serves: 2,
      tags: ["Soup"],
      ingredients_sec: [{ _id: crypto.randomUUID(), title: "Pot", ingredients: ["Water"] }],
      steps: ["Boil."],
      photo: PNG,
    },
  });
  expect(created.status()).toBe(201);
  const recipe = await created.json();
  expect(recipe).toMatchObject({ _id: recipeId, post_id: postId, user_created: user._id });
  expect(recipe.photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
  expect((await request.get(recipe.photo)).status()).toBe(200);

  const post = await request.post("/api/posts", {
    headers,
    data: { post_id: postId, recipe_id: recipeId, created_by: user._id, title: recipe.name, caption: recipe.description, photo: PNG, likes: [], comments: [] },
  });
  expect(post.status()).toBe(200);
  expect(await post.json()).toMatchObject({ _id: postId, recipe_id: recipeId });

  const updated = await request.put(`/api/users/${user._id}`, { headers, data: { ...user, posts: [postId] } });
  expect(await updated.json()).toMatchObject({ posts: [postId] });

  const liked = await request.put(`/api/posts/${postId}`, { headers, data: { ...(await post.json()), likes: [user._id] } });
  expect(await liked.json()).toMatchObject({ likes: [user._id] });

  const commented = await request.post(`/api/posts/${postId}/comments`, { headers, data: { user_id: user._id, text: "Tasty" } });
  expect(commented.status()).toBe(201);
  expect((await commented.json()).comments.at(-1)).toMatchObject({ user_id: user._id, text: "Tasty" });

  // The recipe page shows what the API wrote.
  const page = await request.get(`/ReciPals/Recipes/${recipeId}`);
  expect(await page.text()).toContain("E2E API Soup");

  expect((await request.delete(`/api/recipes/${recipeId}`, { headers })).status()).toBe(200);
  await expectJsonError(await request.delete(`/api/posts/${postId}`, { headers }), 404);
});

test("lists answer everything (streamed JSON) and page with ?limit=&offset=", async ({ request }) => {
  // Other tests create and delete recipes meanwhile: the list must hold every recipe that existed
  // both before and after it was read, and nothing that existed at neither moment.
  const ids = (table: "recipes" | "posts") => new Set(readDb((db) => db.prepare(`select id from ${table}`).pluck().all() as string[]));
  const expectEverything = (listed: { _id: string }[], before: Set<string>, after: Set<string>) => {
    const got = new Set(listed.map((item) => item._id));
    expect(got.size).toBe(listed.length);
    for (const id of before) if (after.has(id)) expect(got.has(id), id).toBe(true);
    for (const id of got) expect(before.has(id) || after.has(id), id).toBe(true);
  };
  const recipesBefore = ids("recipes");
  const recipes = await request.get("/api/recipes");
  expect(recipes.status()).toBe(200);
  expect(recipes.headers()["content-type"]).toMatch(/^application\/json/);
  const all = await recipes.json();
  expectEverything(all, recipesBefore, ids("recipes"));
  expect(all.length).toBeGreaterThan(250);
  expect(all.find((r: { _id: string }) => r._id === "recipeBot-R1")).toMatchObject({ recipe_id: "recipeBot-R1", post_id: "recipeBot-P1" });
  const postsBefore = ids("posts");
  const posts = await (await request.get("/api/posts")).json();
  expectEverything(posts, postsBefore, ids("posts"));
  const users = await (await request.get("/api/users")).json();
  expect(users.find((u: { _id: string }) => u._id === SEEDED_USER.id)).toMatchObject({ posts: ["jd-P1"] });
  expect(JSON.stringify(users)).not.toMatch(/"password"|scrypt\$/);
  const page = await (await request.get("/api/recipes?offset=1&limit=2")).json();
  expect(page.map((r: { _id: string }) => r._id)).toEqual(all.slice(1, 3).map((r: { _id: string }) => r._id));
  const search = await request.get(`/api/recipes/search?q=${encodeURIComponent("chicken (")}`);
  expect(search.status()).toBe(200);
  expect(Array.isArray(await search.json())).toBe(true);
});

test("errors are JSON, never an HTML page", async ({ request }) => {
  await expectJsonError(await request.get("/api/no/such/thing"), 404);
  await expectJsonError(await request.get("/api/recipes/not-a-recipe"), 404);
  await expectJsonError(await request.post("/api/users/signin", { form: { username: "a", password: "b" } }), 415);
  await expectJsonError(
    await request.post("/api/users/signin", { data: "{not json", headers: { "Content-Type": "application/json" } }),
    400,
  );
  await expectJsonError(await request.post("/api/posts/recipeBot-P1/comments", { data: { user_id: SEEDED_USER.id, text: "spoof" } }), 401);
  const big = `{"pad":"${"x".repeat(13 * 1024 * 1024)}"}`;
  await expectJsonError(await request.post("/api/users/signup", { data: big, headers: { "Content-Type": "application/json" } }), 413);
});

test("cross-origin: no CORS for a foreign origin, and its writes are refused", async ({ request }) => {
  const foreign = "https://evil.example";
  const read = await request.get("/api/recipes?limit=1", { headers: { Origin: foreign } });
  expect(read.headers()["access-control-allow-origin"]).toBeUndefined();
  expect(read.headers()["vary"]).toMatch(/Origin/i);
  const preflight = await request.fetch("/api/users/signin", {
    method: "OPTIONS",
    headers: { Origin: foreign, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
  });
  expect(preflight.headers()["access-control-allow-origin"]).toBeUndefined();
  const write = await request.post("/api/users/signin", {
    headers: { Origin: foreign },
    data: { username: SEEDED_USER.username, password: SEEDED_USER.password },
  });
  expect(write.status()).toBe(403);
  expect(write.headers()["set-cookie"]).toBeUndefined();
});

// Runs when the server was started with ALLOWED_ORIGINS (e.g. ALLOWED_ORIGINS=http://localhost:5173).
const allowed = (process.env.ALLOWED_ORIGINS ?? "").split(",").map((o) => o.trim()).filter(Boolean)[0];
test("cross-origin: an allowed origin gets CORS with credentials, preflights included", async ({ request }) => {
  test.skip(!allowed, "ALLOWED_ORIGINS is not set for this run");
  const preflight = await request.fetch("/api/posts/recipeBot-P1", {
    method: "OPTIONS",
    headers: { Origin: allowed!, "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "content-type" },
  });
  expect(preflight.status()).toBe(204);
  expect(preflight.headers()).toMatchObject({
    "access-control-allow-origin": allowed,
    "access-control-allow-credentials": "true",
  });
  expect(preflight.headers()["access-control-allow-methods"]).toContain("PUT");
  const signin = await request.post("/api/users/signin", {
    headers: { Origin: allowed! },
    data: { username: SEEDED_USER.username, password: SEEDED_USER.password },
  });
  expect(signin.status()).toBe(200);
  expect(signin.headers()["access-control-allow-origin"]).toBe(allowed);
  // The cookie rides along on the next call (credentials), and CORS stays on every answer.
  const me = await request.get("/api/users/profile", { headers: { Origin: allowed!, Cookie: sessionCookie(signin) } });
  expect(me.status()).toBe(200);
  expect(me.headers()["access-control-allow-credentials"]).toBe("true");
  await request.post("/api/users/signout", { headers: { Origin: allowed!, Cookie: sessionCookie(signin) } });
  const denied = await request.get("/api/users/profile", { headers: { Origin: allowed!, Cookie: sessionCookie(signin) } });
  expect(denied.status()).toBe(401);
  expect(denied.headers()["access-control-allow-origin"]).toBe(allowed);
});

test("a page on another origin of the same host (allowed) uses the API with credentials, as the original client", async ({ page, baseURL }, testInfo) => {
  const origin = (process.env.ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean)
    .find((o) => URL.canParse(o) && new URL(o).hostname === new URL(baseURL!).hostname);
  test.skip(!origin, "ALLOWED_ORIGINS has no origin on the test server's host (e.g. http://127.0.0.1:5173)");
  // The single-page client's origin: a real server on another port of the same host (Chromium
  // lets only a page on the loopback address call a loopback server).
  const client = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end("<!doctype html><title>client</title>");
  });
  const listening = await new Promise<boolean>((resolve) => {
    client.once("error", () => resolve(false));
    client.listen(Number(new URL(origin!).port), new URL(origin!).hostname, () => resolve(true));
  });
  test.skip(!listening, `${origin} is busy`);
  test.info().attach("client origin", { body: origin! });
  await page.goto(`${origin}/`);
  client.close();
  const { postId } = botPostFor(testInfo.project.name, 40);
  const username = uniqueName("cors");
  const result = await page.evaluate(
    async ({ api, username, postId }) => {
      const send = (method: string, path: string, body?: unknown) =>
        fetch(`${api}${path}`, {
          method,
          credentials: "include",
          headers: body === undefined ? {} : { "Content-Type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const signup = await send("POST", "/api/users/signup", { name: "Cors Client", username, password: "cors password", tags: [] });
      const me = await (await send("GET", "/api/users/profile")).json();
      const post = await (await send("GET", `/api/posts/${postId}`)).json();
      const liked = await send("PUT", `/api/posts/${postId}`, { ...post, likes: [...post.likes, me._id] });
      const comment = await send("POST", `/api/posts/${postId}/comments`, { user_id: me._id, text: "From another origin" });
      const saved = await send("PUT", `/api/users/${me._id}/save`, { recipeId: post.recipe_id });
      // The original client's comment call: fetch without credentials, so no cookie: refused.
      const anonymous = await fetch(`${api}/api/posts/${postId}/comments`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ user_id: me._id, text: "spoof" }),
      });
      const out = await send("POST", "/api/users/signout");
      const after = await send("GET", "/api/users/profile");
      return {
        signup: signup.status,
        me,
        liked: { status: liked.status, likes: (await liked.json()).likes },
        comment: { status: comment.status, last: (await comment.json()).comments.at(-1) },
        saved: { status: saved.status, saved: (await saved.json()).saved_recipes },
        anonymous: anonymous.status,
        out: out.status,
        after: after.status,
      };
    },
    { api: baseURL!, username, postId },
  );
  expect(result.signup).toBe(201);
  expect(result.me).toMatchObject({ username });
  expect(result.liked.status).toBe(200);
  expect(result.liked.likes).toContain(result.me._id);
  expect(result.comment).toMatchObject({ status: 201, last: { user_id: result.me._id, text: "From another origin" } });
  expect(result.saved.status).toBe(200);
  expect(result.saved.saved).toHaveLength(1);
  expect(result.anonymous).toBe(401);
  expect(result.out).toBe(200);
  expect(result.after).toBe(401);
});
