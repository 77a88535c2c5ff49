import { sql } from "kysely";

import { db, type DB } from "../db/connection.server";
import type { NotificationKind } from "../db/schema.server";
import { nowIso } from "./seq.server";
import { shownPerson } from "./visibility.server";

// Notifications (docs/rules.md#notifications): what is stored and read. Who is told of what is the
// services' rule (services/notifications-service.server.ts).

/** The most the navigation counts; more shows as "99+". */
export const UNREAD_COUNT_CAP = 100;

/** The unread count shown in the navigation, up to UNREAD_COUNT_CAP (one short index range). */
export async function countUnread(userId: string, { without = [] }: { without?: readonly string[] } = {}, database: DB = db): Promise<number> {
  const row = await database
    .selectFrom((eb) =>
      eb
        .selectFrom("notifications")
        .select("id")
        .where("user_id", "=", userId)
        .where("read_at", "is", null)
        .where(shownPerson("notifications.actor_id", without))
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
  /** The photo of what it is about (the post's, else the recipe's); null for a follow. */
  photo: string | null;
  /** The comment's words, for a comment still there. */
  comment_text: string | null;
  /** The reader follows the actor already (what "Follow back" needs). */
  actor_followed: boolean;
}

/** A person's notifications, newest first, but none by the people in `without` (their lens). */
export async function listNotifications(
  userId: string,
  { offset, limit, without = [] }: { offset: number; limit: number; without?: readonly string[] },
  database: DB = db,
): Promise<NotificationRow[]> {
  const rows = await database
    .selectFrom("notifications as n")
    .leftJoin("users as a", "a.id", "n.actor_id")
    .leftJoin("posts as p", "p.id", "n.post_id")
    .leftJoin("recipes as r", "r.id", "n.recipe_id")
    .leftJoin("comments as c", "c.id", "n.comment_id")
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
      "p.photo as post_photo",
      "r.photo as recipe_photo",
      "c.text as comment_text",
      (eb) =>
        eb
          .selectFrom("follows as f")
          .select(sql<number>`1`.as("one"))
          .where("f.follower_id", "=", userId)
          .whereRef("f.followee_id", "=", "n.actor_id")
          .as("actor_followed"),
    ])
    .where("n.user_id", "=", userId)
    .where(shownPerson("n.actor_id", without))
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
    photo: row.kind === "follow" || row.kind === "report" ? null : row.post_photo || row.recipe_photo || null,
    comment_text: row.comment_text ?? null,
    actor_followed: row.actor_followed !== null,
  }));
}

/** Marks the person's own notifications read: the given ones, or all. Answers how many changed. */
export async function markRead(userId: string, ids: readonly string[] | "all", { without = [] }: { without?: readonly string[] } = {}, database: DB = db): Promise<number> {
  if (ids !== "all" && ids.length === 0) return 0;
  // Notifications the reader is not shown (their lens) stay unread for when they are shown again.
  let query = database
    .updateTable("notifications")
    .set({ read_at: nowIso() })
    .where("user_id", "=", userId)
    .where("read_at", "is", null)
    .where(shownPerson("notifications.actor_id", without));
  if (ids !== "all") query = query.where("id", "in", [...ids]);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
