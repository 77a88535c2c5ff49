import { beforeAll, describe, expect, it } from "vitest";

import { loader as homeLoader } from "~/routes/ReciPals.Home";
import { loader as likesLoader } from "~/routes/ReciPals.Home.Likes.$pid";
import { action as likeAction } from "~/routes/ReciPals.Posts.$pid.Like";
import { db } from "~/server/db/connection.server";
import { FEED_PAGE_SIZE, getFeedPage } from "~/server/queries/feed.server";

import { follow, makeRecipeWithPost } from "../support/factories";
import { dataOf, expectRedirect, formRequest, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

type U = Awaited<ReturnType<typeof makeUser>>;
let alice: U, bob: U, carol: U, viewer: U;
const postsBy = new Map<string, string[]>();

beforeAll(async () => {
  [alice, bob, carol, viewer] = await Promise.all([makeUser(), makeUser(), makeUser(), makeUser()]);
  // 30 posts, interleaved between three authors, so "newest first" and "shuffled" differ.
  for (let i = 0; i < 30; i++) {
    const author = [alice, bob, carol][i % 3]!;
    const { postId } = await makeRecipeWithPost({ userId: author.id, name: `Dish ${i}` });
    postsBy.set(author.id, [...(postsBy.get(author.id) ?? []), postId!]);
  }
});

async function wholeFeed(viewerId: string | null, seed: number): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const { posts, hasMore } = await getFeedPage({ viewerId, seed, page });
    expect(posts.length).toBeLessThanOrEqual(FEED_PAGE_SIZE);
    ids.push(...posts.map((p) => p.post_id));
    if (!hasMore) return ids;
  }
}

describe("home feed", () => {
  it("pages through every post exactly once for a seed", async () => {
    const ids = await wholeFeed(null, 12345);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    expect(await wholeFeed(null, 12345)).toEqual(ids);
  });

  it("shuffles for visitors and for people who follow nobody, differently per seed", async () => {
    const newestFirst = [...postsBy.values()].flat();
    const a = await wholeFeed(null, 777);
    const b = await wholeFeed(viewer.id, 778);
    expect(a).not.toEqual(b);
    const all = await db.selectFrom("posts").select("id").orderBy("seq", "desc").execute();
    expect(a).not.toEqual(all.map((r) => r.id));
    expect(a).not.toEqual(all.map((r) => r.id).reverse());
    expect(await wholeFeed(null, 1)).not.toEqual(await wholeFeed(null, 2));
    expect(new Set(b)).toEqual(new Set(newestFirst));
  });

  it("puts posts by followed people first, newest first, then the rest", async () => {
    const reader = await makeUser();
    await follow(reader.id, bob.id);
    const ids = await wholeFeed(reader.id, 4242);
    const bobs = postsBy.get(bob.id)!;
    expect(ids.slice(0, bobs.length)).toEqual([...bobs].reverse());
    expect(new Set(ids.slice(bobs.length))).toEqual(new Set([...postsBy.get(alice.id)!, ...postsBy.get(carol.id)!]));
  });

  it("serves a page with its seed and a Load more page through the loader", async () => {
    const first = await homeLoader(routeArgs(getRequest("/ReciPals/Home?seed=99")));
    expect(first.seed).toBe(99);
    expect(first.page).toBe(1);
    expect(first.posts).toHaveLength(FEED_PAGE_SIZE);
    expect(first.hasMore).toBe(true);
    const third = await homeLoader(routeArgs(getRequest("/ReciPals/Home?seed=99&page=3")));
    expect(third.posts).toHaveLength(30 - 2 * FEED_PAGE_SIZE);
    expect(third.hasMore).toBe(false);
    const fresh = await homeLoader(routeArgs(getRequest("/ReciPals/Home?seed=nonsense&page=-4")));
    expect(fresh.seed).toBeGreaterThan(0);
    expect(fresh.page).toBe(1);
  });

  it("shows the author, counts and the viewer's own like on each card", async () => {
    const postId = postsBy.get(alice.id)![0]!;
    await db.insertInto("likes").values({ post_id: postId, user_id: viewer.id, created_at: "2026-01-01" }).execute();
    const feed = await homeLoader(routeArgs(getRequest(`/ReciPals/Home?seed=5`, await signedInCookie(viewer.id))));
    const all = [...feed.posts];
    for (let page = 2; feed.hasMore && page < 4; page++) {
      all.push(...(await homeLoader(routeArgs(getRequest(`/ReciPals/Home?seed=5&page=${page}`, await signedInCookie(viewer.id))))).posts);
    }
    const card = all.find((p) => p.post_id === postId)!;
    expect(card).toMatchObject({ likes: 1, liked: true, comments: 0, author: { id: alice.id, username: alice.username } });
    expect(feed.signedIn).toBe(true);
    await db.deleteFrom("likes").where("post_id", "=", postId).execute();
  });
});

