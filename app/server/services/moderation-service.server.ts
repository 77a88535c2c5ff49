import crypto from "node:crypto";

import { z } from "zod";

import { isAdmin } from "~/lib/permissions";
import { isRemoteKind, REPORT_KINDS, REPORT_MESSAGES, REPORT_REASONS, REPORT_TEXT_MAX, REPORTS_PER_DAY, reportPath, type ReportKind, type ReportReason } from "~/lib/reports";

import { endSessionsOf } from "../auth/session.server";
import { CacheScope, changing } from "../cache/scopes.server";
import { db, engineOf, type DB } from "../db/connection.server";
import { domainOf, storeDomainBlock } from "../federation/domain-blocks.server";
import { deleteImageIfUnreferenced } from "../media/uploads.server";
import { deleteCook } from "../queries/cooks.server";
import { getPostOwnership } from "../queries/posts.server";
import { deleteRecipe as deleteRecipeRows } from "../queries/recipe-writes.server";
import {
  countReportsSince,
  getReportTarget,
  hasOpenReports,
  insertReport,
  listLog,
  listOpenReports,
  resolveReports,
  setSuspended,
  writeLog,
  type LogEntry,
  type ModerationAction,
  type OpenReport,
  type ReportTarget,
} from "../queries/reports.server";
import { nextSeq, nowIso } from "../queries/seq.server";
import { getSessionUserById } from "../queries/users.server";
import { contains, isSuspendedPerson, OPEN_LENS, type Lens } from "../queries/visibility.server";
import { storeCommentRemoved } from "./interactions-service.server";
import { done, refusal, refusing, RefusedError, type Actor, type Outcome } from "./outcome-service.server";

// Reports and moderation (docs/rules.md#reports-and-moderation), for the pages and the API alike.
// Anyone signed in reports a post, a comment or a person; an ADMIN dismisses the reports of a
// target, removes the content, or suspends its owner. Each moderator action is one transaction:
// the reports it closes, what it changes, its log entry and the reporters' notifications land
// together, and a second moderator acting on the same reports at the same moment finds them closed.

export const MODERATION_MESSAGES = {
  adminOnly: "Only administrators may moderate.",
  whyTooLong: `Please keep the reason to ${REPORT_TEXT_MAX} characters.`,
  notRemovable: "A person cannot be removed; suspend them instead.",
  noOwner: "This content has no account behind it to suspend.",
  selfSuspend: "You cannot suspend yourself.",
  adminSuspend: "Administrators cannot be suspended; take their role away first.",
  notSuspended: "This account is not suspended.",
  missingUser: "User not found.",
  notRemote: "Only what comes from another server can have its domain blocked.",
} as const;

const ReportSchema = z.object({
  kind: z.enum(REPORT_KINDS, { error: REPORT_MESSAGES.gone }),
  targetId: z.string().min(1, REPORT_MESSAGES.gone).max(200, REPORT_MESSAGES.gone),
  reason: z.enum(Object.keys(REPORT_REASONS) as [ReportReason, ...ReportReason[]], { error: REPORT_MESSAGES.reason }),
  text: z.string({ error: REPORT_MESSAGES.tooLong }).trim().max(REPORT_TEXT_MAX, REPORT_MESSAGES.tooLong),
});

const WhySchema = z.string({ error: MODERATION_MESSAGES.whyTooLong }).trim().max(REPORT_TEXT_MAX, MODERATION_MESSAGES.whyTooLong);

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether the reporter can see the target to report it (docs/rules.md#reports-and-moderation): its
 * owner and the owner of the recipe it is on are not hidden from them (their lens), or hidden only
 * by a block that leaves it theirs to report — someone they blocked, or something on their own
 * recipe (they see such comments and entries, collapsed). A suspended person's content is gone.
 */
async function inSight(actor: Actor, target: ReportTarget, lens: Lens, database: DB): Promise<boolean> {
  for (const id of new Set([target.ownerId, target.postOwnerId])) {
    if (id === null || id === actor.id || !(await contains(lens.hidden, id, database))) continue;
    if (await isSuspendedPerson(id, database)) return false;
    const onOwnRecipe = id === target.ownerId && target.postOwnerId === actor.id;
    if (!onOwnRecipe && !(await contains(lens.blocking, id, database))) return false;
  }
  return true;
}

/**
 * The actor reports a post, a comment, a person or an "I made this" entry
 * (docs/rules.md#reports-and-moderation), as far as their lens lets them see it (`inSight`).
 */
export async function fileReport(input: { actor: Actor; kind: unknown; targetId: unknown; reason: unknown; text: unknown; lens?: Lens }): Promise<Outcome<{ id: string }>> {
  const parsed = ReportSchema.safeParse({ kind: input.kind, targetId: input.targetId, reason: input.reason, text: input.text ?? "" });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path[0] === "reason" ? "reason" : issue?.path[0] === "text" ? "text" : "target";
    const message = issue?.message ?? REPORT_MESSAGES.gone;
    return refusal(field === "target" ? 404 : 400, message, { errors: { [field]: message } });
  }
  const { kind, targetId, reason, text } = parsed.data;
  const { actor } = input;
  return refusing(async () => {
    const id = await changing([], async (trx) => {
      // One person's reports take turns between the checks (one open per target, the daily limit) and the insert.
      await engineOf(trx).writers.lock(trx, [`reports-by:${actor.id}`]);
      const target = await getReportTarget(kind, targetId, trx);
      if (!target || !(await inSight(actor, target, input.lens ?? OPEN_LENS, trx))) throw new RefusedError(refusal(404, REPORT_MESSAGES.gone));
      if (target.ownerId === actor.id) throw new RefusedError(refusal(400, REPORT_MESSAGES.own));
      if (await hasOpenReports({ kind, targetId, reporterId: actor.id }, trx)) throw new RefusedError(refusal(409, REPORT_MESSAGES.twice));
      if ((await countReportsSince(actor.id, new Date(Date.now() - DAY_MS).toISOString(), trx)) >= REPORTS_PER_DAY) {
        throw new RefusedError(refusal(429, REPORT_MESSAGES.limit));
      }
      return insertReport({ reporterId: actor.id, target, reason, text }, trx);
    });
    return done({ id });
  });
}

