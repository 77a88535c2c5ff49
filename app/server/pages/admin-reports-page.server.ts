// The moderation queue (/ReciPals/Account/Admin/Reports, docs/rules.md#reports-and-moderation):
// the open reports and the log it shows, and what its buttons post. The rules are the moderation service's.
import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { ADMIN_REPORTS_PATH } from "~/lib/reports";
import { requireAdmin } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { getModerationQueue, moderate } from "~/server/services/moderation-service.server";

/** The open reports, grouped by what they are about, and the moderation log. */
export async function loadAdminReportsPage(request: Request, context: AppLoadContext) {
  const actor = await requireAdmin({ request, context });
  const queue = await getModerationQueue({ actor });
  invariantResponse(queue.ok, queue.ok ? "" : queue.message, queue.ok ? 200 : queue.status);
  return queue.value;
}

/** A group's Dismiss, Remove content or Suspend user, with the optional reason for the log. */
export async function adminReportsPageAction(request: Request, context: AppLoadContext) {
  const actor = await requireAdmin({ request, context });
  const form = await readForm(request);
  const outcome = await moderate({ actor, kind: form.get("kind"), targetId: form.get("targetId"), action: readIntent(form), why: form.get("why") ?? "" });
  if (!outcome.ok) return data({ error: outcome.message, key: `${form.get("kind")}:${form.get("targetId")}` }, { status: outcome.status });
  return redirect(ADMIN_REPORTS_PATH);
}
