// Reporting (/ReciPals/Report?kind=post|comment|user|cook&id=…, docs/rules.md#reports-and-moderation):
// what is being reported, and the post that files the report. The rules are the moderation service's.
import { data } from "@remix-run/node";

import { REPORT_MESSAGES } from "~/lib/reports";
import { getLens, requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { invariantResponse } from "~/server/http/responses.server";
import { fileReport, reportableTarget } from "~/server/services/moderation-service.server";

// The signed-in reporter, their lens and the target the address names (404 when there is none to report).
async function targetOf(request: Request, kind: string, id: string) {
  const user = await requireUser(request);
  const lens = await getLens(request);
  const target = await reportableTarget(user, kind, id, lens);
  invariantResponse(target, REPORT_MESSAGES.gone, 404);
  return { user, target, lens };
}

/** The post, comment, person or entry the address names, as the report form shows it. */
export async function loadReportPage(request: Request) {
  const url = new URL(request.url);
  const { target } = await targetOf(request, url.searchParams.get("kind") ?? "", url.searchParams.get("id") ?? "");
  return { kind: target.kind, id: target.id, label: target.label, owner: target.ownerName, recipeId: target.recipeId };
}

/** Files the report; a refused one comes back with its message, the field errors and what was typed. */
export async function reportPageAction(request: Request) {
  const url = new URL(request.url);
  const { user, target, lens } = await targetOf(request, url.searchParams.get("kind") ?? "", url.searchParams.get("id") ?? "");
  const form = await readForm(request);
  const fields = { reason: String(form.get("reason") ?? ""), text: String(form.get("text") ?? "") };
  const outcome = await fileReport({ actor: user, kind: target.kind, targetId: target.id, reason: form.get("reason") ?? "", text: form.get("text") ?? "", lens });
  if (!outcome.ok) return data({ sent: false as const, message: outcome.message, errors: outcome.errors ?? {}, fields }, { status: outcome.status });
  return { sent: true as const };
}