/**
 * The items of a page's list (comments, "I made this" entries, replies from other servers) with the address of the report page
 * of each one someone else made (docs/rules.md#reports-and-moderation). Made here, not in the page:
 * the report module stays out of the recipe page's script.
 */
export function withReportLinks<T extends object>(
  kind: "comment" | "cook" | "remote_comment",
  items: readonly T[],
  viewerId: string | null,
  of: (item: T) => { id: string; ownerId: string | null | undefined },
): (T & { reportHref?: string })[] {
  return items.map((item) => {
    const { id, ownerId } = of(item);
    return viewerId !== null && ownerId && ownerId !== viewerId ? { ...item, reportHref: reportPath(kind, id) } : item;
  });
}

/** What a report page shows of its target; undefined when it is gone, out of the viewer's sight, or their own. */
export async function reportableTarget(actor: Actor, kind: string, targetId: string, lens: Lens): Promise<ReportTarget | undefined> {
  if (!(REPORT_KINDS as readonly string[]).includes(kind)) return undefined;
  const target = await getReportTarget(kind as ReportKind, targetId);
  return target && target.ownerId !== actor.id && (await inSight(actor, target, lens, db)) ? target : undefined;
}

/** The reports of one target, as the queue shows them. */
export interface ReportGroup {
  kind: ReportKind;
  targetId: string;
  /** The target as it is now; null when it is already gone (its reports can still be dismissed). */
  target: ReportTarget | null;
  ownerSuspended: boolean;
  count: number;
  newest: string;
  reasons: Partial<Record<ReportReason, number>>;
  reports: Pick<OpenReport, "id" | "reason" | "text" | "created_at" | "reporter">[];
}

/** The moderation queue: open reports grouped by target, the most recently reported first, and the log's newest entries. */
export async function getModerationQueue({ actor }: { actor: Actor }): Promise<Outcome<{ groups: ReportGroup[]; log: LogEntry[] }>> {
  if (!isAdmin(actor)) return refusal(403, MODERATION_MESSAGES.adminOnly);
  const groups = new Map<string, ReportGroup>();
  for (const report of await listOpenReports()) {
    const key = `${report.target_kind}:${report.target_id}`;
    let group = groups.get(key);
    if (!group) {
      group = { kind: report.target_kind, targetId: report.target_id, target: null, ownerSuspended: false, count: 0, newest: report.created_at, reasons: {}, reports: [] };
      groups.set(key, group);
    }
    group.count += 1;
    group.reasons[report.reason] = (group.reasons[report.reason] ?? 0) + 1;
    group.reports.push({ id: report.id, reason: report.reason, text: report.text, created_at: report.created_at, reporter: report.reporter });
  }
  for (const group of groups.values()) {
    group.target = (await getReportTarget(group.kind, group.targetId)) ?? null;
    group.ownerSuspended = group.target?.ownerId ? await isSuspendedPerson(group.target.ownerId) : false;
  }
  return done({ groups: [...groups.values()], log: await listLog(50) });
}

