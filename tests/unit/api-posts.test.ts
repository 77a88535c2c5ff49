import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { RECIPE_MESSAGES } from "~/lib/recipe-form";
import * as postsRoute from "~/routes/api.posts";
import * as postRoute from "~/routes/api.posts.$post_id";
import * as commentsRoute from "~/routes/api.posts.$post_id.comments";
import { db } from "~/server/db/connection.server";
import { addComment } from "~/server/queries/comments.server";
import { setPostLiked } from "~/server/queries/likes.server";

import { call, expectError, PNG_DATA_URL, snapshot, useTempUploads } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { makeUser, signedInCookie } from "../support/app";

useTempUploads({ beforeAll, afterAll });

const POST_KEYS = ["_id", "caption", "comments", "created_at", "created_by", "likes", "photo", "post_id", "recipe_id", "title"];

async function person(role: "USER" | "ADMIN" = "USER") {
  const user = await makeUser({ role });
  return { ...user, cookie: await signedInCookie(user.id) };
}

async function postOf(userId: string | null) {
  const made = await makeRecipeWithPost({ userId });
  return { recipeId: made.recipeId, postId: made.postId! };
}

const get = (id: string) => call(postRoute, "GET", `/api/posts/${id}`, { params: { post_id: id } });
const put = (cookie: string | undefined, id: string, body: unknown) =>
  call(postRoute, "PUT", `/api/posts/${id}`, { params: { post_id: id }, cookie, body });
const comment = (cookie: string | undefined, id: string, body: unknown) =>
  call(commentsRoute, "POST", `/api/posts/${id}/comments`, { params: { post_id: id }, cookie, body });

describe("GET /api/posts and /api/posts/{id}", () => {
  it("lists every post with likes (user ids) and comments ({comment_id, user_id, text, created_at})", async () => {
    const author = await makeUser();
    const fan = await makeUser();
    const { postId, recipeId } = await postOf(author.id);
    await setPostLiked({ postId, userId: fan.id, liked: true });
    const c = await addComment({ postId, userId: fan.id, text: "Yum" });
    const answer = await call(postsRoute, "GET", "/api/posts");
    expect(answer.status).toBe(200);
    const post = answer.body.find((p: { _id: string }) => p._id === postId);
    expect(Object.keys(post).sort()).toEqual(POST_KEYS);
    expect(post).toMatchObject({
      post_id: postId,
      recipe_id: recipeId,
      created_by: author.id,
      likes: [fan.id],
      comments: [{ comment_id: c.comment_id, user_id: fan.id, text: "Yum", created_at: c.created_at }],
    });
    const page = await call(postsRoute, "GET", "/api/posts", { query: { limit: "1" } });
    expect(page.body).toHaveLength(1);
  });

  it("answers one post or 404", async () => {
    const { postId } = await postOf(null);
    expect(await get(postId)).toMatchObject({ status: 200, body: { _id: postId } });
    expectError(await get("nope"), 404, "Post not found.");
  });
});

describe("POST /api/posts", () => {
  it("answers the recipe's existing post (200) for its author or an ADMIN, whatever post_id is sent", async () => {
    const me = await person();
    const admin = await person("ADMIN");
    const { recipeId, postId } = await postOf(me.id);
    const before = await snapshot();
    for (const cookie of [me.cookie, admin.cookie]) {
      const answer = await call(postsRoute, "POST", "/api/posts", { cookie, body: { post_id: "client-id", recipe_id: recipeId, likes: ["x"], comments: [{ text: "x" }] } });
      expect(answer).toMatchObject({ status: 200, body: { _id: postId, likes: [], comments: [] } });
    }
    expect(await snapshot()).toBe(before);
  });

  it("gives a recipe without a post its post (201)", async () => {
    const me = await person();
    const { recipeId } = await makeRecipeWithPost({ userId: me.id, withPost: false, name: "Lonely" });
    const answer = await call(postsRoute, "POST", "/api/posts", { cookie: me.cookie, body: { post_id: "lonely-post-1", recipe_id: recipeId } });
    expect(answer).toMatchObject({ status: 201, body: { post_id: "lonely-post-1", recipe_id: recipeId, title: "Lonely", created_by: me.id } });
  });

  it("refuses visitors (401), a missing recipe_id (400), an unknown recipe (404), someone else's recipe (403)", async () => {
    const me = await person();
    const other = await person();
    const { recipeId } = await postOf(me.id);
    const before = await snapshot();
    expectError(await call(postsRoute, "POST", "/api/posts", { body: { recipe_id: recipeId } }), 401);
    const missing = await call(postsRoute, "POST", "/api/posts", { cookie: me.cookie, body: { title: "x" } });
    expectError(missing, 400);
    expect(Object.keys(missing.body.errors)).toEqual(["recipe_id"]);
    expectError(await call(postsRoute, "POST", "/api/posts", { cookie: me.cookie, body: { recipe_id: "nope" } }), 404, "Recipe not found.");
    expectError(await call(postsRoute, "POST", "/api/posts", { cookie: other.cookie, body: { recipe_id: recipeId } }), 403);
    expectError(await call(postsRoute, "POST", "/api/posts", { cookie: other.cookie, body: { recipe_id: recipeId, created_by: me.id } }), 403);
    expect(await snapshot()).toBe(before);
  });
});

