import crypto from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { RECIPE_MESSAGES } from "~/lib/recipe-form";
import * as postsRoute from "~/routes/api.posts";
import * as postRoute from "~/routes/api.posts.$post_id";
import * as recipesRoute from "~/routes/api.recipes";
import * as recipeRoute from "~/routes/api.recipes.$recipe_id";
import * as searchRoute from "~/routes/api.recipes.search";
import * as userRoute from "~/routes/api.users.$id";
import { db } from "~/server/db/connection.server";
import { RATE_LIMITS } from "~/server/auth/limits.server";

import { call, expectError, PNG_DATA_URL, snapshot, useTempUploads } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { makeUser, signedInCookie } from "../support/app";

useTempUploads({ beforeAll, afterAll });

const RECIPE_KEYS = [
  "_id",
  "created_at",
  "description",
  "ingredients_sec",
  "name",
  "photo",
  "post_id",
  "recipe_id",
  "serves",
  "steps",
  "tags",
  "total_time",
  "user_created",
];

async function person(role: "USER" | "ADMIN" = "USER") {
  const user = await makeUser({ role });
  return { ...user, cookie: await signedInCookie(user.id) };
}

/** What the original client's editor sends for a new recipe. */
function editorPayload(userId: string, overrides: Record<string, unknown> = {}) {
  return {
    recipe_id: crypto.randomUUID(),
    post_id: crypto.randomUUID(),
    user_created: userId,
    name: "Client Soup",
    description: "A soup from the single-page client",
    total_time: "25min",
    serves: 3,
    tags: ["Soup", "Warm"],
    ingredients_sec: [{ _id: crypto.randomUUID(), title: "Broth", ingredients: ["Water (1 l)", "Salt", ""] }],
    steps: ["Boil.", "", "Serve."],
    photo: "/images/default.jpg",
    ...overrides,
  };
}

const create = (cookie: string | undefined, body: unknown) => call(recipesRoute, "POST", "/api/recipes", { cookie, body });
const put = (cookie: string | undefined, id: string, body: unknown) =>
  call(recipeRoute, "PUT", `/api/recipes/${id}`, { params: { recipe_id: id }, cookie, body });
const get = (id: string) => call(recipeRoute, "GET", `/api/recipes/${id}`, { params: { recipe_id: id } });
const del = (cookie: string | undefined, id: string) => call(recipeRoute, "DELETE", `/api/recipes/${id}`, { params: { recipe_id: id }, cookie });

describe("GET /api/recipes and /api/recipes/{id}", () => {
  it("lists every recipe with the API's fields and _id = recipe_id", async () => {
    const owner = await makeUser();
    const { recipeId, postId } = await makeRecipeWithPost({ userId: owner.id, tags: ["Sweet", "Pie"] });
    const answer = await call(recipesRoute, "GET", "/api/recipes");
    expect(answer.status).toBe(200);
    const recipe = answer.body.find((r: { _id: string }) => r._id === recipeId);
    expect(Object.keys(recipe).sort()).toEqual(RECIPE_KEYS);
    expect(recipe).toMatchObject({
      recipe_id: recipeId,
      post_id: postId,
      user_created: owner.id,
      tags: ["Sweet", "Pie"],
      ingredients_sec: [{ _id: expect.any(String), title: "Main Ingredients", ingredients: ["Flour (200g)", "Eggs (2)"] }],
      steps: ["Mix.", "Bake."],
      serves: 2,
      total_time: "30min",
    });
  });

  it("pages with ?limit=&offset= in stored order", async () => {
    for (let i = 0; i < 3; i += 1) await makeRecipeWithPost({ userId: null });
    const all = (await call(recipesRoute, "GET", "/api/recipes")).body.map((r: { _id: string }) => r._id);
    const page = (await call(recipesRoute, "GET", "/api/recipes", { query: { offset: "1", limit: "2" } })).body;
    expect(page.map((r: { _id: string }) => r._id)).toEqual(all.slice(1, 3));
    expect((await call(recipesRoute, "GET", "/api/recipes", { query: { offset: "100000" } })).body).toEqual([]);
    expectError(await call(recipesRoute, "GET", "/api/recipes", { query: { limit: "ten" } }), 400);
  });

  it("answers one recipe or 404", async () => {
    const { recipeId } = await makeRecipeWithPost({ userId: null });
    expect(await get(recipeId)).toMatchObject({ status: 200, body: { _id: recipeId } });
    expectError(await get("nope"), 404, "Recipe not found.");
  });
});

