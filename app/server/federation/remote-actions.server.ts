import crypto from "node:crypto";

import { db, engineOf, type DB } from "../db/connection.server";
import { env } from "../env.server";
import { CacheScope, changing } from "../cache/scopes.server";
import { log } from "../observability/log.server";
import { blockedDomains, hostIsBlocked, isBlockedHost } from "./domain-blocks.server";
import { federationEnabled, handleHost } from "./handles.server";
import { REPLY_PREFIX, recipientOf, rememberActor, replyNote, replyRow, sending, type Fedify } from "./federation.server";
import { webFingerActor } from "./remote-documents.server";
import type { RemotePerson } from "./remote-store.server";

// What people here do towards people on other servers (docs/federation.md): find them by handle,
// follow and unfollow them, block and mute them, like and answer their posts, and, when an account
// here ends, tell the servers that knew it. Each change is kept here and sent through the durable
// queue, signed as the person; the protocol side (actors, inboxes) is federation.server.ts.

/** Our Undo of the Follow `followId` that `me` sent `recipient`. */
function undoOfFollow(library: Fedify, me: URL, followId: string, recipient: URL) {
  return new library.Undo({ id: new URL(`#undo/${crypto.randomUUID()}`, me), actor: me, object: new library.Follow({ id: new URL(followId), actor: me, object: recipient }) });
}

/** How long what we know of a person elsewhere stands before a search asks their server again. */
const REMOTE_PERSON_FRESH_MS = 60 * 60 * 1000;

/** The longest a search waits for another server to say who `@name@host` is. */
export const LOOKUP_TIMEOUT_MS = 15_000;

/** `@name@host` (or `name@host`) of a person on another server; null for anything else or a handle here. */
export function parseRemoteHandle(query: string): { name: string; host: string } | null {
  const match = /^@?([a-z0-9_][a-z0-9_.-]{0,63})@((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::\d{1,5})?)$/i.exec(query.trim());
  if (!match) return null;
  const host = match[2]!.toLowerCase();
  return host === handleHost()?.toLowerCase() ? null : { name: match[1]!, host };
}

/**
 * Who `@name@host` is, asked of their server (WebFinger, then their actor, read through the
 * import's guard) and kept in remote_actors. Null when the handle is not another server's, the
 * server is blocked, or it does not answer with a person in time.
 */
export async function findRemotePerson(query: string, database: DB = db): Promise<RemotePerson | null> {
  const handle = parseRemoteHandle(query);
  if (!handle || !federationEnabled() || !env.PUBLIC_URL || (await hostIsBlocked(handle.host, database))) return null;
  // Someone looked up within the hour is not asked for again (a search page is read again after every follow).
  const known = await database
    .selectFrom("remote_actors")
    .select(["id", "handle", "name", "summary", "icon_url", "url"])
    .where(engineOf(database).equalsIgnoringCase("handle", `${handle.name}@${handle.host}`))
    .where("fetched_at", ">", Date.now() - REMOTE_PERSON_FRESH_MS)
    .executeTakeFirst();
  if (known) return known;
  const { library, ctx } = await sending(database, env.PUBLIC_URL);
  let timer: NodeJS.Timeout | undefined;
  const found = await Promise.race([
    // WebFinger and the actor are both read through the import's guard (remote-documents.server.ts).
    webFingerActor(handle.name, handle.host).then((address) => (address ? ctx.lookupObject(address) : null)).catch((error: unknown) => {
      log.info({ err: error, host: handle.host }, "federation: a handle could not be looked up");
      return null;
    }),
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), LOOKUP_TIMEOUT_MS))),
  ]).finally(() => clearTimeout(timer));
  if (!library.isActor(found) || !found.id || (await hostIsBlocked(found.id.host, database))) return null;
  const id = await rememberActor(database, found);
  if (!id) return null;
  return (await database.selectFrom("remote_actors").select(["id", "handle", "name", "summary", "icon_url", "url"]).where("id", "=", id).executeTakeFirst()) ?? null;
}

/**
 * Queues the activity that tells another server of a row just written here (a follow, a like, a
 * reply, or their end). The row and the queue are two writes (on PostgreSQL the queue is pg-boss's):
 * when the activity cannot be queued, the row is taken back and the error goes on, so nothing here
 * shows as done that their server will never hear of.
 */
