import { describe, expect, it } from "vitest";

import { action as followAction, loader as followLoader } from "~/routes/ReciPals.Account.Follow.$uid";
import { db } from "~/server/db/connection.server";
import {
  follow,
  getFollowCounts,
  isFollowing,
  listFollowers,
  listFollowing,
} from "~/server/queries/follows.server";

import { dataOf, expectRedirect, formRequest, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

const followPath = (uid: string) => `/ReciPals/Account/Follow/${encodeURIComponent(uid)}`;
const profilePath = (uid: string) => `/ReciPals/Account/Profile/${encodeURIComponent(uid)}`;

async function post(uid: string, fields: Record<string, string>, cookie?: string) {
  return settle(() => followAction(routeArgs(formRequest(followPath(uid), fields, cookie), { uid })));
}

async function followRows(): Promise<number> {
  const row = await db.selectFrom("follows").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function pair() {
  const a = await makeUser();
  const b = await makeUser();
  return { a, b, cookieA: await signedInCookie(a.id), cookieB: await signedInCookie(b.id) };
}

describe("follow / unfollow (no JavaScript: plain POST, redirect back)", () => {
  it("follows, updating both users' counts, and redirects back to the page it came from", async () => {
    const { a, b, cookieA } = await pair();
    const back = `${profilePath(b.id)}/Followers`;
    expectRedirect(await post(b.id, { intent: "follow", redirectTo: back }, cookieA), back);
    expect(await isFollowing({ followerId: a.id, followeeId: b.id })).toBe(true);
    expect(await getFollowCounts(a.id)).toEqual({ followers: 0, following: 1 });
    expect(await getFollowCounts(b.id)).toEqual({ followers: 1, following: 0 });
  });

  it("is idempotent: following twice is one follow", async () => {
    const { a, b, cookieA } = await pair();
    const before = await followRows();
    await post(b.id, { intent: "follow", redirectTo: profilePath(b.id) }, cookieA);
    await post(b.id, { intent: "follow", redirectTo: profilePath(b.id) }, cookieA);
    expect(await followRows()).toBe(before + 1);
    expect(await getFollowCounts(b.id)).toEqual({ followers: 1, following: 0 });
    void a;
  });

  it("unfollows, and unfollowing again changes nothing", async () => {
    const { a, b, cookieA } = await pair();
    await follow({ followerId: a.id, followeeId: b.id });
    expectRedirect(await post(b.id, { intent: "unfollow", redirectTo: profilePath(b.id) }, cookieA), profilePath(b.id));
    expect(await getFollowCounts(a.id)).toEqual({ followers: 0, following: 0 });
    expect(await getFollowCounts(b.id)).toEqual({ followers: 0, following: 0 });
    expectRedirect(await post(b.id, { intent: "unfollow", redirectTo: profilePath(b.id) }, cookieA), profilePath(b.id));
  });

  it("removes a follower from the owner's side: the follower's following drops too", async () => {
    const { a, b, cookieA } = await pair();
    await follow({ followerId: b.id, followeeId: a.id });
    const back = `${profilePath(a.id)}/Followers`;
    expectRedirect(await post(b.id, { intent: "remove", redirectTo: back }, cookieA), back);
    expect(await getFollowCounts(a.id)).toEqual({ followers: 0, following: 0 });
    expect(await getFollowCounts(b.id)).toEqual({ followers: 0, following: 0 });
  });

  it("falls back to the profile for a missing or foreign redirectTo", async () => {
    const { b, cookieA } = await pair();
    expectRedirect(await post(b.id, { intent: "follow" }, cookieA), profilePath(b.id));
    expectRedirect(await post(b.id, { intent: "unfollow", redirectTo: "//evil.example/x" }, cookieA), profilePath(b.id));
  });

  it("refuses following yourself with 400 and writes nothing", async () => {
    const { a, cookieA } = await pair();
    const before = await followRows();
    const page = await post(a.id, { intent: "follow", redirectTo: profilePath(a.id) }, cookieA);
    expect(page).toBeInstanceOf(Response);
    expect((page as Response).status).toBe(400);
    expect(await (page as Response).text()).toBe("You cannot follow yourself.");
    const fetched = dataOf<{ ok: boolean; message: string }>(await post(a.id, { intent: "follow", _fetcher: "1" }, cookieA));
    expect(fetched).toEqual({ status: 400, data: { ok: false, message: "You cannot follow yourself." } });
    expect(await followRows()).toBe(before);
    // The schema refuses it too, whoever asks.
    await expect(follow({ followerId: a.id, followeeId: a.id })).rejects.toThrow(/CHECK/i);
  });

  it("answers 404 for a user that does not exist, writing nothing", async () => {
    const { cookieA } = await pair();
    const before = await followRows();
    const page = await post("no-such-user", { intent: "follow" }, cookieA);
    expect((page as Response).status).toBe(404);
    expect(await (page as Response).text()).toBe("User not found.");
    const fetched = dataOf<{ ok: boolean; message: string }>(await post("no-such-user", { intent: "follow", _fetcher: "1" }, cookieA));
    expect(fetched.status).toBe(404);
    expect(fetched.data.message).toBe("User not found.");
    // An empty id and an unfollow of nobody are the same 404.
    for (const [uid, intent] of [["", "follow"], ["", "unfollow"], ["no-such-user", "unfollow"]] as const) {
      const answer = dataOf<{ ok: boolean; message: string }>(await post(uid, { intent, _fetcher: "1" }, cookieA));
      expect([uid, intent, answer.status, answer.data.message]).toEqual([uid, intent, 404, "User not found."]);
    }
    expect(await followRows()).toBe(before);
  });

  it("answers 400 to an unknown intent", async () => {
    const { b, cookieA } = await pair();
    expect(((await post(b.id, { intent: "befriend" }, cookieA)) as Response).status).toBe(400);
  });

  it("sends a visitor to Login (back to the profile afterwards) and changes nothing", async () => {
    const { b } = await pair();
    const before = await followRows();
    expectRedirect(
      await post(b.id, { intent: "follow" }),
      `/ReciPals/Account/Login?redirectTo=${encodeURIComponent(profilePath(b.id))}`,
    );
    expect(await followRows()).toBe(before);
  });

  it("changes nothing on GET: it just goes to the profile", async () => {
    const { b } = await pair();
    expectRedirect(await settle(() => followLoader(routeArgs(getRequest(followPath(b.id)), { uid: b.id }))), profilePath(b.id));
  });
});

describe("follow / unfollow (JavaScript: a fetcher gets data)", () => {
  it("answers the new state instead of redirecting", async () => {
    const { a, b, cookieA } = await pair();
    const followed = dataOf(await post(b.id, { intent: "follow", _fetcher: "1", redirectTo: profilePath(b.id) }, cookieA));
    expect(followed).toEqual({ status: 200, data: { ok: true, intent: "follow", userId: b.id, following: true } });
    const unfollowed = dataOf(await post(b.id, { intent: "unfollow", _fetcher: "1" }, cookieA));
    expect(unfollowed.data).toMatchObject({ ok: true, following: false });
    expect(await getFollowCounts(a.id)).toEqual({ followers: 0, following: 0 });
  });
});

describe("follow lists", () => {
  it("lists followers and following in follow order, flagging whom the viewer follows", async () => {
    const owner = await makeUser();
    const viewer = await makeUser();
    const x = await makeUser();
    const y = await makeUser();
    // Explicit times: follows made within one millisecond would tie.
    const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    await db
      .insertInto("follows")
      .values([
        { follower_id: y.id, followee_id: owner.id, created_at: at(3) },
        { follower_id: x.id, followee_id: owner.id, created_at: at(1) },
        { follower_id: viewer.id, followee_id: owner.id, created_at: at(2) },
        { follower_id: owner.id, followee_id: y.id, created_at: at(4) },
        { follower_id: viewer.id, followee_id: y.id, created_at: at(5) },
      ])
      .execute();

    const followers = await listFollowers({ userId: owner.id, viewerId: viewer.id });
    expect(followers.map((row) => row.id)).toEqual([x.id, viewer.id, y.id]);
    expect(followers.map((row) => row.viewerFollows)).toEqual([false, false, true]);
    expect(followers[0]).toEqual({ id: x.id, username: x.username, name: x.name, profile: "/images/profile.png", viewerFollows: false });

    const following = await listFollowing({ userId: owner.id, viewerId: owner.id });
    expect(following.map((row) => [row.id, row.viewerFollows])).toEqual([[y.id, true]]);
    expect(JSON.stringify(followers)).not.toMatch(/password|scrypt/i);
  });
});
