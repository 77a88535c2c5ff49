import crypto from "node:crypto";

import { z } from "zod";

import { isAdmin } from "~/lib/permissions";
import { REPORT_KINDS, REPORT_MESSAGES, REPORT_REASONS, REPORT_TEXT_MAX, REPORTS_PER_DAY, type ReportKind, type ReportReason } from "~/lib/reports";

import { endSessionsOf } from "../auth/session.server";
import { CacheScope, changing } from "../cache/scopes.server";
import { engineOf, type DB } from "../db/connection.server";
import { deleteImageIfUnreferenced } from "../media/uploads.server";
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
import { isSuspendedPerson } from "../queries/visibility.server";
import { storeCommentRemoved } from "./interactions.server";
import { done, refusal, refusing, RefusedError, type Actor, type Outcome } from "./outcome.server";

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
} as const;

const ReportSchema = z.object({
  kind: z.enum(REPORT_KINDS, { error: REPORT_MESSAGES.gone }),
  targetId: z.string().min(1, REPORT_MESSAGES.gone).max(200, REPORT_MESSAGES.gone),
  reason: z.enum(Object.keys(REPORT_REASONS) as [ReportReason, ...ReportReason[]], { error: REPORT_MESSAGES.reason }),
  text: z.string({ error: REPORT_MESSAGES.tooLong }).trim().max(REPORT_TEXT_MAX, REPORT_MESSAGES.tooLong),
});

const WhySchema = z.string({ error: MODERATION_MESSAGES.whyTooLong }).trim().max(REPORT_TEXT_MAX, MODERATION_MESSAGES.whyTooLong);

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whether the target, or the post a comment is on, belongs to someone hidden from the reporter (their lens). */
const hiddenFrom = (target: ReportTarget, hidden: readonly string[]) => [target.ownerId, target.postOwnerId].some((id) => id !== null && hidden.includes(id));

/**
 * The actor reports a post, a comment or a person (docs/rules.md#reports-and-moderation). `hidden`:
 * the people the actor does not see (their lens), whose content is not there to report.
 */
