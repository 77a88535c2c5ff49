import { REPORT_MESSAGES } from "~/lib/reports";

import { getLens } from "../auth/session.server";
import { json, readJsonObject, requireApiUser, type ApiArgs } from "../http/api.server";
import { fileReport, getModerationQueue, moderate } from "../services/moderation-service.server";
import { unwrap } from "./outcome-api.server";

// /api/reports (docs/rules.md#reports-and-moderation): anyone signed in files a report; an ADMIN
// reads the queue and acts on it. The same services as the pages decide.

/** POST /api/reports {kind, target_id, reason, text?}: 201 with the thanks. */
export async function postReport(args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const body = await readJsonObject(args.request);
  const lens = await getLens(args.request);
  const filed = unwrap(await fileReport({ actor, kind: body.kind, targetId: body.target_id, reason: body.reason, text: body.text ?? "", lens }));
  return json({ _id: filed.id, message: REPORT_MESSAGES.thanks }, { status: 201 });
}

/** GET /api/reports (ADMIN): open reports grouped by target, and the newest log entries. */
export async function getReports(args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  return json(unwrap(await getModerationQueue({ actor })));
}

/** POST /api/reports/resolve {kind, target_id, action: dismiss|remove|suspend, why?} (ADMIN). */
export async function resolveReport(args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const body = await readJsonObject(args.request);
  return json(unwrap(await moderate({ actor, kind: body.kind, targetId: body.target_id, action: body.action, why: body.why ?? "" })));
}
