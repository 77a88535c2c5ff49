// Notifications (/ReciPals/Notifications, docs/rules.md#notifications): a page of the viewer's
// notifications, and the posts that mark them read. The rules are the notifications service's.
import { paths } from "~/lib/paths";
import { requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { isFetcherSubmission, redirectBack, refuseInteraction } from "~/server/http/interaction.server";
import { readIntent } from "~/server/http/responses.server";
import { parsePage } from "~/server/queries/feed.server";
import { getNotificationsPage, readNotifications } from "~/server/services/notifications-service.server";

/** A page of the viewer's notifications, newest first, grouped. */
export async function loadNotificationsPage(request: Request) {
  const user = await requireUser(request);
  const page = parsePage(new URL(request.url).searchParams.get("page"));
  return getNotificationsPage({ actor: user, page });
}

/** Marks read what the page shows (`read`, the page's own post) or everything (`read-all`, "Mark all as read"). */
export async function notificationsPageAction(request: Request) {
  const formData = await readForm(request);
  const user = await requireUser(request, { redirectTo: paths.notifications() });
  const intent = readIntent(formData);
  if (intent !== "read" && intent !== "read-all") return refuseInteraction(formData, "Unknown action.", 400);
  const ids = intent === "read" ? formData.getAll("id") : undefined;
  const outcome = await readNotifications({ actor: user, ids });
  if (!outcome.ok) return refuseInteraction(formData, outcome.message, outcome.status);
  if (isFetcherSubmission(formData)) return outcome.value;
  return redirectBack(formData, paths.notifications());
}
