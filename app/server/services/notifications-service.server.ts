import crypto from "node:crypto";

import { sql } from "kysely";
import { z } from "zod";

import { paths } from "~/lib/paths";
import { isAdmin } from "~/lib/permissions";
import { REPORT_MESSAGES } from "~/lib/reports";

import { engineOf, type DB } from "../db/connection.server";
import type { NotificationKind } from "../db/schema.server";
import { nextSeq, nowIso } from "../queries/seq.server";
import { countUnread, listNotifications, markRead, type NotificationRow } from "../queries/notifications.server";
import { readLens } from "../queries/visibility.server";
import { done, refusal, type Actor, type Outcome } from "./outcome-service.server";

// Notifications (docs/rules.md#notifications): who is told of what, and reading one's own. The
// services whose writes cause them (a like, a comment, a follow, a save) call `notify` in their
// transaction when the write changed something, and `withdraw` when they undo it. Never for one's
// own post, recipe or self; undoing removes the notification only while it is unread. Reading:
// grouped the way a person would say them, and marked read — only ever the actor's own.

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

/** Who a notification goes to and what it links to (what `aboutOf` reads). */
export interface About {
  recipient: string | null;
  post_id: string | null;
  recipe_id: string | null;
}

/**
 * Tells the target's owner that `actorId` did `kind` (nothing when it is the actor's own, or has no
 * owner). A caller that has already read who that is passes it as `about` and saves a query.
 */
export async function notify(
  { kind, actorId, target, commentId = null, about: known }: { kind: NotificationKind; actorId: string; target: Target; commentId?: string | null; about?: About },
  database: DB,
): Promise<void> {
  const about = known ?? (await aboutOf(database, target).executeTakeFirst());
  if (!about?.recipient || about.recipient === actorId) return;
  const recipientId = about.recipient;
  // Nobody reads its answer: on PostgreSQL it goes with the write's commit.
  const insert = database
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
      seq: nextSeq(database, "notifications", recipientId),
    })
    .compile();
  await engineOf(database).writers.withCommit(database, insert);
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
  await engineOf(database).writers.withCommit(database, query.compile());
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

export const NOTIFICATIONS_PAGE_SIZE = 30;

export const NOTIFICATION_MESSAGES = {
  badIds: "Please choose notifications of your own.",
} as const;

/** Notifications about the same thing, newest first: "danieljacob and 3 others liked …". */
export interface NotificationGroup {
  key: string;
  kind: NotificationKind;
  /** The newest first; null for a deleted account ('Unknown User'). */
  actors: Array<{ id: string; username: string; profile: string } | null>;
  /** How many notifications the group holds (one per action). */
  count: number;
  ids: string[];
  unread: boolean;
  created_at: string;
  /** What it is about: a recipe's name, or null for a follow. */
  subject: string | null;
  href: string;
  text: string;
  /** A thumbnail of the recipe it is about; null for a follow. */
  photo: string | null;
  /** The newest comment's words, cut to a line or two; null when not a comment (or it was removed). */
  preview: string | null;
  /** A follow's new followers, newest first (at most three), and whether the reader follows them: "Follow back". */
  followers: Array<{ id: string; username: string; following: boolean }>;
}

/** The most of a comment a notification shows. */
export const COMMENT_PREVIEW_LENGTH = 120;
const FOLLOWERS_MOST = 3;

function previewOf(text: string | null): string | null {
  if (!text) return null;
  const flat = text.replace(/\s+/g, " ").trim();
  // Counted in characters as people see them (an emoji is one), so none is cut in half.
  const characters = [...flat];
  if (characters.length <= COMMENT_PREVIEW_LENGTH) return flat;
  return `${characters.slice(0, COMMENT_PREVIEW_LENGTH - 1).join("").trimEnd()}…`;
}

const VERBS: Record<NotificationKind, string> = {
  like: "liked",
  comment: "commented on",
  follow: "started following you",
  save: "saved",
  report: "",
  cooked: "made",
};

function actorName(actor: NotificationGroup["actors"][number]): string {
  return actor?.username ?? "Unknown User";
}

