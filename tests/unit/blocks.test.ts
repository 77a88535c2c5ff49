import { beforeEach, describe, expect, it } from "vitest";

import { loader as rootLoader } from "~/root";
import { loader as followersLoader } from "~/routes/ReciPals.Account.Profile.$uid.Followers";
import { loader as followingLoader } from "~/routes/ReciPals.Account.Profile.$uid.Following";
import { loader as postLikesLoader } from "~/routes/ReciPals.Account.Profile.$uid.Posts.$pid.Likes";
import { loader as postViewerLoader } from "~/routes/ReciPals.Account.Profile.$uid.Posts.$pid";
import { loader as profileLoader } from "~/routes/ReciPals.Account.Profile.$uid";
import { loader as editLoader } from "~/routes/ReciPals.Account.Profile.$uid_.Edit";
import { action as personAction, loader as personLoader } from "~/routes/ReciPals.Account.People.$uid";
import { loader as homeLoader } from "~/routes/ReciPals.Home";
import { loader as homeLikesLoader } from "~/routes/ReciPals.Home.Likes.$pid";
import { loader as recipeLoader } from "~/routes/ReciPals.Recipes.$rid";
import { loader as savedLoader } from "~/routes/ReciPals.Saved";
import { loader as searchLoader } from "~/routes/ReciPals.Search";
import { loader as atomLoader } from "~/routes/ReciPals.Users.$uid.recipes[.]atom";
import * as blocksRoute from "~/routes/api.blocks";
import * as blockRoute from "~/routes/api.blocks.$id";
import * as mutesRoute from "~/routes/api.mutes";
import * as muteRoute from "~/routes/api.mutes.$id";
import * as postRoute from "~/routes/api.posts.$post_id";
import * as postsRoute from "~/routes/api.posts";
import * as recipeRoute from "~/routes/api.recipes.$recipe_id";
import * as userRoute from "~/routes/api.users.$id";
import * as usersRoute from "~/routes/api.users";
import { db } from "~/server/db/connection.server";
import { readLens, UNAVAILABLE_ACCOUNT } from "~/server/queries/visibility.server";
import { setFollowing } from "~/server/services/follows-service.server";
import { addComment, setLike, setSaved } from "~/server/services/interactions-service.server";
import { getNotificationsPage } from "~/server/services/notifications-service.server";
import type { Outcome } from "~/server/services/outcome-service.server";
import { PEOPLE_MESSAGES, setBlock, setMute } from "~/server/services/people-service.server";
import { addRecipeToList } from "~/server/services/shopping-service.server";

import { call } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { dataOf, expectRedirect, formRequest, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

// Blocking and muting (docs/rules.md#blocking-and-muting), surface by surface: each test names one
// place a person or what they wrote shows up, and checks that a block hides it both ways while a
// third person still sees it. A new surface gets its own test here.

type Person = Awaited<ReturnType<typeof makeUser>> & { cookie: string };

function ok<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`refused ${outcome.status}: ${outcome.message}`);
  return outcome.value;
}

async function person(name = "Test Person"): Promise<Person> {
  const user = await makeUser({ name });
  return { ...user, cookie: await signedInCookie(user.id) };
}

const text = async (thrown: unknown) => (thrown instanceof Response ? `${thrown.status} ${await thrown.text()}` : JSON.stringify(thrown));

let blocker: Person; // blocks `blocked`
let blocked: Person;
let third: Person; // blocks nobody: sees both
let blockerRecipe: { recipeId: string; postId: string; name: string };
let blockedRecipe: { recipeId: string; postId: string; name: string };
let thirdRecipe: { recipeId: string; postId: string; name: string };