/** Tells each reporter, without details, that their report was handled. */
async function tellReporters(reporters: readonly string[], database: DB): Promise<void> {
  for (const userId of reporters) {
    await database
      .insertInto("notifications")
      .values({
        id: crypto.randomUUID(),
        user_id: userId,
        actor_id: null,
        kind: "report",
        post_id: null,
        recipe_id: null,
        comment_id: null,
        created_at: nowIso(),
        read_at: null,
        seq: nextSeq(database, "notifications", userId),
      })
      .execute();
  }
}

/**
 * An ADMIN acts on the reports of one target: `dismiss` them, `remove` the content (a comment, an
 * "I made this" entry, a recipe with its post, or a post or reply from another server), `suspend`
 * its owner, or for what came from another server `block-domain` (its author's whole server, as
 * Admin → Federation does). `why` goes to the log.
 */
export async function moderate({ actor, kind, targetId, action, why }: { actor: Actor; kind: unknown; targetId: unknown; action: unknown; why: unknown }): Promise<Outcome<{ action: ModerationAction }>> {
  if (!isAdmin(actor)) return refusal(403, MODERATION_MESSAGES.adminOnly);
  if (!(REPORT_KINDS as readonly unknown[]).includes(kind) || typeof targetId !== "string" || targetId === "") return refusal(404, REPORT_MESSAGES.gone);
  if (action !== "dismiss" && action !== "remove" && action !== "suspend" && action !== "block-domain") return refusal(400, "Unknown action.");
  const reason = WhySchema.safeParse(why ?? "");
  if (!reason.success) return refusal(400, MODERATION_MESSAGES.whyTooLong, { errors: { why: MODERATION_MESSAGES.whyTooLong } });
  const reportKind = kind as ReportKind;
  const chosen: ModerationAction = action;
  if (action === "suspend") {
    const target = await getReportTarget(reportKind, targetId);
    if (!target) return refusal(404, REPORT_MESSAGES.gone);
    if (!target.ownerId) return refusal(400, MODERATION_MESSAGES.noOwner);
    return suspend({ actor, userId: target.ownerId, why: reason.data, about: { kind: reportKind, targetId } });
  }
  if (action === "remove" && (reportKind === "user" || reportKind === "remote_user")) return refusal(400, MODERATION_MESSAGES.notRemovable);
  const before = await getReportTarget(reportKind, targetId);
  if (action === "block-domain" && !before?.remote) return refusal(400, isRemoteKind(reportKind) ? REPORT_MESSAGES.gone : MODERATION_MESSAGES.notRemote);
  const postPhoto = action === "remove" && reportKind === "post" ? (await getPostOwnership(targetId))?.photo : undefined;
  let removedPhotos: string[] = [];
  const scopes = action === "block-domain" ? [CacheScope.everything] : action === "remove" && before?.recipeId ? [CacheScope.recipe(before.recipeId), ...(reportKind === "post" ? [CacheScope.feed, CacheScope.search, before.ownerId && CacheScope.user(before.ownerId)] : [])] : [];
  const outcome = await refusing(async () => {
    await changing(scopes, async (trx) => {
      const reporters = await resolveReports({ kind: reportKind, targetId, resolution: action === "dismiss" ? "dismissed" : action === "remove" ? "removed" : "domain blocked" }, trx);
      if (reporters.length === 0) throw new RefusedError(refusal(409, REPORT_MESSAGES.handled));
      if (action === "remove") {
        const target = await getReportTarget(reportKind, targetId, trx);
        if (!target) throw new RefusedError(refusal(404, REPORT_MESSAGES.gone));
        if (reportKind === "remote_post" || reportKind === "remote_comment") {
          // Taken off this server only: its author's server keeps it.
          await trx.deleteFrom(reportKind === "remote_post" ? "remote_posts" : "remote_comments").where("id", "=", targetId).execute();
        } else if (reportKind === "comment") {
          const comment = await trx.selectFrom("comments").select("post_id").where("id", "=", targetId).executeTakeFirstOrThrow();
          await storeCommentRemoved(trx, { postId: comment.post_id, commentId: targetId });
        } else if (reportKind === "cook") {
          // The entry alone, with its photo; the recipe stays.
          const removed = target.ownerId && target.recipeId ? await deleteCook(target.ownerId, target.recipeId, trx) : undefined;
          removedPhotos = [removed?.photo ?? ""];
        } else if (target.recipeId) {
          const deleted = await deleteRecipeRows({ recipeId: target.recipeId }, trx);
          removedPhotos = [deleted?.photo ?? "", postPhoto ?? ""];
        }
      }
      // The whole server of its author (docs/federation.md, "Safety"): blocked already is no refusal, the reports still close.
      if (action === "block-domain") await storeDomainBlock({ domain: domainOf(before!.remote!.host), blockedBy: actor.id }, trx);
      const summary = action === "block-domain" ? `${domainOf(before!.remote!.host)} (${before!.label})` : (before?.label ?? "");
      await writeLog({ moderatorId: actor.id, action: chosen, kind: reportKind, targetId, targetUserId: before?.ownerId ?? null, summary, why: reason.data }, trx);
      await tellReporters(reporters, trx);
    });
    return done({ action: chosen });
  });
  for (const url of new Set(removedPhotos)) if (url) await deleteImageIfUnreferenced(url);
  return outcome;
}