describe("likes", () => {
  const like = (postId: string, fields: Record<string, string>, cookie?: string) =>
    settle(() => likeAction(routeArgs(formRequest(`/ReciPals/Posts/${postId}/Like`, fields, cookie), { pid: postId })));

  it("sends a visitor to Login and writes nothing", async () => {
    const postId = postsBy.get(alice.id)![1]!;
    expectRedirect(
      await like(postId, { intent: "like", redirectTo: "/ReciPals/Home?seed=1" }),
      "/ReciPals/Account/Login?redirectTo=%2FReciPals%2FHome%3Fseed%3D1",
    );
    expect(await db.selectFrom("likes").select("user_id").where("post_id", "=", postId).execute()).toHaveLength(0);
  });

  it("toggles the session user's like (idempotent), redirecting back without JavaScript", async () => {
    const postId = postsBy.get(alice.id)![2]!;
    const cookie = await signedInCookie(viewer.id);
    const back = "/ReciPals/Home?seed=3#post-x";
    expectRedirect(await like(postId, { intent: "like", redirectTo: back }, cookie), back);
    expectRedirect(await like(postId, { intent: "like", redirectTo: back, userId: bob.id }, cookie), back);
    const rows = await db.selectFrom("likes").select("user_id").where("post_id", "=", postId).execute();
    expect(rows).toEqual([{ user_id: viewer.id }]);
    expect(await like(postId, { intent: "unlike", _fetcher: "1" }, cookie)).toEqual({ liked: false, likes: 0 });
    expect(await like(postId, { intent: "like", _fetcher: "1" }, cookie)).toEqual({ liked: true, likes: 1 });
  });

  it("answers 404 for a missing post and 400 for an unknown intent", async () => {
    const cookie = await signedInCookie(viewer.id);
    expect(dataOf(await like("no-such-post", { intent: "like", _fetcher: "1" }, cookie))).toEqual({ status: 404, data: { error: "Post not found." } });
    expect(dataOf(await like(postsBy.get(alice.id)![0]!, { intent: "explode", _fetcher: "1" }, cookie)).status).toBe(400);
    // Without JavaScript the refusal is an error page with the same status.
    expect(((await like("no-such-post", { intent: "like" }, cookie)) as Response).status).toBe(404);
  });

  it("lists who liked a post in the Likes dialog, and 404s for a missing post", async () => {
    const postId = postsBy.get(carol.id)![0]!;
    expect((await likesLoader(routeArgs(getRequest("/"), { pid: postId }))).likers).toEqual([]);
    await like(postId, { intent: "like" }, await signedInCookie(alice.id));
    await like(postId, { intent: "like" }, await signedInCookie(bob.id));
    const { likers } = await likesLoader(routeArgs(getRequest("/"), { pid: postId }));
    expect(likers.map((l) => l.username)).toEqual([alice.username, bob.username]);
    expect(JSON.stringify(likers)).not.toMatch(/password|scrypt/);
    const missing = await settle(() => likesLoader(routeArgs(getRequest("/"), { pid: "nope" })));
    expect((missing as Response).status).toBe(404);
  });
});