beforeEach(async () => {
  [blocker, blocked, third] = [await person("Bea Blocker"), await person("Bo Blocked"), await person("Tess Third")];
  const recipe = async (userId: string, name: string) => {
    const made = await makeRecipeWithPost({ userId, name });
    return { recipeId: made.recipeId, postId: made.postId!, name };
  };
  const tag = crypto.randomUUID().slice(0, 8);
  blockerRecipe = await recipe(blocker.id, `Blockerstew ${tag}`);
  blockedRecipe = await recipe(blocked.id, `Blockedstew ${tag}`);
  thirdRecipe = await recipe(third.id, `Thirdstew ${tag}`);
  // Before the block: each follows the other and the third, likes and comments on the other's and the third's post.
  for (const [a, b] of [
    [blocker, blocked],
    [blocked, blocker],
  ] as const) {
    ok(await setFollowing({ actor: a, targetId: b.id, following: true }));
    ok(await setFollowing({ actor: a, targetId: third.id, following: true }));
    ok(await setLike({ actor: a, postId: (b === blocked ? blockedRecipe : blockerRecipe).postId, liked: true }));
    ok(await setLike({ actor: a, postId: thirdRecipe.postId, liked: true }));
    ok(await addComment({ actor: a, postId: thirdRecipe.postId, text: `Said by ${a.username}` }));
  }
  ok(await setBlock({ actor: blocker, targetId: blocked.id, blocked: true }));
});

/** The pairs (viewer, hidden person) a block hides both ways. */
const bothWays = () =>
  [
    [blocker, blocked],
    [blocked, blocker],
  ] as const;

describe("a block", () => {
  it("ends the follows between the two, both ways, and keeps those with others", async () => {
    const follows = await db.selectFrom("follows").select(["follower_id", "followee_id"]).where("follower_id", "in", [blocker.id, blocked.id]).execute();
    expect(follows.map((f) => `${f.follower_id}>${f.followee_id}`).sort()).toEqual([`${blocked.id}>${third.id}`, `${blocker.id}>${third.id}`].sort());
  });

  it("is one way in the store but hides both ways in the lens; Unblock is offered to the blocker only", async () => {
    const [a, b] = [await readLens(blocker.id), await readLens(blocked.id)];
    expect(a).toEqual({ viewerId: blocker.id, hidden: [blocked.id], quiet: [blocked.id], blocking: [blocked.id], muting: [] });
    expect(b).toEqual({ viewerId: blocked.id, hidden: [blocker.id], quiet: [blocker.id], blocking: [], muting: [] });
    expect((await readLens(third.id)).hidden).toEqual([]);
  });

  it("refuses oneself and unknown people, changing nothing", async () => {
    expect(await setBlock({ actor: third, targetId: third.id, blocked: true })).toMatchObject({ ok: false, status: 400, message: PEOPLE_MESSAGES.blockSelf });
    expect(await setBlock({ actor: third, targetId: "no-such-person", blocked: true })).toMatchObject({ ok: false, status: 404 });
    expect(await setMute({ actor: third, targetId: third.id, muted: true })).toMatchObject({ ok: false, status: 400, message: PEOPLE_MESSAGES.muteSelf });
    expect(await db.selectFrom("blocks").select("blocked_id").where("blocker_id", "=", third.id).execute()).toEqual([]);
  });
});

/** Every post of a viewer's feed, page after page, in order. */
async function wholeFeed(viewer: Person): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; page < 1000; page += 1) {
    const loaded = (await homeLoader(routeArgs(getRequest(`/ReciPals/Home?seed=7&page=${page}`, viewer.cookie)))) as Awaited<ReturnType<typeof homeLoader>>;
    ids.push(...loaded.posts.map((post) => post.post_id));
    if (!loaded.hasMore) break;
  }
  return ids;
}