async function sentOrTakenBack(send: () => Promise<void>, takeBack: () => Promise<unknown>): Promise<void> {
  try {
    await send();
  } catch (error) {
    await takeBack();
    throw error;
  }
}

/**
 * `userId` starts following the person on another server (a Follow; the follow completes when
 * their server accepts) or stops (an Undo of that Follow). Answers whether a row changed. The
 * person must be known here (found by a search) and their server not blocked.
 */
export async function setRemoteFollowing({ userId, actorId, following }: { userId: string; actorId: string; following: boolean }, database: DB = db): Promise<"changed" | "unchanged" | "unknown"> {
  if (!federationEnabled() || !env.PUBLIC_URL) return "unknown";
  const actor = await database.selectFrom("remote_actors").select(["id", "inbox", "shared_inbox", "host"]).where("id", "=", actorId).executeTakeFirst();
  if (!actor || (await hostIsBlocked(actor.host, database))) return "unknown";
  const { library, ctx } = await sending(database, env.PUBLIC_URL);
  const me = ctx.getActorUri(userId);
  const recipient = recipientOf(actor);
  if (following) {
    const followId = new URL(`#follows/${crypto.randomUUID()}`, me).href;
    const inserted = await database
      .insertInto("remote_follows")
      .values({ user_id: userId, actor_id: actor.id, follow_id: followId, accepted_at: null, created_at: Date.now() })
      .onConflict((conflict) => conflict.columns(["user_id", "actor_id"]).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return "unchanged";
    await sentOrTakenBack(
      () => ctx.sendActivity({ identifier: userId }, recipient, new library.Follow({ id: new URL(followId), actor: me, object: recipient.id })),
      () => database.deleteFrom("remote_follows").where("user_id", "=", userId).where("follow_id", "=", followId).execute(),
    );
    return "changed";
  }
  const removed = await database.deleteFrom("remote_follows").where("user_id", "=", userId).where("actor_id", "=", actor.id).returningAll().executeTakeFirst();
  if (!removed) return "unchanged";
  await sentOrTakenBack(
    () => ctx.sendActivity({ identifier: userId }, recipient, undoOfFollow(library, me, removed.follow_id, recipient.id)),
    () => database.insertInto("remote_follows").values(removed).onConflict((conflict) => conflict.columns(["user_id", "actor_id"]).doNothing()).execute(),
  );
  return "changed";
}

/**
 * Before a person's account is deleted: what tells the servers of their followers and of the
 * people they follow there that the actor is gone (`Delete` of it), to be sent once the deletion
 * has landed. Their keys and those servers are read now, while they exist; the queue delivers.
 * Null when there is nobody elsewhere to tell. Never throws.
 */
export async function accountDeletionNotice(userId: string, database: DB = db): Promise<(() => Promise<void>) | null> {
  if (!federationEnabled() || !env.PUBLIC_URL) return null;
  const publicUrl = env.PUBLIC_URL;
  try {
    const actorsOf = (table: "remote_followers" | "remote_follows") => database.selectFrom(table).select("actor_id").where("user_id", "=", userId);
    const rows = await database
      .selectFrom("remote_actors")
      .select(["id", "inbox", "shared_inbox", "host"])
      .where((eb) => eb.or([eb("id", "in", actorsOf("remote_followers")), eb("id", "in", actorsOf("remote_follows"))]))
      .execute();
    const blocked = (await blockedDomains(database)).map((row) => row.domain);
    const seen = new Set<string>();
    const recipients = rows.filter((row) => !isBlockedHost(row.host, blocked) && !seen.has(row.id) && seen.add(row.id)).map(recipientOf);
    if (recipients.length === 0) return null;
    const { library, ctx } = await sending(database, publicUrl);
    const keys = (await ctx.getActorKeyPairs(userId)).map(({ keyId, privateKey }) => ({ keyId, privateKey }));
    if (keys.length === 0) return null;
    const me = ctx.getActorUri(userId);
    const deletion = new library.Delete({ id: new URL(`#delete/${crypto.randomUUID()}`, me), actor: me, to: library.PUBLIC_COLLECTION, object: me });
    return () =>
      ctx.sendActivity(keys, recipients, deletion, { preferSharedInbox: true }).catch((error: unknown) => {
        log.warn({ err: error, userId }, "federation: an account's deletion could not be sent elsewhere");
      });
  } catch (error) {
    log.warn({ err: error, userId }, "federation: an account's deletion could not be prepared");
    return null;
  }
}

/** A post from elsewhere kept here, with its author to send to; none from a blocked server. */
async function answerablePost(postId: string, database: DB) {
  const post = await database
    .selectFrom("remote_posts as p")
    .innerJoin("remote_actors as a", "a.id", "p.actor_id")
    .select(["p.id", "a.id as actor_id", "a.inbox", "a.shared_inbox", "a.host"])
    .where("p.id", "=", postId)
    .executeTakeFirst();
  if (!post || (await hostIsBlocked(post.host, database))) return null;
  return { id: post.id, author: { id: post.actor_id, inbox: post.inbox, shared_inbox: post.shared_inbox } };
}

/**
 * `userId` likes (a Like) or stops liking (an Undo of it) a post from another server shown to them,
 * delivered to its author's server. Answers whether a row changed, or "unknown" for a post not
 * kept here or from a blocked server.
 */
export async function setRemotePostLiked({ userId, postId, liked }: { userId: string; postId: string; liked: boolean }, database: DB = db): Promise<"changed" | "unchanged" | "unknown"> {
  if (!federationEnabled() || !env.PUBLIC_URL) return "unknown";
  const post = await answerablePost(postId, database);
  if (!post) return "unknown";
  const { library, ctx } = await sending(database, env.PUBLIC_URL);
  const me = ctx.getActorUri(userId);
  const recipient = recipientOf(post.author);
  if (liked) {
    const likeId = new URL(`#likes/${crypto.randomUUID()}`, me).href;
    const inserted = await database
      .insertInto("remote_post_likes")
      .values({ user_id: userId, post_id: post.id, like_id: likeId, created_at: Date.now() })
      .onConflict((conflict) => conflict.columns(["user_id", "post_id"]).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return "unchanged";
    await sentOrTakenBack(
      () => ctx.sendActivity({ identifier: userId }, recipient, new library.Like({ id: new URL(likeId), actor: me, object: new URL(post.id) })),
      () => database.deleteFrom("remote_post_likes").where("user_id", "=", userId).where("like_id", "=", likeId).execute(),
    );
    return "changed";
  }
  const removed = await database.deleteFrom("remote_post_likes").where("user_id", "=", userId).where("post_id", "=", post.id).returningAll().executeTakeFirst();
  if (!removed) return "unchanged";
  const undo = new library.Undo({ id: new URL(`#undo/${crypto.randomUUID()}`, me), actor: me, object: new library.Like({ id: new URL(removed.like_id), actor: me, object: new URL(post.id) }) });
  await sentOrTakenBack(
    () => ctx.sendActivity({ identifier: userId }, recipient, undo),
    () => database.insertInto("remote_post_likes").values(removed).onConflict((conflict) => conflict.columns(["user_id", "post_id"]).doNothing()).execute(),
  );
  return "changed";
}

/**
 * `userId` blocks or mutes a person on another server (or lifts it). A block ends follows both
 * ways (their server is sent an Undo of ours; their follow of `userId` ends, so nothing more goes
 * to them) and takes their likes and replies off `userId`'s posts; from then on none is accepted.
 * A mute only keeps their posts off `userId`'s Home. Answers "unknown" for someone not known here.
 */
export async function setRemoteBlocked(
  { userId, actorId, kind, on }: { userId: string; actorId: string; kind: "block" | "mute"; on: boolean },
  database: DB = db,
): Promise<"changed" | "unchanged" | "unknown"> {
  const actor = await database.selectFrom("remote_actors").select(["id", "inbox", "shared_inbox"]).where("id", "=", actorId).executeTakeFirst();
  if (!actor) return "unknown";
  if (!on) {
    const removed = await database.deleteFrom("remote_blocks").where("user_id", "=", userId).where("actor_id", "=", actor.id).where("kind", "=", kind).executeTakeFirst();
    return Number(removed.numDeletedRows) > 0 ? "changed" : "unchanged";
  }
  if (kind === "mute") {
    const added = await database
      .insertInto("remote_blocks")
      .values({ user_id: userId, actor_id: actor.id, kind, created_at: Date.now() })
      .onConflict((conflict) => conflict.columns(["user_id", "actor_id", "kind"]).doNothing())
      .executeTakeFirst();
    return Number(added.numInsertedOrUpdatedRows ?? 0) > 0 ? "changed" : "unchanged";
  }
  // The recipes whose pages show their likes or replies on this person's posts: renewed with the block.
  const touched = await database
    .selectFrom("posts as p")
    .select("p.recipe_id")
    .where("p.created_by", "=", userId)
    .where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom("remote_likes as l").select("l.post_id").whereRef("l.post_id", "=", "p.id").where("l.actor_id", "=", actor.id)),
        eb.exists(eb.selectFrom("remote_comments as c").select("c.post_id").whereRef("c.post_id", "=", "p.id").where("c.actor_id", "=", actor.id)),
      ]),
    )
    .execute();
  const result = await changing(
    touched.map((row) => (row.recipe_id ? CacheScope.recipe(row.recipe_id) : null)),
    async (trx) => {
      const added = await trx
        .insertInto("remote_blocks")
        .values({ user_id: userId, actor_id: actor.id, kind, created_at: Date.now() })
        .onConflict((conflict) => conflict.columns(["user_id", "actor_id", "kind"]).doNothing())
        .executeTakeFirst();
      if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0) return { changed: false, followId: null };
      await trx.deleteFrom("remote_followers").where("user_id", "=", userId).where("actor_id", "=", actor.id).execute();
      const ownPosts = trx.selectFrom("posts").select("id").where("created_by", "=", userId);
      await trx.deleteFrom("remote_likes").where("actor_id", "=", actor.id).where("post_id", "in", ownPosts).execute();
      await trx.deleteFrom("remote_comments").where("actor_id", "=", actor.id).where("post_id", "in", ownPosts).execute();
      const follow = await trx.deleteFrom("remote_follows").where("user_id", "=", userId).where("actor_id", "=", actor.id).returning("follow_id").executeTakeFirst();
      return { changed: true, followId: follow?.follow_id ?? null };
    },
    database,
  );
  if (result.followId && federationEnabled() && env.PUBLIC_URL) {
    // Their server hears only that the follow ended (as Mastodon does), not that they were blocked.
    const { library, ctx } = await sending(database, env.PUBLIC_URL);
    const me = ctx.getActorUri(userId);
    const recipient = recipientOf(actor);
    await ctx.sendActivity({ identifier: userId }, recipient, undoOfFollow(library, me, result.followId, recipient.id)).catch((error: unknown) => log.warn({ err: error, userId }, "federation: an Undo of a follow could not be sent"));
  }
  return result.changed ? "changed" : "unchanged";
}

