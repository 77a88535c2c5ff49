import { z } from "zod";

import { getNotificationsPage, readNotifications } from "../services/notifications-service.server";
import { invalid, json, readJsonObject, requireApiUser, type ApiArgs } from "../http/api.server";
import { unwrap } from "./outcome-api.server";
import { issuesToErrors } from "./validation-api.server";

// GET /api/notifications and POST /api/notifications/read (docs/rules.md#notifications): the
// caller's own, never anyone else's — there is no id in the path to ask for another person's.

const PAGE_MESSAGE = "page must be a whole number of at least 1.";
const PageSchema = z.string().regex(/^\d{1,6}$/, PAGE_MESSAGE).transform(Number).pipe(z.number().min(1, PAGE_MESSAGE));

/** GET /api/notifications?page=N: one page, grouped, newest first, with the unread count. */
export async function listNotifications(args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const parsed = PageSchema.safeParse(new URL(args.request.url).searchParams.get("page") ?? "1");
  if (!parsed.success) throw invalid({ page: PAGE_MESSAGE });
  return json(await getNotificationsPage({ actor, page: parsed.data }));
}

const ReadSchema = z.object({ ids: z.array(z.string()).optional() }).strict();

/** POST /api/notifications/read {ids?}: marks the given notifications read, or all; answers the unread count. */
export async function markNotificationsRead(args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const parsed = ReadSchema.safeParse(await readJsonObject(args.request));
  if (!parsed.success) throw invalid(issuesToErrors(parsed.error));
  return json(unwrap(await readNotifications({ actor, ids: parsed.data.ids })));
}
