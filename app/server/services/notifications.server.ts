import { z } from "zod";

import { paths } from "~/lib/paths";

import type { NotificationKind } from "../db/schema.server";
import { countUnread, listNotifications, markRead, type NotificationRow } from "../queries/notifications.server";
import { done, refusal, type Actor, type Outcome } from "./outcome.server";

// Reading one's notifications (docs/rules.md#notifications). They are written by the writes that
// cause them (queries/notifications.server.ts); here they are read, grouped the way a person
// would say them, and marked read — only ever the actor's own.

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
}

const VERBS: Record<NotificationKind, string> = {
  like: "liked",
  comment: "commented on",
  follow: "started following you",
  save: "saved",
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
  return `${row.kind}:${row.post?.id ?? row.recipe?.id ?? row.id}`;
}

function hrefOf(row: NotificationRow, viewerId: string): string {
  if (row.kind === "follow") return row.actor ? paths.profile(row.actor.id) : paths.profileFollowers(viewerId);
  if (row.kind === "comment" && row.recipe) return `${paths.recipe(row.recipe.id)}${row.comment_id ? `#comment-${row.comment_id}` : "#comments"}`;
  if (row.kind === "like" && row.post && row.post.owner_id) return paths.post(row.post.owner_id, row.post.id);
  if (row.recipe) return paths.recipe(row.recipe.id);
  return paths.notifications();
}

/** Groups one page of notifications (newest first) by what they are about. */
export function groupNotifications(rows: readonly NotificationRow[], viewerId: string): NotificationGroup[] {
  const groups = new Map<string, NotificationGroup>();
  for (const row of rows) {
    const key = groupKey(row);
    const group = groups.get(key);
    if (group) {
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
      subject: row.kind === "follow" ? null : (row.recipe?.name ?? row.post?.title ?? null),
      href: hrefOf(row, viewerId),
      text: "",
    });
  }
  for (const group of groups.values()) {
    const who = whoDidIt(group.actors);
    group.text = group.kind === "follow" ? `${who} ${VERBS.follow}` : `${who} ${VERBS[group.kind]} ${group.subject ?? "your recipe"}`;
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
  const rows = await listNotifications(actor.id, { offset: (page - 1) * NOTIFICATIONS_PAGE_SIZE, limit: NOTIFICATIONS_PAGE_SIZE + 1 });
  const shown = rows.slice(0, NOTIFICATIONS_PAGE_SIZE);
  return {
    groups: groupNotifications(shown, actor.id),
    ids: shown.map((row) => row.id),
    unread: await countUnread(actor.id),
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
  const marked = await markRead(actor.id, chosen);
  return done({ marked, unread: await countUnread(actor.id) });
}

export { countUnread };