describe("PUT /api/posts/{id}: likes", () => {
  it("likes and unlikes with the whole post, as the original client sends it", async () => {
    const me = await person();
    const author = await makeUser();
    const { postId } = await postOf(author.id);
    const post = (await get(postId)).body;
    const liked = await put(me.cookie, postId, { ...post, likes: [...post.likes, me.id] });
    expect(liked).toMatchObject({ status: 200, body: { likes: [me.id] } });
    expect((await put(me.cookie, postId, { ...liked.body, likes: [me.id] })).body.likes).toEqual([me.id]);
    const unliked = await put(me.cookie, postId, { ...liked.body, likes: [] });
    expect(unliked.body.likes).toEqual([]);
  });

  it("refuses any change to other users' likes from a USER, the author included (403, nothing changes)", async () => {
    const me = await person();
    const author = await person();
    const fan = await makeUser();
    const stranger = await makeUser();
    const { postId } = await postOf(author.id);
    await setPostLiked({ postId, userId: fan.id, liked: true });
    const post = (await get(postId)).body;
    const before = await snapshot();
    for (const [cookie, likes] of [
      [me.cookie, [me.id]], // drops fan's like while liking
      [me.cookie, [fan.id, stranger.id]], // likes for someone else
      [author.cookie, []], // the author removing a fan's like
    ] as const) {
      const answer = await put(cookie, postId, { ...post, likes });
      expectError(answer, 403, "You may only like or unlike a post as yourself.");
      expect(answer.body.refused).toEqual(["likes"]);
    }
    expect(await snapshot()).toBe(before);
  });

  it("lets an ADMIN change likes (existing users only)", async () => {
    const admin = await person("ADMIN");
    const fan = await makeUser();
    const { postId } = await postOf(null);
    await setPostLiked({ postId, userId: fan.id, liked: true });
    expect((await put(admin.cookie, postId, { likes: [] })).body.likes).toEqual([]);
    const unknown = await put(admin.cookie, postId, { likes: ["ghost"] });
    expectError(unknown, 400);
    expect(Object.keys(unknown.body.errors)).toEqual(["likes"]);
  });
});