/**
 * Suspends a person (docs/rules.md#suspension): every session ends, they cannot sign in, and what
 * they made disappears for everyone but admins at once — every server's page cache is dropped. The
 * open reports about them and their content close with it.
 */
export async function suspend({ actor, userId, why, about }: { actor: Actor; userId: string; why: unknown; about?: { kind: ReportKind; targetId: string } }): Promise<Outcome<{ action: ModerationAction }>> {
  if (!isAdmin(actor)) return refusal(403, MODERATION_MESSAGES.adminOnly);
  if (userId === actor.id) return refusal(400, MODERATION_MESSAGES.selfSuspend);
  return suspendAs({ moderatorId: actor.id, userId, why, about });
}

/**
 * `suspend` once who acts has been checked: an ADMIN (their id goes to the log) or the operator's
 * command line (`moderatorId` null: the log names no account; app/server/ops/admin-commands.server.ts).
 */
export async function suspendAs(
  { moderatorId, userId, why, about }: { moderatorId: string | null; userId: string; why: unknown; about?: { kind: ReportKind; targetId: string } },
  database: DB = db,
): Promise<Outcome<{ action: ModerationAction }>> {
  const reason = WhySchema.safeParse(why ?? "");
  if (!reason.success) return refusal(400, MODERATION_MESSAGES.whyTooLong, { errors: { why: MODERATION_MESSAGES.whyTooLong } });
  const person = await getSessionUserById(userId, database);
  if (!person) return refusal(404, MODERATION_MESSAGES.missingUser);
  if (person.role === "ADMIN") return refusal(400, MODERATION_MESSAGES.adminSuspend);
  return refusing(async () => {
    await changing(
      [CacheScope.everything],
      async (trx) => {
        // From the queue: the group's reports must still be open. Closing them is what decides: a second
        // admin acting on them at the same moment waits for this one, then finds nothing to close.
        const fromGroup = about ? await resolveReports({ kind: about.kind, targetId: about.targetId, resolution: "suspended" }, trx) : [];
        if (about && fromGroup.length === 0) throw new RefusedError(refusal(409, REPORT_MESSAGES.handled));
        const changed = await setSuspended(userId, nowIso(), trx);
        const others = await resolveReports({ kind: about?.kind ?? "user", targetId: about?.targetId ?? userId, ownerId: userId, resolution: "suspended" }, trx);
        const reporters = [...new Set([...fromGroup, ...others])];
        if (!changed && reporters.length === 0) throw new RefusedError(refusal(409, REPORT_MESSAGES.handled));
        await endSessionsOf(userId, trx);
        await writeLog({ moderatorId, action: "suspend", kind: "user", targetId: userId, targetUserId: userId, summary: person.username, why: reason.data }, trx);
        await tellReporters(reporters, trx);
      },
      database,
    );
    return done({ action: "suspend" as const });
  });
}

/** Lifts a suspension: the person may sign in again and what they made is shown again. */
export async function unsuspend({ actor, userId, why = "" }: { actor: Actor; userId: string; why?: unknown }): Promise<Outcome<{ action: ModerationAction }>> {
  if (!isAdmin(actor)) return refusal(403, MODERATION_MESSAGES.adminOnly);
  return unsuspendAs({ moderatorId: actor.id, userId, why });
}

/** `unsuspend` once who acts has been checked (as `suspendAs`: an ADMIN's id, or null for the command line). */
export async function unsuspendAs({ moderatorId, userId, why = "" }: { moderatorId: string | null; userId: string; why?: unknown }, database: DB = db): Promise<Outcome<{ action: ModerationAction }>> {
  const reason = WhySchema.safeParse(why ?? "");
  if (!reason.success) return refusal(400, MODERATION_MESSAGES.whyTooLong, { errors: { why: MODERATION_MESSAGES.whyTooLong } });
  const person = await getSessionUserById(userId, database);
  if (!person) return refusal(404, MODERATION_MESSAGES.missingUser);
  return refusing(async () => {
    await changing(
      [CacheScope.everything],
      async (trx) => {
        if (!(await setSuspended(userId, null, trx))) throw new RefusedError(refusal(409, MODERATION_MESSAGES.notSuspended));
        await writeLog({ moderatorId, action: "unsuspend", kind: "user", targetId: userId, targetUserId: userId, summary: person.username, why: reason.data }, trx);
      },
      database,
    );
    return done({ action: "unsuspend" as const });
  });
}
