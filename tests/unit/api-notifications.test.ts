import { describe, expect, it } from "vitest";

import * as notificationsRoute from "~/routes/api.notifications";
import * as readRoute from "~/routes/api.notifications.read";
import { db } from "~/server/db/connection.server";
import { setFollowing } from "~/server/services/follows-service.server";
import { setLike } from "~/server/services/interactions-service.server";

import { call } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { makeUser, signedInCookie } from "../support/app";

// GET /api/notifications and POST /api/notifications/read (docs/rules.md#notifications): the
// caller's own notifications, in the API's JSON conventions; no one reads or marks anyone else's.

async function personWithFans(fans: number) {
  const owner = await makeUser();
  const { recipeId, postId } = await makeRecipeWithPost({ userId: owner.id, name: "Beef Rice Noodles" });
  const likers = [];
  for (let i = 0; i < fans; i++) {
    const fan = await makeUser();
    likers.push(fan);
    expect((await setLike({ actor: fan, postId: postId!, liked: true })).ok).toBe(true);
  }
  return { owner, cookie: await signedInCookie(owner.id), recipeId, postId: postId!, likers };
}

const unreadOf = async (userId: string) =>
  (await db.selectFrom("notifications").select("id").where("user_id", "=", userId).where("read_at", "is", null).execute()).length;

describe("GET /api/notifications", () => {
  it("answers the caller's notifications, grouped, with the unread count", async () => {
    const { owner, cookie, likers } = await personWithFans(3);
    await setFollowing({ actor: likers[0]!, targetId: owner.id, following: true });
    const answer = await call(notificationsRoute, "GET", "/api/notifications", { cookie });
    expect(answer.status).toBe(200);
    expect(answer.body.unread).toBe(4);
    expect(answer.body.groups.map((group: { text: string }) => group.text)).toEqual([
      `${likers[0]!.username} started following you`,
      `${likers[2]!.username} and 2 others liked Beef Rice Noodles`,
    ]);
    expect(answer.body.ids).toHaveLength(4);
    expect(answer.body).toMatchObject({ page: 1, hasMore: false });
  });

  it("is 401 for visitors and never shows another person's notifications", async () => {
    const { likers } = await personWithFans(2);
    expect((await call(notificationsRoute, "GET", "/api/notifications")).status).toBe(401);
    const stranger = await call(notificationsRoute, "GET", "/api/notifications", { cookie: await signedInCookie(likers[0]!.id) });
    expect(stranger.status).toBe(200);
    expect(stranger.body.groups).toEqual([]);
    expect(stranger.body.unread).toBe(0);
  });

  it("refuses a page that is not a whole number with the API's 400", async () => {
    const { cookie } = await personWithFans(1);
    for (const page of ["0", "-1", "abc", "1.5"]) {
      const answer = await call(notificationsRoute, "GET", `/api/notifications?page=${page}`, { cookie });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ message: expect.any(String), errors: { page: expect.any(String) } });
    }
  });
});

describe("POST /api/notifications/read", () => {
  it("marks the given ones read, or all without ids, and answers the unread count", async () => {
    const { owner, cookie } = await personWithFans(3);
    const ids = (await db.selectFrom("notifications").select("id").where("user_id", "=", owner.id).orderBy("seq").execute()).map((row) => row.id);
    const some = await call(readRoute, "POST", "/api/notifications/read", { cookie, body: { ids: [ids[0]] } });
    expect(some.status).toBe(200);
    expect(some.body).toEqual({ marked: 1, unread: 2 });
    const all = await call(readRoute, "POST", "/api/notifications/read", { cookie, body: {} });
    expect(all.body).toEqual({ marked: 2, unread: 0 });
    expect(await unreadOf(owner.id)).toBe(0);
  });

  it("marks none of another person's: their ids are not the caller's", async () => {
    const { owner, likers } = await personWithFans(2);
    const ids = (await db.selectFrom("notifications").select("id").where("user_id", "=", owner.id).execute()).map((row) => row.id);
    const answer = await call(readRoute, "POST", "/api/notifications/read", { cookie: await signedInCookie(likers[0]!.id), body: { ids } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ marked: 0, unread: 0 });
    expect(await unreadOf(owner.id)).toBe(2);
  });

  it("refuses malformed bodies with 400 and changes nothing", async () => {
    const { owner, cookie } = await personWithFans(1);
    for (const body of [{ ids: "all" }, { ids: [1, 2] }, { ids: Array.from({ length: 501 }, (_, i) => `id-${i}`) }, { other: true }]) {
      const answer = await call(readRoute, "POST", "/api/notifications/read", { cookie, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ message: expect.any(String) });
    }
    expect(await unreadOf(owner.id)).toBe(1);
    expect((await call(readRoute, "POST", "/api/notifications/read", { body: {} })).status).toBe(401);
  });
});
