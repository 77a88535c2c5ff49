import crypto from "node:crypto";

import { isRemoteKind, type RemoteReportKind, type ReportKind, type ReportReason } from "~/lib/reports";

import { db, type DB } from "../db/connection.server";
import { nextSeq, nowIso } from "./seq.server";

// Reports and the moderation log as stored (docs/rules.md#reports-and-moderation). Who may file
// or act on them is the moderation service's rule (services/moderation-service.server.ts).

/** What a report is about, as it is now: whose it is, a short description and where it lives. */
export interface ReportTarget {
  kind: ReportKind;
  id: string;
  ownerId: string | null;
  ownerName: string | null;
  /** The recipe's name, the comment's text, the username, or an "I made this" entry's note. */
  label: string;
  /** The recipe it is (or its comment is) on. */
  recipeId: string | null;
  /** Whose recipe a comment or an "I made this" entry is on (for a post, its own author). */
  postOwnerId: string | null;
  /** For what comes from another server (its owner has no account here): its author, their server and where it is read there. */
  remote?: { actorId: string; host: string; url: string };
}

/** A person on another server, a post of theirs, or their reply under a recipe here, as a report target. */
async function getRemoteReportTarget(kind: RemoteReportKind, id: string, database: DB): Promise<ReportTarget | undefined> {
  if (kind === "remote_user") {
    const row = await database.selectFrom("remote_actors").select(["id", "handle", "host", "url"]).where("id", "=", id).executeTakeFirst();
    return row && { kind, id, ownerId: null, ownerName: `@${row.handle}`, label: row.handle, recipeId: null, postOwnerId: null, remote: { actorId: row.id, host: row.host, url: row.url ?? row.id } };
  }
  if (kind === "remote_post") {
    const row = await database
      .selectFrom("remote_posts as p")
      .innerJoin("remote_actors as a", "a.id", "p.actor_id")
      .select(["p.actor_id", "p.url", "p.name", "p.text", "a.handle", "a.host"])
      .where("p.id", "=", id)
      .executeTakeFirst();
    return row && { kind, id, ownerId: null, ownerName: `@${row.handle}`, label: row.name || row.text.slice(0, 200), recipeId: null, postOwnerId: null, remote: { actorId: row.actor_id, host: row.host, url: row.url } };
  }
  const row = await database
    .selectFrom("remote_comments as c")
    .innerJoin("posts as p", "p.id", "c.post_id")
    .innerJoin("remote_actors as a", "a.id", "c.actor_id")
    .select(["c.actor_id", "c.url", "c.text", "p.recipe_id", "p.created_by", "a.handle", "a.host"])
    .where("c.id", "=", id)
    .executeTakeFirst();
  return row && { kind, id, ownerId: null, ownerName: `@${row.handle}`, label: row.text, recipeId: row.recipe_id, postOwnerId: row.created_by, remote: { actorId: row.actor_id, host: row.host, url: row.url } };
}

/** The target as it is now; undefined when it is gone. */
export async function getReportTarget(kind: ReportKind, id: string, database: DB = db): Promise<ReportTarget | undefined> {
  if (isRemoteKind(kind)) return getRemoteReportTarget(kind, id, database);
  if (kind === "post") {
    const row = await database
      .selectFrom("posts as p")
      .leftJoin("users as u", "u.id", "p.created_by")
      .select(["p.id", "p.created_by", "p.title", "p.recipe_id", "u.username"])
      .where("p.id", "=", id)
      .executeTakeFirst();
    return row && { kind, id, ownerId: row.created_by, ownerName: row.username, label: row.title, recipeId: row.recipe_id, postOwnerId: row.created_by };
  }
  if (kind === "comment") {
    const row = await database
      .selectFrom("comments as c")
      .innerJoin("posts as p", "p.id", "c.post_id")
      .leftJoin("users as u", "u.id", "c.user_id")
      .select(["c.id", "c.user_id", "c.text", "p.recipe_id", "p.created_by", "u.username"])
      .where("c.id", "=", id)
      .executeTakeFirst();
    return row && { kind, id, ownerId: row.user_id, ownerName: row.username, label: row.text, recipeId: row.recipe_id, postOwnerId: row.created_by };
  }
  if (kind === "cook") {
    const row = await database
      .selectFrom("cooks as c")
      .innerJoin("recipes as r", "r.id", "c.recipe_id")
      .leftJoin("users as u", "u.id", "c.user_id")
      .select(["c.user_id", "c.note", "c.recipe_id", "r.name", "r.user_created", "u.username"])
      .where("c.id", "=", id)
      .executeTakeFirst();
    const label = row && (row.note || `Made “${row.name}”`);
    return row && { kind, id, ownerId: row.user_id, ownerName: row.username, label: label!, recipeId: row.recipe_id, postOwnerId: row.user_created };
  }
  const row = await database.selectFrom("users").select(["id", "username"]).where("id", "=", id).executeTakeFirst();
  return row && { kind, id, ownerId: row.id, ownerName: row.username, label: row.username, recipeId: null, postOwnerId: null };
}