describe("GET /api/recipes/search", () => {
  it("finds recipes by name and answers whole recipes", async () => {
    const { recipeId } = await makeRecipeWithPost({ userId: null, name: "Zanzibar Pilau Feast" });
    const answer = await call(searchRoute, "GET", "/api/recipes/search", { query: { q: "zanzibar" } });
    expect(answer.status).toBe(200);
    expect(answer.body.map((r: { _id: string }) => r._id)).toContain(recipeId);
    expect(Object.keys(answer.body[0]).sort()).toEqual(RECIPE_KEYS);
  });

  it("treats the text literally: quotes, '*', '(' and FTS words never fail", async () => {
    for (const q of ["(", "*", '"', "pilau)", "NEAR(a b)", "a OR b", "-x", "^"]) {
      const answer = await call(searchRoute, "GET", "/api/recipes/search", { query: { q } });
      expect(answer.status, q).toBe(200);
      expect(Array.isArray(answer.body)).toBe(true);
    }
  });

  it("answers one page with ?page= and refuses an empty query with 400", async () => {
    const answer = await call(searchRoute, "GET", "/api/recipes/search", { query: { q: "recipe", page: "1" } });
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBeLessThanOrEqual(12);
    const empty = await call(searchRoute, "GET", "/api/recipes/search", { query: { q: "  " } });
    expectError(empty, 400);
    expect(Object.keys(empty.body.errors)).toEqual(["q"]);
  });
});

