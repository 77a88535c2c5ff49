import crypto from "node:crypto";

import { describe, expect, it } from "vitest";

import { loader as profileLoader } from "~/routes/ReciPals.Account.Profile.$uid";
import { loader as followersLoader } from "~/routes/ReciPals.Account.Profile.$uid.Followers";
import { loader as followingLoader } from "~/routes/ReciPals.Account.Profile.$uid.Following";
import { db } from "~/server/db/connection.server";
import { follow } from "~/server/queries/follows.server";
import { setRecipeSaved } from "~/server/queries/saved.server";
import { nextSeq, nowIso } from "~/server/queries/seq.server";

import { expectRedirect, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

const profilePath = (uid: string) => `/ReciPals/Account/Profile/${encodeURIComponent(uid)}`;

/** A recipe by `userId`, with its post unless `withPost` is false. */
async function makeRecipe(userId: string, name: string, { withPost = true } = {}) {
  const recipeId = crypto.randomUUID();
  const postId = crypto.randomUUID();
  await db
    .insertInto("recipes")
    .values({ id: recipeId, user_created: userId, name, photo: `/images/${name}.png`, created_at: nowIso(), seq: nextSeq(db, "recipes") })
    .execute();
  if (withPost) {
    await db
      .insertInto("posts")
      .values({ id: postId, recipe_id: recipeId, created_by: userId, title: name, photo: `/images/${name}.png`, seq: nextSeq(db, "posts") })
      .execute();
  }
  return { recipeId, postId: withPost ? postId : null };
}

async function loadProfile(uid: string, cookie?: string, search = "") {
  return settle(() => profileLoader(routeArgs(getRequest(`${profilePath(uid)}${search}`, cookie), { uid })));
}

type ProfileData = Extract<Awaited<ReturnType<typeof profileLoader>>, { isOwn: boolean }>;

describe("profile page", () => {
  it("needs a signed-in viewer", async () => {
    const user = await makeUser();
    expectRedirect(await loadProfile(user.id), `/ReciPals/Account/Login?redirectTo=${encodeURIComponent(profilePath(user.id))}`);
  });

  it("shows the own profile: counts, tags, posts newest first, no follow state", async () => {
    const owner = await makeUser({ tags: ["Baker", "Vegan"] });
    const fan = await makeUser();
    const first = await makeRecipe(owner.id, "first");
    const second = await makeRecipe(owner.id, "second");
    await follow({ followerId: fan.id, followeeId: owner.id });
    const page = (await loadProfile(owner.id, await signedInCookie(owner.id))) as ProfileData;
    expect(page.isOwn).toBe(true);
    expect(page.viewerFollows).toBe(false);
    expect(page.tab).toBe("recipes");
    expect(page.counts).toEqual({ posts: 2, followers: 1, following: 0 });
    expect(page.profile).toMatchObject({ id: owner.id, username: owner.username, tags: ["Baker", "Vegan"], bio: "" });
    expect(page.posts.map((post) => post.post_id)).toEqual([second.postId, first.postId]);
    expect(page.saved).toEqual([]);
    expect(JSON.stringify(page)).not.toMatch(/password|scrypt/i);
  });

  it("shows someone else's profile with whether the viewer follows them", async () => {
    const owner = await makeUser();
    const viewer = await makeUser();
    const cookie = await signedInCookie(viewer.id);
    expect(((await loadProfile(owner.id, cookie)) as ProfileData).viewerFollows).toBe(false);
    await follow({ followerId: viewer.id, followeeId: owner.id });
    const page = (await loadProfile(owner.id, cookie)) as ProfileData;
    expect(page.isOwn).toBe(false);
    expect(page.viewerFollows).toBe(true);
    expect(page.counts).toEqual({ posts: 0, followers: 1, following: 0 });
  });

  it("is empty for a new user: no posts, no saved recipes", async () => {
    const owner = await makeUser();
    const cookie = await signedInCookie(owner.id);
    const recipes = (await loadProfile(owner.id, cookie)) as ProfileData;
    expect(recipes.posts).toEqual([]);
    expect(recipes.counts).toEqual({ posts: 0, followers: 0, following: 0 });
    const saved = (await loadProfile(owner.id, cookie, "?tab=saved")) as ProfileData;
    expect(saved.tab).toBe("saved");
    expect(saved.saved).toEqual([]);
  });

  it("lists the owner's saved recipes, each with its post's author when it has a post", async () => {
    const owner = await makeUser();
    const author = await makeUser();
    const withPost = await makeRecipe(author.id, "posted");
    const withoutPost = await makeRecipe(author.id, "unposted", { withPost: false });
    await setRecipeSaved({ userId: owner.id, recipeId: withPost.recipeId, saved: true });
    await setRecipeSaved({ userId: owner.id, recipeId: withoutPost.recipeId, saved: true });
    const page = (await loadProfile(owner.id, await signedInCookie(author.id), "?tab=saved")) as ProfileData;
    expect(page.posts).toEqual([]);
    expect(page.saved).toEqual([
      { recipe_id: withoutPost.recipeId, name: "unposted", photo: "/images/unposted.png", post_id: null, post_author_id: null },
      { recipe_id: withPost.recipeId, name: "posted", photo: "/images/posted.png", post_id: withPost.postId, post_author_id: author.id },
    ]);
  });

  it("pages the recipes grid by 24, newest first; a page past the last goes to the first", async () => {
    const owner = await makeUser();
    const made: string[] = [];
    for (let i = 0; i < 50; i++) made.push((await makeRecipe(owner.id, `dish-${i}`)).postId!);
    const newestFirst = made.reverse();
    const cookie = await signedInCookie(owner.id);
    const pages = await Promise.all(["", "?page=2", "?page=3"].map(async (search) => (await loadProfile(owner.id, cookie, search)) as ProfileData));
    expect(pages.map((page) => page.posts.map((post) => post.post_id))).toEqual([newestFirst.slice(0, 24), newestFirst.slice(24, 48), newestFirst.slice(48)]);
    expect(pages.map((page) => page.postsPage)).toEqual([
      { page: 1, hasMore: true },
      { page: 2, hasMore: true },
      { page: 3, hasMore: false },
    ]);
    // The count is of every post, not of the page.
    expect(pages.map((page) => page.counts.posts)).toEqual([50, 50, 50]);
    expectRedirect(await loadProfile(owner.id, cookie, "?page=4"), profilePath(owner.id));
    // The page number is the recipes grid's: the Saved tab stays where it is.
    expect(((await loadProfile(owner.id, cookie, "?tab=saved&page=2")) as ProfileData).tab).toBe("saved");
    // Not a number: the first page.
    expect(((await loadProfile(owner.id, cookie, "?page=two")) as ProfileData).postsPage).toEqual({ page: 1, hasMore: true });
  });

  it("answers 404 'User not found.' for an unknown user", async () => {
    const viewer = await makeUser();
    const result = await loadProfile("nobody", await signedInCookie(viewer.id));
    expect((result as Response).status).toBe(404);
    expect(await (result as Response).text()).toBe("User not found.");
  });
});

describe("followers and following dialogs", () => {
  async function loadList(kind: "Followers" | "Following", uid: string, cookie?: string) {
    const loader = kind === "Followers" ? followersLoader : followingLoader;
    return settle(() => loader(routeArgs(getRequest(`${profilePath(uid)}/${kind}`, cookie), { uid })));
  }

  it("tells the dialog whose list it is and whom the viewer follows", async () => {
    const owner = await makeUser();
    const viewer = await makeUser();
    const other = await makeUser();
    await follow({ followerId: viewer.id, followeeId: owner.id });
    await follow({ followerId: other.id, followeeId: owner.id });
    await follow({ followerId: viewer.id, followeeId: other.id });
    await follow({ followerId: owner.id, followeeId: other.id });

    const asViewer = await loadList("Followers", owner.id, await signedInCookie(viewer.id));
    expect(asViewer).toMatchObject({ uid: owner.id, isOwn: false, viewerId: viewer.id });
    const rows = (asViewer as { rows: { id: string; viewerFollows: boolean }[] }).rows;
    expect(new Map(rows.map((row) => [row.id, row.viewerFollows]))).toEqual(
      new Map([
        [viewer.id, false],
        [other.id, true],
      ]),
    );

    const asOwner = await loadList("Following", owner.id, await signedInCookie(owner.id));
    expect(asOwner).toMatchObject({ uid: owner.id, isOwn: true, viewerId: owner.id });
    expect((asOwner as { rows: { id: string }[] }).rows.map((row) => row.id)).toEqual([other.id]);
  });

  it("needs a signed-in viewer and an existing user", async () => {
    const owner = await makeUser();
    expectRedirect(
      await loadList("Following", owner.id),
      `/ReciPals/Account/Login?redirectTo=${encodeURIComponent(`${profilePath(owner.id)}/Following`)}`,
    );
    const missing = await loadList("Followers", "nobody", await signedInCookie(owner.id));
    expect((missing as Response).status).toBe(404);
  });
});