/** "anna", "anna and ben", "anna and 3 others" (distinct people; the same person twice counts once). */
export function whoDidIt(actors: NotificationGroup["actors"]): string {
  const seen = new Set<string>();
  const people = actors.filter((actor) => {
    const key = actor?.id ?? "unknown";
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const [first, second] = people;
  if (people.length === 1) return actorName(first!);
  if (people.length === 2) return `${actorName(first!)} and ${actorName(second!)}`;
  return `${actorName(first!)} and ${people.length - 1} others`;
}

function groupKey(row: NotificationRow): string {
  if (row.kind === "follow") return "follow";
  if (row.kind === "report") return `report:${row.id}`;
  return `${row.kind}:${row.post?.id ?? row.recipe?.id ?? row.id}`;
}

function hrefOf(row: NotificationRow, viewerId: string): string {
  if (row.kind === "follow") return row.actor ? paths.profile(row.actor.id) : paths.profileFollowers(viewerId);
  if (row.kind === "comment" && row.recipe) return `${paths.recipe(row.recipe.id)}${row.comment_id ? `#comment-${row.comment_id}` : "#comments"}`;
  if (row.kind === "like" && row.post && row.post.owner_id) return paths.post(row.post.owner_id, row.post.id);
  if (row.kind === "cooked" && row.recipe) return `${paths.recipe(row.recipe.id)}#cooked`;
  if (row.recipe) return paths.recipe(row.recipe.id);
  return paths.notifications();
}

/** Groups one page of notifications (newest first) by what they are about. */
export function groupNotifications(rows: readonly NotificationRow[], viewerId: string): NotificationGroup[] {
  const groups = new Map<string, NotificationGroup>();
  for (const row of rows) {
    const key = groupKey(row);
    const group = groups.get(key);
    const follower = row.kind === "follow" && row.actor ? { id: row.actor.id, username: row.actor.username, following: row.actor_followed } : null;
    if (group) {
      if (follower && group.followers.length < FOLLOWERS_MOST && !group.followers.some((person) => person.id === follower.id)) group.followers.push(follower);
      group.actors.push(row.actor);
      group.ids.push(row.id);
      group.count += 1;
      group.unread ||= !row.read;
      continue;
    }
    groups.set(key, {
      key,
      kind: row.kind,
      actors: [row.actor],
      count: 1,
      ids: [row.id],
      unread: !row.read,
      created_at: row.created_at,
      subject: row.kind === "follow" || row.kind === "report" ? null : (row.recipe?.name ?? row.post?.title ?? null),
      href: hrefOf(row, viewerId),
      text: "",
      photo: row.photo,
      preview: row.kind === "comment" ? previewOf(row.comment_text) : null,
      followers: follower ? [follower] : [],
    });
  }
  for (const group of groups.values()) {
    const who = whoDidIt(group.actors);
    if (group.kind === "report") group.text = REPORT_MESSAGES.resolved;
    else group.text = group.kind === "follow" ? `${who} ${VERBS.follow}` : `${who} ${VERBS[group.kind]} ${group.subject ?? "your recipe"}`;
  }
  return [...groups.values()];
}

export interface NotificationsPage {
  groups: NotificationGroup[];
  /** The ids shown on this page: what opening it marks read. */
  ids: string[];
  unread: number;
  page: number;
  hasMore: boolean;
}

/** One page of the actor's notifications, grouped. */
export async function getNotificationsPage({ actor, page }: { actor: Actor; page: number }): Promise<NotificationsPage> {
  // Blocked and muted people's notifications stay stored (an unblock or unmute brings them back) but are not shown.
  const { quiet: without } = await readLens(actor.id, { admin: isAdmin(actor) });
  const rows = await listNotifications(actor.id, { offset: (page - 1) * NOTIFICATIONS_PAGE_SIZE, limit: NOTIFICATIONS_PAGE_SIZE + 1, without });
  const shown = rows.slice(0, NOTIFICATIONS_PAGE_SIZE);
  return {
    groups: groupNotifications(shown, actor.id),
    ids: shown.map((row) => row.id),
    unread: await countUnread(actor.id, { without }),
    page,
    hasMore: rows.length > NOTIFICATIONS_PAGE_SIZE,
  };
}

const IdsSchema = z.array(z.string().min(1).max(100)).max(500);

/** Marks the actor's notifications read: the given ids (others' ids are ignored: they are not the actor's), or all. */
export async function readNotifications({ actor, ids }: { actor: Actor; ids: unknown }): Promise<Outcome<{ unread: number; marked: number }>> {
  let chosen: string[] | "all" = "all";
  if (ids !== undefined) {
    const parsed = IdsSchema.safeParse(ids);
    if (!parsed.success) return refusal(400, NOTIFICATION_MESSAGES.badIds, { errors: { ids: NOTIFICATION_MESSAGES.badIds } });
    chosen = parsed.data;
  }
  const { quiet: without } = await readLens(actor.id, { admin: isAdmin(actor) });
  const marked = await markRead(actor.id, chosen, { without });
  return done({ marked, unread: await countUnread(actor.id, { without }) });
}

export { countUnread };