describe("POST /api/recipes", () => {
  it("creates the recipe and its post with the client's ids (201), by the editor's rules", async () => {
    const me = await person();
    const body = editorPayload(me.id);
    const answer = await create(me.cookie, body);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      _id: body.recipe_id,
      recipe_id: body.recipe_id,
      post_id: body.post_id,
      user_created: me.id,
      name: "Client Soup",
      serves: 3,
      tags: ["Soup", "Warm"],
      ingredients_sec: [{ title: "Broth", ingredients: ["Water (1 l)", "Salt"] }],
      steps: ["Boil.", "Serve."],
      photo: "/images/recipe-placeholder.png",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    const post = await db.selectFrom("posts").selectAll().where("id", "=", body.post_id).executeTakeFirstOrThrow();
    expect(post).toMatchObject({ recipe_id: body.recipe_id, created_by: me.id, title: "Client Soup", caption: body.description });
  });

  it("keeps a site picture it has, stores a data URL, keeps another host's picture address, refuses what is not a picture", async () => {
    const me = await person();
    expect((await create(me.cookie, editorPayload(me.id, { photo: "/images/noodleDish.png" }))).body.photo).toBe("/images/noodleDish.png");
    expect((await create(me.cookie, editorPayload(me.id, { photo: PNG_DATA_URL }))).body.photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    expect((await create(me.cookie, editorPayload(me.id, { photo: "https://example.com/x.jpg" }))).body.photo).toBe("https://example.com/x.jpg");
    const before = await snapshot();
    for (const photo of ["javascript:alert(1)", "ftp://example.com/x.jpg", `https://example.com/${"x".repeat(2100)}.jpg`, "https://user:pw@example.com/x.jpg", "not a picture"]) {
      const refused = await create(me.cookie, editorPayload(me.id, { photo }));
      expectError(refused, 400);
      expect(Object.keys(refused.body.errors)).toEqual(["photo"]);
    }
    const notImage = await create(me.cookie, editorPayload(me.id, { photo: "data:application/pdf;base64,JVBERi0=" }));
    expectError(notImage, 400, "Please choose an image file.");
    const broken = await create(me.cookie, editorPayload(me.id, { photo: "data:image/png;base64,AAAAAAAA" }));
    expectError(broken, 400, "Please choose an image file.");
    expect(await snapshot()).toBe(before);
  });

  it("uses fresh ids when the client's are taken or odd", async () => {
    const me = await person();
    const existing = await makeRecipeWithPost({ userId: me.id });
    const answer = await create(me.cookie, editorPayload(me.id, { recipe_id: existing.recipeId, post_id: "../../etc" }));
    expect(answer.status).toBe(201);
    expect(answer.body.recipe_id).not.toBe(existing.recipeId);
    expect(answer.body.recipe_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.body.post_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("the same new recipe sent several times at once: one is created, the others answer 409 with the API's message", async () => {
    const me = await person();
    const body = editorPayload(me.id);
    const answers = await Promise.all([1, 2, 3, 4].map(() => create(me.cookie, body)));
    // Never a 500: whether a later one finds the id taken before writing or is stopped by the
    // unique index (PostgreSQL's code as well as SQLite's), it answers the API's 409.
    expect(answers.filter((answer) => answer.status === 201).map((answer) => answer.body.recipe_id)).toEqual([body.recipe_id]);
    for (const answer of answers.filter((a) => a.status !== 201)) expectError(answer, 409, "That recipe was just created by another request; please reload.");
    expect(await db.selectFrom("recipes").select("id").where("id", "=", body.recipe_id).execute()).toHaveLength(1);
  });

  it("refuses invalid recipes with 400 and errors under the API's field names, writing nothing", async () => {
    const me = await person();
    const before = await snapshot();
    const answer = await create(me.cookie, {
      name: "",
      description: "d".repeat(151),
      ingredients_sec: [{ title: "T", ingredients: [" "] }],
      steps: [],
      serves: "many",
      tags: "a,b,c,d", // cut to three, not refused
      total_time: "t".repeat(51),
    });
    expectError(answer, 400, RECIPE_MESSAGES.nameRequired);
    expect(answer.body.errors).toEqual({
      name: RECIPE_MESSAGES.nameRequired,
      description: RECIPE_MESSAGES.descriptionTooLong,
      ingredients_sec: RECIPE_MESSAGES.ingredientRequired,
      steps: RECIPE_MESSAGES.stepRequired,
      serves: RECIPE_MESSAGES.servesInvalid,
      total_time: RECIPE_MESSAGES.totalTimeTooLong,
    });
    const typed = await create(me.cookie, { ...editorPayload(me.id), steps: "not a list" });
    expectError(typed, 400);
    expect(Object.keys(typed.body.errors)).toEqual(["steps"]);
    expect(await snapshot()).toBe(before);
  });

  it("refuses visitors (401) and creating as someone else (403)", async () => {
    const me = await person();
    const other = await makeUser();
    const before = await snapshot();
    expectError(await create(undefined, editorPayload(me.id)), 401);
    const forged = await create(me.cookie, editorPayload(other.id));
    expectError(forged, 403);
    expect(forged.body.refused).toEqual(["user_created"]);
    expect(await snapshot()).toBe(before);
  });

  it("the client's follow-up POST /api/posts answers the same post (200), and its user PUT keeps posts", async () => {
    const me = await person();
    const body = editorPayload(me.id);
    await create(me.cookie, body);
    const postBody = {
      post_id: body.post_id,
      recipe_id: body.recipe_id,
      created_by: me.id,
      title: body.name,
      caption: body.description,
      photo: body.photo,
      likes: [],
      comments: [],
      created_at: "2026-11-21",
    };
    const answer = await call(postsRoute, "POST", "/api/posts", { cookie: me.cookie, body: postBody });
    expect(answer).toMatchObject({ status: 200, body: { _id: body.post_id, post_id: body.post_id, recipe_id: body.recipe_id, likes: [], comments: [] } });
    expect(await db.selectFrom("posts").select("id").where("recipe_id", "=", body.recipe_id).execute()).toHaveLength(1);
    // Then the client appends the post id to its (possibly stale) user object and PUTs it.
    const stale = { _id: me.id, name: me.name, username: me.username, role: "USER", bio: "", profile: "/images/profile.png", tags: [], posts: [], followers: [], following: [], saved_recipes: [] };
    const user = await call(userRoute, "PUT", `/api/users/${me.id}`, { params: { id: me.id }, cookie: me.cookie, body: { ...stale, posts: [body.post_id] } });
    expect(user).toMatchObject({ status: 200, body: { posts: [body.post_id] } });
  });
});

describe("recipe tags through the API", () => {
  it("cuts tags beyond the third and drops blank ones on create and update, as arrays or text", async () => {
    const me = await person();
    const created = await create(me.cookie, editorPayload(me.id, { tags: ["Quick", "", "Spicy", " ", "Vegan", "Cheap", "Late"] }));
    expect(created.status).toBe(201);
    expect(created.body.tags).toEqual(["Quick", "Spicy", "Vegan"]);
    const updated = await put(me.cookie, created.body.recipe_id, { tags: "One, , Two, Three, Four" });
    expect(updated.status).toBe(200);
    expect(updated.body.tags).toEqual(["One", "Two", "Three"]);
  });
});

describe("PUT /api/recipes/{id}", () => {
  it("merges: the creator sends only a name; everything else stays", async () => {
    const me = await person();
    const { recipeId } = await makeRecipeWithPost({ userId: me.id });
    const before = (await get(recipeId)).body;
    const answer = await put(me.cookie, recipeId, { name: "Renamed" });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...before, name: "Renamed" });
    const post = await db.selectFrom("posts").select("title").where("recipe_id", "=", recipeId).executeTakeFirstOrThrow();
    expect(post.title).toBe("Renamed");
  });

  it("takes the editor's whole recipe back (section ids kept) and the admin panel's 'ingredients:' sections", async () => {
    const me = await person();
    const admin = await person("ADMIN");
    const created = (await create(me.cookie, editorPayload(me.id))).body;
    const edited = await put(me.cookie, created.recipe_id, { ...created, steps: ["One.", "Two.", "Three."] });
    expect(edited.body.steps).toEqual(["One.", "Two.", "Three."]);
    expect(edited.body.ingredients_sec[0]._id).toBe(created.ingredients_sec[0]._id);
    const panel = await put(admin.cookie, created.recipe_id, {
      ...edited.body,
      ingredients_sec: [{ _id: "edited-0", title: "Dough", "ingredients:": ["Flour", "Water"] }],
    });
    expect(panel.status).toBe(200);
    expect(panel.body.ingredients_sec).toEqual([{ _id: expect.any(String), title: "Dough", ingredients: ["Flour", "Water"] }]);
    expect(panel.body.user_created).toBe(me.id);
  });

  it("does not re-check an unchanged seeded name longer than today's limit, but checks a changed one", async () => {
    const admin = await person("ADMIN");
    const { recipeId } = await makeRecipeWithPost({ userId: null, name: "N".repeat(70) });
    const kept = await put(admin.cookie, recipeId, { ...(await get(recipeId)).body, steps: ["Only step."] });
    expect(kept).toMatchObject({ status: 200, body: { name: "N".repeat(70), steps: ["Only step."] } });
    expectError(await put(admin.cookie, recipeId, { name: "M".repeat(51) }), 400, RECIPE_MESSAGES.nameTooLong);
  });

  it("replaces the photo with a data URL and removes the old upload", async () => {
    const me = await person();
    const created = (await create(me.cookie, editorPayload(me.id, { photo: PNG_DATA_URL }))).body;
    const sharp = (await import("sharp")).default;
    const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: "#0a0" } }).png().toBuffer();
    const answer = await put(me.cookie, created.recipe_id, { photo: `data:image/png;base64,${png.toString("base64")}` });
    expect(answer.body.photo).toMatch(/^\/uploads\//);
    expect(answer.body.photo).not.toBe(created.photo);
  });

  it("counts photos against the person's uploads: past the hour's limit a data URL is refused with 429 and Retry-After, nothing changes", async () => {
    const me = await person();
    const { recipeId } = await makeRecipeWithPost({ userId: me.id });
    const now = Date.now();
    await db
      .insertInto("rate_events")
      .values(Array.from({ length: RATE_LIMITS.uploads.limit }, () => ({ id: crypto.randomUUID(), bucket: RATE_LIMITS.uploads.bucket, key: me.id, at: now })))
      .execute();
    const before = await snapshot();
    const refused = await put(me.cookie, recipeId, { photo: PNG_DATA_URL });
    expectError(refused, 429, /many times in a short while/);
    expect(refused.body.errors.photo).toMatch(/many times in a short while/);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await snapshot()).toBe(before);
    // Another person's uploads are their own.
    const other = await person();
    expect((await create(other.cookie, editorPayload(other.id, { photo: PNG_DATA_URL }))).status).toBe(201);
  });

  it("refuses visitors (401), other users (403), unknown ids (404), id or creator changes, invalid fields", async () => {
    const me = await person();
    const other = await person();
    const { recipeId } = await makeRecipeWithPost({ userId: me.id });
    const before = await snapshot();
    expectError(await put(undefined, recipeId, { name: "X" }), 401);
    expectError(await put(other.cookie, recipeId, { name: "X" }), 403, "You are not allowed to edit this recipe.");
    expectError(await put(me.cookie, "missing", { name: "X" }), 404);
    expectError(await put(me.cookie, recipeId, { _id: "other-id", name: "X" }), 400, /ids cannot be changed/);
    const creator = await put(me.cookie, recipeId, { user_created: other.id });
    expectError(creator, 403, "The creator of a recipe cannot be changed.");
    expect(creator.body.refused).toEqual(["user_created"]);
    const invalid = await put(me.cookie, recipeId, { steps: ["", " "], serves: 0 });
    expectError(invalid, 400);
    expect(Object.keys(invalid.body.errors).sort()).toEqual(["serves", "steps"]);
    expectError(await call(recipeRoute, "PUT", `/api/recipes/${recipeId}`, { params: { recipe_id: recipeId }, cookie: me.cookie, raw: "[]", contentType: "application/json" }), 400);
    expect(await snapshot()).toBe(before);
  });
});