describe("PUT /api/posts/{id}: content and comments", () => {
  it("lets the author (or an ADMIN) change title, caption and photo; the recipe keeps its own", async () => {
    const author = await person();
    const admin = await person("ADMIN");
    const { postId, recipeId } = await postOf(author.id);
    const answer = await put(author.cookie, postId, { ...(await get(postId)).body, title: "New title", caption: "New caption" });
    expect(answer).toMatchObject({ status: 200, body: { title: "New title", caption: "New caption" } });
    const recipe = await db.selectFrom("recipes").select("name").where("id", "=", recipeId).executeTakeFirstOrThrow();
    expect(recipe.name).not.toBe("New title");
    const photo = await put(admin.cookie, postId, { photo: PNG_DATA_URL });
    expect(photo.body.photo).toMatch(/^\/uploads\//);
  });

  it("refuses content changes from others (403) and invalid content (400)", async () => {
    const author = await person();
    const other = await person();
    const { postId } = await postOf(author.id);
    const before = await snapshot();
    const refused = await put(other.cookie, postId, { caption: "Mine now" });
    expectError(refused, 403, "Only the author or an administrator may edit this post.");
    expect(refused.body.refused).toEqual(["post"]);
    const invalid = await put(author.cookie, postId, { title: "", caption: "c".repeat(151) });
    expectError(invalid, 400);
    expect(invalid.body.errors).toEqual({ title: RECIPE_MESSAGES.nameRequired, caption: RECIPE_MESSAGES.descriptionTooLong });
    expect(await snapshot()).toBe(before);
  });

  it("ignores a USER's comments array (stale or forged) and lets an ADMIN remove comments with it", async () => {
    const author = await person();
    const admin = await person("ADMIN");
    const fan = await makeUser();
    const { postId } = await postOf(author.id);
    const first = await addComment({ postId, userId: fan.id, text: "First" });
    const second = await addComment({ postId, userId: fan.id, text: "Second" });
    const post = (await get(postId)).body;
    const ignored = await put(author.cookie, postId, { ...post, comments: [] });
    expect(ignored.body.comments).toHaveLength(2);
    const removed = await put(admin.cookie, postId, { ...post, comments: post.comments.filter((c: { comment_id: string }) => c.comment_id !== first.comment_id) });
    expect(removed.body.comments.map((c: { comment_id: string }) => c.comment_id)).toEqual([second.comment_id]);
  });

  it("refuses id, recipe and author changes; 401 without a session; 404 for an unknown post", async () => {
    const author = await person();
    const other = await makeUser();
    const { postId } = await postOf(author.id);
    const before = await snapshot();
    expectError(await put(author.cookie, postId, { _id: "x" }), 400, /ids cannot be changed/);
    expectError(await put(author.cookie, postId, { recipe_id: "x" }), 400, "A post always stays with its recipe.");
    expectError(await put(author.cookie, postId, { created_by: other.id }), 403, "The author of a post cannot be changed.");
    expectError(await put(undefined, postId, { likes: [] }), 401);
    expectError(await put(author.cookie, "missing", { likes: [] }), 404);
    expect(await snapshot()).toBe(before);
  });
});

describe("DELETE /api/posts/{id}", () => {
  it("deletes the post together with its recipe (author or ADMIN)", async () => {
    const author = await person();
    const admin = await person("ADMIN");
    for (const cookie of [author.cookie, admin.cookie]) {
      const { postId, recipeId } = await postOf(author.id);
      const answer = await call(postRoute, "DELETE", `/api/posts/${postId}`, { params: { post_id: postId }, cookie });
      expect(answer).toMatchObject({ status: 200, body: { deleted: true, post_id: postId, recipe_id: recipeId } });
      expect(await db.selectFrom("recipes").select("id").where("id", "=", recipeId).execute()).toEqual([]);
    }
  });

  it("refuses visitors (401), others (403), unknown posts (404)", async () => {
    const author = await person();
    const other = await person();
    const { postId } = await postOf(author.id);
    const before = await snapshot();
    const del = (cookie: string | undefined, id: string) => call(postRoute, "DELETE", `/api/posts/${id}`, { params: { post_id: id }, cookie });
    expectError(await del(undefined, postId), 401);
    expectError(await del(other.cookie, postId), 403);
    expectError(await del(author.cookie, "missing"), 404);
    expect(await snapshot()).toBe(before);
  });
});

describe("POST /api/posts/{id}/comments", () => {
  it("adds the comment as the session user — never as the body's user_id — and answers the post (201)", async () => {
    const me = await person();
    const someoneElse = await makeUser();
    const { postId } = await postOf(null);
    const answer = await comment(me.cookie, postId, { user_id: someoneElse.id, text: "  Lovely!  " });
    expect(answer.status).toBe(201);
    expect(answer.body._id).toBe(postId);
    expect(answer.body.comments.at(-1)).toEqual({
      comment_id: expect.any(String),
      user_id: me.id,
      text: "Lovely!",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    const listed = await call(commentsRoute, "GET", `/api/posts/${postId}/comments`, { params: { post_id: postId } });
    expect(listed.body).toEqual(answer.body.comments);
  });

  it("refuses a comment without a session (401) even when the body names a user", async () => {
    const someone = await makeUser();
    const { postId } = await postOf(null);
    const before = await snapshot();
    expectError(await comment(undefined, postId, { user_id: someone.id, text: "Spoofed" }), 401);
    expect(await snapshot()).toBe(before);
  });

  it("refuses an empty or too long comment (400) and an unknown post (404)", async () => {
    const me = await person();
    const { postId } = await postOf(null);
    const before = await snapshot();
    const empty = await comment(me.cookie, postId, { text: "   " });
    expectError(empty, 400, "Please write a comment before posting.");
    expect(Object.keys(empty.body.errors)).toEqual(["text"]);
    expectError(await comment(me.cookie, postId, { text: "x".repeat(1001) }), 400, /at most 1,000/);
    expectError(await comment(me.cookie, "missing", { text: "Hi" }), 404);
    expectError(await call(commentsRoute, "GET", "/api/posts/missing/comments", { params: { post_id: "missing" } }), 404);
    expect(await snapshot()).toBe(before);
  });
});