/** Whether a target has open reports: anyone's, or with `reporterId` that person's (read in the writer's transaction). */
export async function hasOpenReports(
  { kind, targetId, reporterId }: { kind: ReportKind; targetId: string; reporterId?: string },
  database: DB = db,
): Promise<boolean> {
  let query = database.selectFrom("reports").select("id").where("target_kind", "=", kind).where("target_id", "=", targetId).where("resolved_at", "is", null);
  if (reporterId !== undefined) query = query.where("reporter_id", "=", reporterId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function countReportsSince(reporterId: string, since: string, database: DB = db): Promise<number> {
  const row = await database
    .selectFrom("reports")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("reporter_id", "=", reporterId)
    .where("created_at", ">", since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertReport(
  { reporterId, target, reason, text }: { reporterId: string; target: ReportTarget; reason: ReportReason; text: string },
  database: DB,
): Promise<string> {
  const id = crypto.randomUUID();
  await database
    .insertInto("reports")
    .values({
      id,
      reporter_id: reporterId,
      target_kind: target.kind,
      target_id: target.id,
      target_user_id: target.ownerId,
      reason,
      text,
      created_at: nowIso(),
      resolved_at: null,
      resolution: null,
      seq: nextSeq(database, "reports"),
    })
    .execute();
  return id;
}

export interface OpenReport {
  id: string;
  target_kind: ReportKind;
  target_id: string;
  target_user_id: string | null;
  reason: ReportReason;
  text: string;
  created_at: string;
  reporter: string | null;
}

/** Every open report, newest first, with its reporter's username. */
export async function listOpenReports(database: DB = db): Promise<OpenReport[]> {
  const rows = await database
    .selectFrom("reports as r")
    .leftJoin("users as u", "u.id", "r.reporter_id")
    .select(["r.id", "r.target_kind", "r.target_id", "r.target_user_id", "r.reason", "r.text", "r.created_at", "u.username as reporter"])
    .where("r.resolved_at", "is", null)
    .orderBy("r.seq", "desc")
    .limit(2000)
    .execute();
  return rows as OpenReport[];
}

/**
 * Closes the open reports of a target (or, with `ownerId`, of everything of that person) and
 * answers who filed them; none when another moderator was first.
 */
export async function resolveReports(
  { kind, targetId, ownerId, resolution }: { kind: ReportKind; targetId: string; ownerId?: string; resolution: string },
  database: DB,
): Promise<string[]> {
  // One conditional update decides: a second moderator's update of the same reports waits for
  // the first and then finds them closed (docs/scaling.md, "How writers meet").
  let update = database.updateTable("reports").set({ resolved_at: nowIso(), resolution }).where("resolved_at", "is", null);
  update = ownerId ? update.where((eb) => eb.or([eb("target_user_id", "=", ownerId), eb.and([eb("target_kind", "=", kind), eb("target_id", "=", targetId)])])) : update.where("target_kind", "=", kind).where("target_id", "=", targetId);
  const closed = await update.returning("reporter_id").execute();
  return [...new Set(closed.map((row) => row.reporter_id))];
}

/** `block-domain` is for what came from another server; the last four are the operator's command line's (app/server/ops/admin-commands.server.ts). */
export type ModerationAction = "dismiss" | "remove" | "suspend" | "block-domain" | "unsuspend" | "password-reset" | "password-set" | "create-admin" | "promote" | "demote";

export async function writeLog(
  entry: { moderatorId: string | null; action: ModerationAction; kind: ReportKind; targetId: string; targetUserId: string | null; summary: string; why: string },
  database: DB,
): Promise<void> {
  await database
    .insertInto("moderation_log")
    .values({
      id: crypto.randomUUID(),
      moderator_id: entry.moderatorId,
      action: entry.action,
      target_kind: entry.kind,
      target_id: entry.targetId,
      target_user_id: entry.targetUserId,
      summary: entry.summary.slice(0, 200),
      why: entry.why,
      created_at: nowIso(),
      seq: nextSeq(database, "moderation_log"),
    })
    .execute();
}

export interface LogEntry {
  id: string;
  action: ModerationAction;
  target_kind: ReportKind;
  target_id: string;
  summary: string;
  why: string;
  created_at: string;
  moderator: string | null;
}

/** The newest entries of the moderation log. */
export async function listLog(limit: number, database: DB = db): Promise<LogEntry[]> {
  const rows = await database
    .selectFrom("moderation_log as l")
    .leftJoin("users as u", "u.id", "l.moderator_id")
    .select(["l.id", "l.action", "l.target_kind", "l.target_id", "l.summary", "l.why", "l.created_at", "u.username as moderator"])
    .orderBy("l.seq", "desc")
    .limit(limit)
    .execute();
  return rows as LogEntry[];
}

/** Suspends (a time) or restores (null) a person; true when it changed. */
export async function setSuspended(userId: string, at: string | null, database: DB): Promise<boolean> {
  const result = await database
    .updateTable("users")
    .set({ suspended_at: at })
    .where("id", "=", userId)
    .where("role", "<>", "ADMIN")
    .where("suspended_at", at === null ? "is not" : "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Before `userId`'s account is deleted, in its transaction (docs/rules.md#reports-and-moderation):
 * the log keeps every entry (who acted, what, on which kind of thing, when) and the reports their
 * rows, but none of that person's words: the summary and reason of entries about them or their
 * content, the reasons they wrote as a moderator, the text of reports about them or their content
 * (a reporter's text often quotes them). Their own reports go with their account.
 */
export async function forgetPersonInModeration(userId: string, database: DB): Promise<void> {
  await database
    .updateTable("moderation_log")
    .set({ summary: "", why: "" })
    .where((eb) => eb.or([eb("target_user_id", "=", userId), eb.and([eb("target_kind", "=", "user"), eb("target_id", "=", userId)])]))
    .execute();
  await database.updateTable("moderation_log").set({ why: "" }).where("moderator_id", "=", userId).execute();
  await database
    .updateTable("reports")
    .set({ text: "" })
    .where((eb) => eb.or([eb("target_user_id", "=", userId), eb.and([eb("target_kind", "=", "user"), eb("target_id", "=", userId)])]))
    .execute();
}
