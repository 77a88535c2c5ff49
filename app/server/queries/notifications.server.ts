import crypto from "node:crypto";

import { sql } from "kysely";

import { db, type DB } from "../db/connection.server";
import type { NotificationKind } from "../db/schema.server";
import { nextSeq, nowIso } from "./seq.server";

// Notifications (docs/rules.md#notifications) are written by the writes that cause them, in their
// transaction: the like, comment, follow and save functions call `notify` when they change
// something and `withdraw` when they undo it. Never for one's own post, recipe or self; undoing
// removes the notification only while it is unread.

/** The most the navigation counts; more shows as "99+". */
export const UNREAD_COUNT_CAP = 100;

type Target = { postId: string } | { recipeId: string } | { userId: string };

/**
 * What a notification about `target` is about, in one read: who it goes to (the post's or recipe's
 * creator, or the person followed), and the post and recipe it links to.
 */
function aboutOf(database: DB, target: Target) {
  if ("postId" in target) {
    return database.selectFrom("posts").select(["created_by as recipient", "id as post_id", "recipe_id"]).where("id", "=", target.postId);
  }
  if ("recipeId" in target) {
    return database
      .selectFrom("recipes as r")
      .leftJoin("posts as p", "p.recipe_id", "r.id")
      .select(["r.user_created as recipient", "p.id as post_id", "r.id as recipe_id"])
      .where("r.id", "=", target.recipeId);
  }
  return database.selectFrom("users").select(["id as recipient", sql<null>`null`.as("post_id"), sql<null>`null`.as("recipe_id")]).where("id", "=", target.userId);
}

/** Tells the target's owner that `actorId` did `kind` (nothing when it is the actor's own, or has no owner). */
export async function notify(
  { kind, actorId, target, commentId = null }: { kind: NotificationKind; actorId: string; target: Target; commentId?: string | null },
  database: DB,
): Promise<void> {
  const about = await aboutOf(database, target).executeTakeFirst();
  if (!about?.recipient || about.recipient === actorId) return;
  const recipientId = about.recipient;
  await database
    .insertInto("notifications")
    .values({
      id: crypto.randomUUID(),
      user_id: recipientId,
      actor_id: actorId,
      kind,
      post_id: about.post_id,
      recipe_id: about.recipe_id,
      comment_id: commentId,
      created_at: nowIso(),
      read_at: null,
      seq: nextSeq("notifications", recipientId),
    })
    .execute();
}

/** Undoes `notify` for an undone action, while the notification is unread. */
export async function withdraw(
  { kind, actorId, target }: { kind: Exclude<NotificationKind, "comment">; actorId: string; target: Target },
  database: DB,
): Promise<void> {
  let query = database.deleteFrom("notifications").where("kind", "=", kind).where("actor_id", "=", actorId).where("read_at", "is", null);
  if ("postId" in target) query = query.where("post_id", "=", target.postId);
  else if ("recipeId" in target) query = query.where("recipe_id", "=", target.recipeId);
  else query = query.where("user_id", "=", target.userId);
  await query.execute();
}

/**
 * A removed comment takes its notification with it while unread (a read one stays, without the
 * comment). Only the comment of that post: a removal naming the wrong post removes nothing.
 */
export async function withdrawComment({ postId, commentId }: { postId: string; commentId: string }, database: DB): Promise<void> {
  await database
    .deleteFrom("notifications")
    .where("comment_id", "=", commentId)
    .where("post_id", "=", postId)
    .where("read_at", "is", null)
    .execute();
}

/** The unread count shown in the navigation, up to UNREAD_COUNT_CAP (one short index range). */
export async function countUnread(userId: string, database: DB = db): Promise<number> {
  const row = await database
    .selectFrom((eb) =>
      eb
        .selectFrom("notifications")
        .select("id")
        .where("user_id", "=", userId)
        .where("read_at", "is", null)
        .limit(UNREAD_COUNT_CAP)
        .as("unread"),
    )
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface NotificationRow {
  id: string;
  kind: NotificationKind;
  created_at: string;
  read: boolean;
  actor: { id: string; username: string; profile: string } | null;
  post: { id: string; title: string; owner_id: string | null } | null;
  recipe: { id: string; name: string } | null;
  comment_id: string | null;
}

/** A person's notifications, newest first. */
export async function listNotifications(
  userId: string,
  { offset, limit }: { offset: number; limit: number },
  database: DB = db,
): Promise<NotificationRow[]> {
  const rows = await database
    .selectFrom("notifications as n")
    .leftJoin("users as a", "a.id", "n.actor_id")
    .leftJoin("posts as p", "p.id", "n.post_id")
    .leftJoin("recipes as r", "r.id", "n.recipe_id")
    .select([
      "n.id",
      "n.kind",
      "n.created_at",
      "n.read_at",
      "n.comment_id",
      "a.id as actor_id",
      "a.username as actor_username",
      "a.profile as actor_profile",
      "p.id as post_id",
      "p.title as post_title",
      "p.created_by as post_owner",
      "r.id as recipe_id",
      "r.name as recipe_name",
    ])
    .where("n.user_id", "=", userId)
    .orderBy("n.seq", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    created_at: row.created_at,
    read: row.read_at !== null,
    actor: row.actor_id && row.actor_username ? { id: row.actor_id, username: row.actor_username, profile: row.actor_profile ?? "" } : null,
    post: row.post_id ? { id: row.post_id, title: row.post_title ?? "", owner_id: row.post_owner ?? null } : null,
    recipe: row.recipe_id ? { id: row.recipe_id, name: row.recipe_name ?? "" } : null,
    comment_id: row.comment_id,
  }));
}

/** Marks the person's own notifications read: the given ones, or all. Answers how many changed. */
export async function markRead(userId: string, ids: readonly string[] | "all", database: DB = db): Promise<number> {
  if (ids !== "all" && ids.length === 0) return 0;
  let query = database.updateTable("notifications").set({ read_at: nowIso() }).where("user_id", "=", userId).where("read_at", "is", null);
  if (ids !== "all") query = query.where("id", "in", [...ids]);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