describe("what a block hides, surface by surface", () => {
  it("the feed: neither sees the other's posts, on any page; the third sees both", async () => {
    const feedOf = wholeFeed;
    for (const [viewer, hidden] of bothWays()) {
      const seen = await feedOf(viewer);
      const theirs = hidden === blocked ? blockedRecipe : blockerRecipe;
      expect(seen).not.toContain(theirs.postId);
      expect(seen).toContain(thirdRecipe.postId);
      expect(new Set(seen).size).toBe(seen.length);
    }
    const thirds = await feedOf(third);
    expect(thirds).toEqual(expect.arrayContaining([blockerRecipe.postId, blockedRecipe.postId]));
  });

  it("search: neither finds the other, as a person or by a recipe; the third finds both", async () => {
    const search = async (viewer: Person, q: string) =>
      (await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(q)}`, viewer.cookie), {}))) as Awaited<ReturnType<typeof searchLoader>>;
    for (const [viewer, hidden] of bothWays()) {
      const byName = await search(viewer, (hidden === blocked ? blockedRecipe : blockerRecipe).name);
      expect(byName.recipes.items).toEqual([]);
      expect((await search(viewer, hidden.username)).people.map((p) => p.id)).not.toContain(hidden.id);
    }
    expect((await search(third, blockedRecipe.name)).recipes.items.map((r) => r.recipe_id)).toEqual([blockedRecipe.recipeId]);
    expect((await search(third, blocked.username)).people.map((p) => p.id)).toContain(blocked.id);
  });

  it("profiles: 'This account is not available.' both ways, Unblock for the blocker", async () => {
    for (const [viewer, hidden] of bothWays()) {
      const { status, data } = dataOf<{ unavailable: true; canUnblock: boolean }>(await profileLoader(routeArgs(getRequest(`/ReciPals/Account/Profile/${hidden.id}`, viewer.cookie), { uid: hidden.id })));
      expect(status).toBe(404);
      expect(data).toEqual({ unavailable: true, userId: hidden.id, canUnblock: viewer === blocker });
      expect(JSON.stringify(data)).not.toContain(hidden.username);
    }
    const seen = await profileLoader(routeArgs(getRequest(`/ReciPals/Account/Profile/${blocked.id}`, third.cookie), { uid: blocked.id }));
    expect(seen).toMatchObject({ profile: { id: blocked.id } });
  });

  it("the post viewer: refused both ways (so no previous or next either), and its likes dialog under anyone's profile", async () => {
    for (const [viewer, hidden] of bothWays()) {
      const post = hidden === blocked ? blockedRecipe : blockerRecipe;
      const thrown = await settle(() => postViewerLoader(routeArgs(getRequest(`/x`, viewer.cookie), { uid: hidden.id, pid: post.postId })));
      expect(await text(thrown)).toBe(`404 ${UNAVAILABLE_ACCOUNT}`);
      // The hidden person's post asked for under a visible person's profile.
      const likes = await settle(() => postLikesLoader(routeArgs(getRequest(`/x`, viewer.cookie), { uid: third.id, pid: post.postId })));
      expect(await text(likes)).toBe("404 Post not found.");
    }
  });

  it("saved recipes (the Saved page, the profile's Saved tab) and the shopping list: the other's recipes are left out or refused", async () => {
    const [saver, creator] = [await person(), await person()];
    const dish = await makeRecipeWithPost({ userId: creator.id });
    ok(await setSaved({ actor: saver, recipeId: dish.recipeId, saved: true }));
    ok(await setBlock({ actor: creator, targetId: saver.id, blocked: true }));
    const saved = (await savedLoader(routeArgs(getRequest(`/ReciPals/Saved`, saver.cookie)))) as { recipes: { recipe_id: string }[] };
    expect(saved.recipes.map((r) => r.recipe_id)).not.toContain(dish.recipeId);
    const tab = (await profileLoader(routeArgs(getRequest(`/ReciPals/Account/Profile/${saver.id}?tab=saved`, saver.cookie), { uid: saver.id }))) as { saved: { recipe_id: string }[] };
    expect(tab.saved.map((r) => r.recipe_id)).not.toContain(dish.recipeId);
    // Still stored: an unblock shows it again.
    expect(await db.selectFrom("saved_recipes").select("recipe_id").where("user_id", "=", saver.id).execute()).toEqual([{ recipe_id: dish.recipeId }]);
    expect(await addRecipeToList({ actor: saver, recipeId: dish.recipeId })).toMatchObject({ ok: false, status: 404, message: "This recipe is not available." });
    expect(await db.selectFrom("shopping_items").select("id").where("user_id", "=", saver.id).execute()).toEqual([]);
  });

  it("the recipe page: refused both ways; on a third person's recipe the other's comment is left out", async () => {
    for (const [viewer, hidden] of bothWays()) {
      const own = hidden === blocked ? blockedRecipe : blockerRecipe;
      expect(await text(await settle(() => recipeLoader(routeArgs(getRequest(`/x`, viewer.cookie), { rid: own.recipeId }))))).toMatch(/^404 This recipe is not available\.$/);
      const page = (await recipeLoader(routeArgs(getRequest(`/x`, viewer.cookie), { rid: thirdRecipe.recipeId }))) as Awaited<ReturnType<typeof recipeLoader>>;
      const authors = page.comments.map((c) => c.author?.id);
      expect(authors).toContain(viewer.id);
      expect(authors).not.toContain(hidden.id);
    }
    const thirds = (await recipeLoader(routeArgs(getRequest(`/x`, third.cookie), { rid: thirdRecipe.recipeId }))) as Awaited<ReturnType<typeof recipeLoader>>;
    expect(thirds.comments.map((c) => c.author?.id)).toEqual(expect.arrayContaining([blocker.id, blocked.id]));
  });

  it("the likes dialogs (feed and profile): the other is not among the likers", async () => {
    for (const [viewer, hidden] of bothWays()) {
      const fromFeed = (await homeLikesLoader(routeArgs(getRequest(`/x`, viewer.cookie), { pid: thirdRecipe.postId }))) as { likers: { id: string }[] };
      const fromProfile = (await postLikesLoader(routeArgs(getRequest(`/x`, viewer.cookie), { uid: third.id, pid: thirdRecipe.postId }))) as { likers: { id: string }[] };
      for (const list of [fromFeed, fromProfile]) {
        expect(list.likers.map((l) => l.id)).toContain(viewer.id);
        expect(list.likers.map((l) => l.id)).not.toContain(hidden.id);
      }
    }
    const thirds = (await homeLikesLoader(routeArgs(getRequest(`/x`, third.cookie), { pid: thirdRecipe.postId }))) as { likers: { id: string }[] };
    expect(thirds.likers.map((l) => l.id)).toEqual(expect.arrayContaining([blocker.id, blocked.id]));
  });

  it("followers and following lists: the other is left out of a third person's lists; their own lists are refused", async () => {
    for (const [viewer, hidden] of bothWays()) {
      const followers = (await followersLoader(routeArgs(getRequest(`/x`, viewer.cookie), { uid: third.id }))) as { rows: { id: string }[] };
      expect(followers.rows.map((r) => r.id)).toEqual([viewer.id]);
      expect(await text(await settle(() => followingLoader(routeArgs(getRequest(`/x`, viewer.cookie), { uid: hidden.id }))))).toBe(`404 ${UNAVAILABLE_ACCOUNT}`);
    }
    const thirds = (await followersLoader(routeArgs(getRequest(`/x`, third.cookie), { uid: third.id }))) as { rows: { id: string }[] };
    expect(thirds.rows.map((r) => r.id).sort()).toEqual([blocker.id, blocked.id].sort());
  });

  it("notifications and their count: the other's like and follow are not shown (still stored)", async () => {
    for (const [viewer, hidden] of bothWays()) {
      const page = await getNotificationsPage({ actor: viewer, page: 1 });
      const actors = page.groups.flatMap((group) => JSON.stringify(group));
      expect(actors.join(" ")).not.toContain(hidden.id);
      // Each had a like and a follow from the other only: the follow was withdrawn by the block, the like is not shown.
      const root = (await rootLoader(routeArgs(getRequest("/ReciPals/Home", viewer.cookie)))) as { unread: number };
      expect([root.unread, page.unread, page.groups.length]).toEqual([0, 0, 0]);
    }
    // The like the blocked person gave before the block is still stored for the blocker.
    const stored = await db.selectFrom("notifications").select("kind").where("user_id", "=", blocker.id).where("actor_id", "=", blocked.id).execute();
    expect(stored.map((n) => n.kind)).toContain("like");
  });

  it("the Atom feed: none for a reader signed in as the other", async () => {
    for (const [viewer, hidden] of bothWays()) {
      const response = await atomLoader(routeArgs(getRequest(`/ReciPals/Users/${hidden.id}/recipes.atom`, viewer.cookie), { uid: hidden.id }));
      expect(response.status).toBe(404);
    }
    expect((await atomLoader(routeArgs(getRequest(`/ReciPals/Users/${blocked.id}/recipes.atom`), { uid: blocked.id }))).status).toBe(200);
  });

  it("the JSON API: the other, their recipes and posts are left out of every list and entity", async () => {
    for (const [viewer, hidden] of bothWays()) {
      const own = hidden === blocked ? blockedRecipe : blockerRecipe;
      const as = { cookie: viewer.cookie };
      expect((await call(userRoute, "GET", `/api/users/${hidden.id}`, { ...as, params: { id: hidden.id } })).status).toBe(404);
      expect((await call(recipeRoute, "GET", `/api/recipes/${own.recipeId}`, { ...as, params: { recipe_id: own.recipeId } })).status).toBe(404);
      expect((await call(postRoute, "GET", `/api/posts/${own.postId}`, { ...as, params: { post_id: own.postId } })).status).toBe(404);
      const users = (await call<{ _id: string; followers: string[] }[]>(usersRoute, "GET", "/api/users", as)).body;
      expect(users.map((u) => u._id)).not.toContain(hidden.id);
      expect(users.find((u) => u._id === third.id)?.followers).toEqual([viewer.id]);
      expect((await call<{ _id: string }[]>(usersRoute, "GET", "/api/users", { ...as, query: { name: hidden.username } })).body.map((u) => u._id)).not.toContain(hidden.id);
      const posts = (await call<{ _id: string; created_by: string | null }[]>(postsRoute, "GET", "/api/posts", as)).body;
      expect(posts.map((p) => p.created_by)).not.toContain(hidden.id);
      const thirdPost = (await call<{ likes: string[]; comments: { user_id: string }[] }>(postRoute, "GET", `/api/posts/${thirdRecipe.postId}`, { ...as, params: { post_id: thirdRecipe.postId } })).body;
      expect(thirdPost.likes).toEqual([viewer.id]);
      expect(thirdPost.comments.map((c) => c.user_id)).toEqual([viewer.id]);
    }
    // A whole-post PUT by an author sends back what GET gave (without the hidden like): that like stays stored.
    const own = (await call<{ likes: string[] }>(postRoute, "GET", `/api/posts/${blockerRecipe.postId}`, { cookie: blocker.cookie, params: { post_id: blockerRecipe.postId } })).body;
    expect(own.likes).toEqual([]);
    const put = await call(postRoute, "PUT", `/api/posts/${blockerRecipe.postId}`, { cookie: blocker.cookie, params: { post_id: blockerRecipe.postId }, body: { ...own, caption: "New words" } });
    expect(put.status).toBe(200);
    expect(await db.selectFrom("likes").select("user_id").where("post_id", "=", blockerRecipe.postId).execute()).toEqual([{ user_id: blocked.id }]);
    // The other's post and person through PUT: 404, as GET.
    expect((await call(postRoute, "PUT", `/api/posts/${blockerRecipe.postId}`, { cookie: blocked.cookie, params: { post_id: blockerRecipe.postId }, body: {} })).status).toBe(404);
    expect((await call(userRoute, "PUT", `/api/users/${blocker.id}`, { cookie: blocked.cookie, params: { id: blocker.id }, body: {} })).status).toBe(404);
    // Visitors and the third see everyone.
    expect((await call(userRoute, "GET", `/api/users/${blocked.id}`, { params: { id: blocked.id } })).status).toBe(200);
    const thirdPost = (await call<{ likes: string[] }>(postRoute, "GET", `/api/posts/${thirdRecipe.postId}`, { cookie: third.cookie, params: { post_id: thirdRecipe.postId } })).body;
    expect(thirdPost.likes.sort()).toEqual([blocker.id, blocked.id].sort());
  });
});

describe("what a block refuses (a clear message, nothing changed)", () => {
  it("following, liking, commenting on and saving the other's content, both ways", async () => {
    for (const [actor, other] of bothWays()) {
      const theirs = other === blocked ? blockedRecipe : blockerRecipe;
      const before = await db.selectFrom("likes").select("user_id").where("post_id", "=", theirs.postId).execute();
      for (const outcome of [
        await setFollowing({ actor, targetId: other.id, following: true }),
        await setLike({ actor, postId: theirs.postId, liked: true }),
        await addComment({ actor, postId: theirs.postId, text: "Sneaky" }),
        await setSaved({ actor, recipeId: theirs.recipeId, saved: true }),
      ]) {
        expect(outcome).toMatchObject({ ok: false, status: 403, message: UNAVAILABLE_ACCOUNT });
      }
      expect(await db.selectFrom("likes").select("user_id").where("post_id", "=", theirs.postId).execute()).toEqual(before);
      expect(await db.selectFrom("comments").select("id").where("post_id", "=", theirs.postId).where("user_id", "=", actor.id).execute()).toEqual([]);
      expect(await db.selectFrom("saved_recipes").select("user_id").where("recipe_id", "=", theirs.recipeId).where("user_id", "=", actor.id).execute()).toEqual([]);
      expect(await db.selectFrom("follows").select("follower_id").where("follower_id", "=", actor.id).where("followee_id", "=", other.id).execute()).toEqual([]);
    }
  });

  it("follows racing a block, both ways: never a block and a follow at the end", async () => {
    const [a, b] = [await person(), await person()];
    for (let round = 0; round < 10; round += 1) {
      // The follow starts first, then second: the service's own reads land on either side of the block.
      const follows = [setFollowing({ actor: b, targetId: a.id, following: true }), setFollowing({ actor: a, targetId: b.id, following: true })];
      const blocking = setBlock({ actor: a, targetId: b.id, blocked: true });
      if (round % 2 === 0) await Promise.all([...follows, blocking]);
      else await Promise.all([blocking, ...follows]);
      const left = await db.selectFrom("follows").select("follower_id").where("follower_id", "in", [a.id, b.id]).where("followee_id", "in", [a.id, b.id]).execute();
      expect(left).toEqual([]);
      ok(await setBlock({ actor: a, targetId: b.id, blocked: false }));
    }
  });
});

describe("unblocking", () => {
  it("shows both again (the follows stay ended) and lets them follow again", async () => {
    ok(await setBlock({ actor: blocker, targetId: blocked.id, blocked: false }));
    expect(await profileLoader(routeArgs(getRequest(`/x`, blocked.cookie), { uid: blocker.id }))).toMatchObject({ profile: { id: blocker.id }, viewerFollows: false });
    expect(ok(await setFollowing({ actor: blocked, targetId: blocker.id, following: true }))).toEqual({ following: true });
  });

  it("only the blocker can undo it", async () => {
    ok(await setBlock({ actor: blocked, targetId: blocker.id, blocked: false }));
    expect((await readLens(blocked.id)).hidden).toEqual([blocker.id]);
  });
});

describe("muting", () => {
  beforeEach(async () => {
    ok(await setBlock({ actor: blocker, targetId: blocked.id, blocked: false }));
    // `third` mutes `blocker` (who follows third and commented on third's post).
    ok(await setMute({ actor: third, targetId: blocker.id, muted: true }));
  });

  it("takes the muted person's posts out of my feed, their comments and notifications out of my view", async () => {
    expect(await wholeFeed(third)).not.toContain(blockerRecipe.postId);
    ok(await setMute({ actor: third, targetId: blocker.id, muted: false }));
    expect(await wholeFeed(third)).toContain(blockerRecipe.postId);
    ok(await setMute({ actor: third, targetId: blocker.id, muted: true }));
    const page = (await recipeLoader(routeArgs(getRequest(`/x`, third.cookie), { rid: thirdRecipe.recipeId }))) as Awaited<ReturnType<typeof recipeLoader>>;
    expect(page.comments.map((c) => c.author?.id)).toEqual([blocked.id]);
    const notices = await getNotificationsPage({ actor: third, page: 1 });
    expect(JSON.stringify(notices.groups)).not.toContain(blocker.id);
    expect(JSON.stringify(notices.groups)).toContain(blocked.id);
  });

  it("leaves search, likes dialogs and follow lists alone, and Unmute brings everything back", async () => {
    const likes = (await homeLikesLoader(routeArgs(getRequest(`/x`, third.cookie), { pid: thirdRecipe.postId }))) as { likers: { id: string }[] };
    expect(likes.likers.map((l) => l.id)).toContain(blocker.id);
    const found = (await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(blockerRecipe.name)}`, third.cookie)))) as Awaited<ReturnType<typeof searchLoader>>;
    expect(found.recipes.items.map((r) => r.recipe_id)).toEqual([blockerRecipe.recipeId]);
    const followers = (await followersLoader(routeArgs(getRequest(`/x`, third.cookie), { uid: third.id }))) as { rows: { id: string }[] };
    expect(followers.rows.map((r) => r.id)).toContain(blocker.id);
    expect(await readLens(third.id)).toMatchObject({ hidden: [], quiet: [blocker.id], muting: [blocker.id] });
    ok(await setMute({ actor: third, targetId: blocker.id, muted: false }));
    const page = (await recipeLoader(routeArgs(getRequest(`/x`, third.cookie), { rid: thirdRecipe.recipeId }))) as Awaited<ReturnType<typeof recipeLoader>>;
    expect(page.comments.map((c) => c.author?.id).sort()).toEqual([blocker.id, blocked.id].sort());
  });

  it("leaves the muted person's profile and their view of me as they were", async () => {
    expect(await profileLoader(routeArgs(getRequest(`/x`, third.cookie), { uid: blocker.id }))).toMatchObject({ profile: { id: blocker.id }, viewerMutes: true });
    const theirs = (await recipeLoader(routeArgs(getRequest(`/x`, blocker.cookie), { rid: thirdRecipe.recipeId }))) as Awaited<ReturnType<typeof recipeLoader>>;
    expect(theirs.recipe.recipe_id).toBe(thirdRecipe.recipeId);
    expect(ok(await setLike({ actor: blocker, postId: thirdRecipe.postId, liked: false }))).toBeDefined();
  });
});