export async function fileReport(input: { actor: Actor; kind: unknown; targetId: unknown; reason: unknown; text: unknown; hidden?: readonly string[] }): Promise<Outcome<{ id: string }>> {
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
      if (!target || hiddenFrom(target, input.hidden ?? [])) throw new RefusedError(refusal(404, REPORT_MESSAGES.gone));
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

/** What a report page shows of its target; undefined when it is gone, hidden from the viewer, or their own. */
export async function reportableTarget(actor: Actor, kind: string, targetId: string, hidden: readonly string[]): Promise<ReportTarget | undefined> {
  if (!(REPORT_KINDS as readonly string[]).includes(kind)) return undefined;
  const target = await getReportTarget(kind as ReportKind, targetId);
  return target && target.ownerId !== actor.id && !hiddenFrom(target, hidden) ? target : undefined;
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
 * An ADMIN acts on the reports of one target: `dismiss` them, `remove` the content (a comment, or
 * a recipe with its post), or `suspend` its owner. `why` goes to the log.
 */
export async function moderate({ actor, kind, targetId, action, why }: { actor: Actor; kind: unknown; targetId: unknown; action: unknown; why: unknown }): Promise<Outcome<{ action: ModerationAction }>> {
  if (!isAdmin(actor)) return refusal(403, MODERATION_MESSAGES.adminOnly);
  if (!(REPORT_KINDS as readonly unknown[]).includes(kind) || typeof targetId !== "string" || targetId === "") return refusal(404, REPORT_MESSAGES.gone);
  if (action !== "dismiss" && action !== "remove" && action !== "suspend") return refusal(400, "Unknown action.");
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
  if (action === "remove" && reportKind === "user") return refusal(400, MODERATION_MESSAGES.notRemovable);
  const before = await getReportTarget(reportKind, targetId);
  const postPhoto = action === "remove" && reportKind === "post" ? (await getPostOwnership(targetId))?.photo : undefined;
  let removedPhotos: string[] = [];
  const scopes = action === "remove" && before?.recipeId ? [CacheScope.recipe(before.recipeId), ...(reportKind === "post" ? [CacheScope.feed, CacheScope.search, before.ownerId && CacheScope.user(before.ownerId)] : [])] : [];
  const outcome = await refusing(async () => {
    await changing(scopes, async (trx) => {
      const reporters = await resolveReports({ kind: reportKind, targetId, resolution: action === "dismiss" ? "dismissed" : "removed" }, trx);
      if (reporters.length === 0) throw new RefusedError(refusal(409, REPORT_MESSAGES.handled));
      if (action === "remove") {
        const target = await getReportTarget(reportKind, targetId, trx);
        if (!target) throw new RefusedError(refusal(404, REPORT_MESSAGES.gone));
        if (reportKind === "comment") {
          const comment = await trx.selectFrom("comments").select("post_id").where("id", "=", targetId).executeTakeFirstOrThrow();
          await storeCommentRemoved(trx, { postId: comment.post_id, commentId: targetId });
        } else if (target.recipeId) {
          const deleted = await deleteRecipeRows({ recipeId: target.recipeId }, trx);
          removedPhotos = [deleted?.photo ?? "", postPhoto ?? ""];
        }
      }
      await writeLog({ moderatorId: actor.id, action: chosen, kind: reportKind, targetId, targetUserId: before?.ownerId ?? null, summary: before?.label ?? "", why: reason.data }, trx);
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
  const reason = WhySchema.safeParse(why ?? "");
  if (!reason.success) return refusal(400, MODERATION_MESSAGES.whyTooLong, { errors: { why: MODERATION_MESSAGES.whyTooLong } });
  if (userId === actor.id) return refusal(400, MODERATION_MESSAGES.selfSuspend);
  const person = await getSessionUserById(userId);
  if (!person) return refusal(404, MODERATION_MESSAGES.missingUser);
  if (person.role === "ADMIN") return refusal(400, MODERATION_MESSAGES.adminSuspend);
  return refusing(async () => {
    await changing([CacheScope.everything], async (trx) => {
      // From the queue: the group's reports must still be open. Closing them is what decides: a second
      // admin acting on them at the same moment waits for this one, then finds nothing to close.
      const fromGroup = about ? await resolveReports({ kind: about.kind, targetId: about.targetId, resolution: "suspended" }, trx) : [];
      if (about && fromGroup.length === 0) throw new RefusedError(refusal(409, REPORT_MESSAGES.handled));
      const changed = await setSuspended(userId, nowIso(), trx);
      const others = await resolveReports({ kind: about?.kind ?? "user", targetId: about?.targetId ?? userId, ownerId: userId, resolution: "suspended" }, trx);
      const reporters = [...new Set([...fromGroup, ...others])];
      if (!changed && reporters.length === 0) throw new RefusedError(refusal(409, REPORT_MESSAGES.handled));
      await endSessionsOf(userId, trx);
      await writeLog({ moderatorId: actor.id, action: "suspend", kind: "user", targetId: userId, targetUserId: userId, summary: person.username, why: reason.data }, trx);
      await tellReporters(reporters, trx);
    });
    return done({ action: "suspend" as const });
  });
}

/** Lifts a suspension: the person may sign in again and what they made is shown again. */
export async function unsuspend({ actor, userId, why = "" }: { actor: Actor; userId: string; why?: unknown }): Promise<Outcome<{ action: ModerationAction }>> {
  if (!isAdmin(actor)) return refusal(403, MODERATION_MESSAGES.adminOnly);
  const reason = WhySchema.safeParse(why ?? "");
  if (!reason.success) return refusal(400, MODERATION_MESSAGES.whyTooLong, { errors: { why: MODERATION_MESSAGES.whyTooLong } });
  const person = await getSessionUserById(userId);
  if (!person) return refusal(404, MODERATION_MESSAGES.missingUser);
  return refusing(async () => {
    await changing([CacheScope.everything], async (trx) => {
      if (!(await setSuspended(userId, null, trx))) throw new RefusedError(refusal(409, MODERATION_MESSAGES.notSuspended));
      await writeLog({ moderatorId: actor.id, action: "unsuspend", kind: "user", targetId: userId, targetUserId: userId, summary: person.username, why: reason.data }, trx);
    });
    return done({ action: "unsuspend" as const });
  });
}
