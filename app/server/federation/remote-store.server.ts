import { db, type DB } from "../db/connection.server";
import type { RemotePostsTable } from "../db/schema.server";
import { blockedDomains, isBlockedHost } from "./domain-blocks.server";

// What we keep of people on other servers and what they do here (docs/federation.md): whom people
// here follow there, the posts those people send, and the likes and replies posts here get from
// elsewhere. Plain database work, apart from the ActivityPub library (federation.server.ts).

/** A person on another server as a page shows them. */
export interface RemotePerson {
  id: string;
  handle: string;
  name: string;
  summary: string;
  icon_url: string | null;
  url: string | null;
}

/** Whether someone here follows the actor, their follow accepted: only then are their posts kept. */
export async function isFollowedHere(actorId: string, database: DB = db): Promise<boolean> {
  const row = await database.selectFrom("remote_follows").select("user_id").where("actor_id", "=", actorId).where("accepted_at", "is not", null).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** How `userId` follows the actor: not, asked (waiting for their Accept), or following. */
export async function remoteFollowState(userId: string, actorId: string, database: DB = db): Promise<"none" | "pending" | "following"> {
  const row = await database.selectFrom("remote_follows").select("accepted_at").where("user_id", "=", userId).where("actor_id", "=", actorId).executeTakeFirst();
  return !row ? "none" : row.accepted_at === null ? "pending" : "following";
}

/** Whether `userId` blocked (or, with `kind` "mute", muted) the person elsewhere. */
export async function remoteBlockOf(userId: string, actorId: string, database: DB = db): Promise<{ blocked: boolean; muted: boolean }> {
  const rows = await database.selectFrom("remote_blocks").select("kind").where("user_id", "=", userId).where("actor_id", "=", actorId).execute();
  return { blocked: rows.some((row) => row.kind === "block"), muted: rows.some((row) => row.kind === "mute") };
}

/** Whether `userId` blocked the person elsewhere: then nothing of theirs reaches `userId` or their posts. */
export async function isRemoteBlocked(userId: string, actorId: string, database: DB = db): Promise<boolean> {
  const row = await database.selectFrom("remote_blocks").select("kind").where("user_id", "=", userId).where("actor_id", "=", actorId).where("kind", "=", "block").executeTakeFirst();
  return row !== undefined;
}

/** Their Accept of our Follow `followId`: the follow is complete. False when it names no follow of ours to them. */
export async function acceptRemoteFollow({ actorId, followId }: { actorId: string; followId: string }, database: DB = db): Promise<boolean> {
  const updated = await database
    .updateTable("remote_follows")
    .set({ accepted_at: Date.now() })
    .where("actor_id", "=", actorId)
    .where("follow_id", "=", followId)
    .where("accepted_at", "is", null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Their Reject of our Follow (or a Follow they accepted and then withdrew). */
export async function dropRemoteFollow({ actorId, followId }: { actorId: string; followId: string }, database: DB = db): Promise<void> {
  await database.deleteFrom("remote_follows").where("actor_id", "=", actorId).where("follow_id", "=", followId).execute();
}

/** A post from elsewhere as it is kept (when it arrived is set on storing). */
export type RemotePostRow = Omit<RemotePostsTable, "received_at">;

/** Keeps (or, by the same author, replaces) a post from elsewhere. */
export async function storeRemotePost(post: RemotePostRow, database: DB = db): Promise<void> {
  const row = { ...post, received_at: Date.now() };
  const { id: _id, actor_id: _actor, ...changes } = row;
  await database
    .insertInto("remote_posts")
    .values(row)
    .onConflict((conflict) => conflict.column("id").doUpdateSet(changes).where("remote_posts.actor_id", "=", post.actor_id))
    .execute();
}

/** Changes the text of a post or reply from elsewhere, only when `actorId` wrote it. */
export async function updateRemoteText({ id, actorId, text, name, imageUrl }: { id: string; actorId: string; text: string; name: string | null; imageUrl: string | null }, database: DB = db): Promise<void> {
  await database.updateTable("remote_posts").set({ text, name, image_url: imageUrl }).where("id", "=", id).where("actor_id", "=", actorId).execute();
  await database.updateTable("remote_comments").set({ text }).where("id", "=", id).where("actor_id", "=", actorId).execute();
}

/** Their Delete of a post or reply: gone, when `actorId` wrote it. */
export async function deleteRemoteObject({ id, actorId }: { id: string; actorId: string }, database: DB = db): Promise<void> {
  await database.deleteFrom("remote_posts").where("id", "=", id).where("actor_id", "=", actorId).execute();
  await database.deleteFrom("remote_comments").where("id", "=", id).where("actor_id", "=", actorId).execute();
}

/** A like from elsewhere of a post here (idempotent). */
export async function storeRemoteLike({ postId, actorId, likeId }: { postId: string; actorId: string; likeId: string }, database: DB = db): Promise<void> {
  await database
    .insertInto("remote_likes")
    .values({ post_id: postId, actor_id: actorId, like_id: likeId, created_at: Date.now() })
    .onConflict((conflict) => conflict.columns(["post_id", "actor_id"]).doUpdateSet({ like_id: likeId }))
    .execute();
}

/** Their Undo of a Like: by the Like's id, or by the post it named. */
export async function dropRemoteLike({ actorId, likeId, postId }: { actorId: string; likeId: string | null; postId: string | null }, database: DB = db): Promise<void> {
  let query = database.deleteFrom("remote_likes").where("actor_id", "=", actorId);
  if (likeId && postId) query = query.where((eb) => eb.or([eb("like_id", "=", likeId), eb("post_id", "=", postId)]));
  else if (likeId) query = query.where("like_id", "=", likeId);
  else if (postId) query = query.where("post_id", "=", postId);
  else return;
  await query.execute();
}

/** A reply from elsewhere to a post here (idempotent; its author may replace its text). */
export async function storeRemoteComment(reply: { id: string; postId: string; actorId: string; url: string; text: string }, database: DB = db): Promise<void> {
  await database
    .insertInto("remote_comments")
    .values({ id: reply.id, post_id: reply.postId, actor_id: reply.actorId, url: reply.url, text: reply.text, created_at: Date.now() })
    .onConflict((conflict) => conflict.column("id").doUpdateSet({ text: reply.text }).where("remote_comments.actor_id", "=", reply.actorId))
    .execute();
}

/** A person on another server is shown nowhere once their server is blocked. */
async function reachable<T extends { actor_id: string }>(rows: T[], database: DB): Promise<T[]> {
  if (rows.length === 0) return rows;
  const blocked = (await blockedDomains(database)).map((row) => row.domain);
  return blocked.length === 0 ? rows : rows.filter((row) => !isBlockedHost(new URL(row.actor_id).host, blocked));
}

/** A reply the viewer wrote to a post from elsewhere. */
export type OwnRemoteReply = { id: string; text: string; created_at: number };

export type RemoteFeedPost = RemotePostRow & { handle: string; author_name: string; icon_url: string | null; liked: boolean; replies: OwnRemoteReply[] };

/** The newest posts of the people on other servers `viewerId` follows. */
export async function remotePostsFor(viewerId: string, { limit = 10 } = {}, database: DB = db): Promise<RemoteFeedPost[]> {
  const rows = await database
    .selectFrom("remote_posts as p")
    .innerJoin("remote_follows as f", (join) => join.onRef("f.actor_id", "=", "p.actor_id").on("f.user_id", "=", viewerId))
    .innerJoin("remote_actors as a", "a.id", "p.actor_id")
    .leftJoin("remote_post_likes as l", (join) => join.onRef("l.post_id", "=", "p.id").on("l.user_id", "=", viewerId))
    .select(["p.id", "p.actor_id", "p.url", "p.name", "p.text", "p.image_url", "p.published_at", "a.handle", "a.name as author_name", "a.icon_url", "l.like_id"])
    .where("f.accepted_at", "is not", null)
    // Nobody the viewer blocked or muted.
    .where((eb) => eb.not(eb.exists(eb.selectFrom("remote_blocks as b").select("b.kind").whereRef("b.actor_id", "=", "p.actor_id").where("b.user_id", "=", viewerId))))
    .orderBy("p.published_at", "desc")
    .orderBy("p.id")
    .limit(limit)
    .execute();
  const shown = await reachable(rows, database);
  // The viewer's own replies to them, oldest first.
  const replies =
    shown.length === 0
      ? []
      : await database
          .selectFrom("remote_post_replies")
          .select(["id", "post_id", "text", "created_at"])
          .where("user_id", "=", viewerId)
          .where("post_id", "in", shown.map((row) => row.id))
          .orderBy("created_at")
          .execute();
  return shown.map(({ like_id, ...row }) => ({
    ...row,
    published_at: Number(row.published_at),
    liked: like_id !== null,
    replies: replies.filter((reply) => reply.post_id === row.id).map(({ id, text, created_at }) => ({ id, text, created_at: Number(created_at) })),
  }));
}

export type RemoteLiker = { actor_id: string; handle: string; name: string; url: string | null; icon_url: string | null };

/** A person on another server in someone's Followers or Following, with whether the follow is complete. */
export type RemoteFollowRow = RemoteLiker & { accepted: boolean };

/** Who on other servers follows `userId` (followers), or whom there they follow or asked to (following). */
export async function remotePeopleOf(userId: string, kind: "followers" | "following", database: DB = db): Promise<RemoteFollowRow[]> {
  const rows =
    kind === "followers"
      ? await database
          .selectFrom("remote_followers as f")
          .innerJoin("remote_actors as a", "a.id", "f.actor_id")
          .select(["f.actor_id", "a.handle", "a.name", "a.url", "a.icon_url", "f.created_at as accepted_at"])
          .where("f.user_id", "=", userId)
          .orderBy("f.created_at", "desc")
          .execute()
      : await database
          .selectFrom("remote_follows as f")
          .innerJoin("remote_actors as a", "a.id", "f.actor_id")
          .select(["f.actor_id", "a.handle", "a.name", "a.url", "a.icon_url", "f.accepted_at"])
          .where("f.user_id", "=", userId)
          .orderBy("f.created_at", "desc")
          .execute();
  return (await reachable(rows, database)).map(({ accepted_at, ...row }) => ({ ...row, accepted: accepted_at !== null }));
}

/** Who on other servers liked a post, in the order they liked it. */
export async function remoteLikersOf(postId: string, database: DB = db): Promise<RemoteLiker[]> {
  const rows = await database
    .selectFrom("remote_likes as l")
    .innerJoin("remote_actors as a", "a.id", "l.actor_id")
    .select(["l.actor_id", "a.handle", "a.name", "a.url", "a.icon_url"])
    .where("l.post_id", "=", postId)
    .orderBy("l.created_at")
    .execute();
  return reachable(rows, database);
}

export type RemoteComment = { id: string; actor_id: string; handle: string; name: string; icon_url: string | null; url: string; text: string; created_at: number };

/** The replies from other servers to a post, oldest first. */
export async function remoteCommentsOf(postId: string, database: DB = db): Promise<RemoteComment[]> {
  const rows = await database
    .selectFrom("remote_comments as c")
    .innerJoin("remote_actors as a", "a.id", "c.actor_id")
    .select(["c.id", "c.actor_id", "a.handle", "a.name", "a.icon_url", "c.url", "c.text", "c.created_at"])
    .where("c.post_id", "=", postId)
    .orderBy("c.created_at")
    .execute();
  return (await reachable(rows, database)).map((row) => ({ ...row, created_at: Number(row.created_at) }));
}