describe("the Block page and the API", () => {
  it("Block without confirming asks on a page; confirming blocks and returns to a same-site address", async () => {
    const [a, b] = [await person(), await person("Quinn Question")];
    const asked = expectRedirect(await personAction(routeArgs(formRequest(`/x`, { intent: "block", returnTo: "/ReciPals/Home" }, a.cookie), { uid: b.id })), /\?intent=block&returnTo=/);
    const question = (await personLoader(routeArgs(getRequest(asked.headers.get("Location")!, a.cookie), { uid: b.id }))) as { username: string; returnTo: string };
    expect(question).toMatchObject({ username: b.username, returnTo: "/ReciPals/Home" });
    expect((await readLens(a.id)).hidden).toEqual([]);
    expectRedirect(await personAction(routeArgs(formRequest(`/x`, { intent: "block", confirm: "yes", returnTo: "//evil.example" }, a.cookie), { uid: b.id })), `/ReciPals/Account/Profile/${b.id}`);
    expect((await readLens(a.id)).blocking).toEqual([b.id]);
    const editor = (await editLoader(routeArgs(getRequest(`/x`, a.cookie), { uid: a.id }))) as { blocked: { id: string }[]; muted: unknown[] };
    expect(editor.blocked.map((p) => p.id)).toEqual([b.id]);
    expectRedirect(await personAction(routeArgs(formRequest(`/x`, { intent: "unblock", returnTo: `/ReciPals/Account/Profile/${a.id}/Edit` }, a.cookie), { uid: b.id })), `/ReciPals/Account/Profile/${a.id}/Edit`);
    expect((await readLens(a.id)).blocking).toEqual([]);
  });

  it("/api/blocks and /api/mutes list, add and remove the caller's own, with zod messages", async () => {
    const [a, b] = [await person(), await person()];
    const as = { cookie: a.cookie };
    expect((await call(blocksRoute, "GET", "/api/blocks", as)).body).toEqual([]);
    const added = await call(blocksRoute, "POST", "/api/blocks", { ...as, body: { user_id: b.id } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual([{ _id: b.id, username: b.username, name: b.name, profile: b.profile }]);
    const bad = await call(blocksRoute, "POST", "/api/blocks", { ...as, body: { user: b.id } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/user_id/);
    expect((await call(blocksRoute, "POST", "/api/blocks", { ...as, body: { user_id: a.id } })).body).toMatchObject({ message: PEOPLE_MESSAGES.blockSelf });
    expect((await call(blockRoute, "DELETE", `/api/blocks/${b.id}`, { ...as, params: { id: b.id } })).body).toEqual([]);
    expect((await call(mutesRoute, "POST", "/api/mutes", { ...as, body: { user_id: b.id } })).body).toEqual([{ _id: b.id, username: b.username, name: b.name, profile: b.profile }]);
    expect((await call(muteRoute, "DELETE", `/api/mutes/${b.id}`, { ...as, params: { id: b.id } })).body).toEqual([]);
    expect((await readLens(a.id)).quiet).toEqual([]);
    expect((await call(blocksRoute, "GET", "/api/blocks")).status).toBe(401);
  });
});