describe("DELETE /api/recipes/{id}", () => {
  it("deletes the recipe with its post; the client's follow-up post delete gets 404", async () => {
    const me = await person();
    const { recipeId, postId } = await makeRecipeWithPost({ userId: me.id });
    const answer = await del(me.cookie, recipeId);
    expect(answer).toMatchObject({ status: 200, body: { deleted: true, recipe_id: recipeId, post_id: postId } });
    expect(await db.selectFrom("posts").select("id").where("id", "=", postId!).execute()).toEqual([]);
    expectError(await call(postRoute, "DELETE", `/api/posts/${postId}`, { params: { post_id: postId! }, cookie: me.cookie }), 404, "Post not found.");
    expectError(await get(recipeId), 404);
  });

  it("lets an ADMIN delete anyone's recipe", async () => {
    const admin = await person("ADMIN");
    const { recipeId } = await makeRecipeWithPost({ userId: null });
    expect((await del(admin.cookie, recipeId)).status).toBe(200);
  });

  it("refuses visitors (401), other users (403) and unknown ids (404)", async () => {
    const me = await person();
    const other = await person();
    const { recipeId } = await makeRecipeWithPost({ userId: me.id });
    const before = await snapshot();
    expectError(await del(undefined, recipeId), 401);
    expectError(await del(other.cookie, recipeId), 403);
    expectError(await del(me.cookie, "missing"), 404);
    expect(await snapshot()).toBe(before);
  });
});