/**
 * `userId` replies to a post from another server shown to them: kept here (they see it under the
 * post) and sent to its author's server as a `Create` of a Note answering it. Null for a post not
 * kept here or from a blocked server.
 */
export async function replyToRemotePost({ userId, postId, text }: { userId: string; postId: string; text: string }, database: DB = db): Promise<{ id: string } | null> {
  if (!federationEnabled() || !env.PUBLIC_URL) return null;
  const post = await answerablePost(postId, database);
  if (!post) return null;
  const { library, ctx } = await sending(database, env.PUBLIC_URL);
  const id = ctx.getObjectUri(library.Note, { id: `${REPLY_PREFIX}${crypto.randomUUID()}` }).href;
  await database.insertInto("remote_post_replies").values({ id, user_id: userId, post_id: post.id, text, created_at: Date.now() }).execute();
  const reply = await replyRow(database, id);
  const takeBack = () => database.deleteFrom("remote_post_replies").where("id", "=", id).execute();
  if (!reply) {
    // Not to be sent (its writer is suspended): not kept either.
    await takeBack();
    return null;
  }
  const note = replyNote(library, ctx, reply);
  const me = ctx.getActorUri(userId);
  const create = new library.Create({ id: new URL(`${id}#create`), actor: me, to: library.PUBLIC_COLLECTION, cc: new URL(post.author.id), object: note });
  await sentOrTakenBack(
    () => ctx.sendActivity({ identifier: userId }, recipientOf(post.author), create),
    takeBack,
  );
  return { id };
}
