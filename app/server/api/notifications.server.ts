import { z } from "zod";

import { getNotificationsPage, readNotifications } from "../services/notifications.server";
import { invalid, json, readJsonObject, requireApiUser, unwrap, type ApiArgs } from "./http.server";
import { issuesToErrors } from "./validation.server";

// GET /api/notifications and POST /api/notifications/read (docs/rules.md#notifications): the
// caller's own, never anyone else's — there is no id in the path to ask for another person's.

/** GET /api/notifications?page=N: one page, grouped, newest first, with the unread count. */
export async function listNotifications(args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const raw = new URL(args.request.url).searchParams.get("page");
  const page = raw === null ? 1 : Number(raw);
  if (!Number.isInteger(page) || page < 1 || page > 100_000) throw invalid({ page: "page must be a whole number of at least 1." });
  return json(await getNotificationsPage({ actor, page }));
}

const ReadSchema = z.object({ ids: z.array(z.string()).optional() }).strict();

/** POST /api/notifications/read {ids?}: marks the given notifications read, or all; answers the unread count. */
export async function markNotificationsRead(args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const parsed = ReadSchema.safeParse(await readJsonObject(args.request));
  if (!parsed.success) throw invalid(issuesToErrors(parsed.error));
  return json(unwrap(await readNotifications({ actor, ids: parsed.data.ids })));
}
