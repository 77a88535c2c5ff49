// Block, unblock, mute and unmute a person (/ReciPals/Account/People/{id},
// docs/rules.md#blocking-and-muting): the block question's page, and what the posts do. The rules
// are the people service's.
import { redirect } from "@remix-run/node";

import { personPath } from "~/lib/blocking";
import { paths, safeRedirect } from "~/lib/paths";
import { getLens, requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { getSessionUserById } from "~/server/queries/users.server";
import { contains, isHidden } from "~/server/queries/visibility.server";
import { PEOPLE_MESSAGES, setBlock, setMute } from "~/server/services/people-service.server";

/** Where to go back to: a same-site path the form or the address gave, else the person's profile. */
function backTo(given: FormDataEntryValue | string | null, userId: string): string {
  return safeRedirect(given, paths.profile(userId));
}

/** The block question (`?intent=block`), for a page without JavaScript; any other GET goes to the profile. */
export async function loadPeoplePage(request: Request, userId: string) {
  const viewer = await requireUser(request);
  const url = new URL(request.url);
  // Nothing changes on GET: only the block question has a page.
  if (url.searchParams.get("intent") !== "block") return redirect(paths.profile(userId));
  invariantResponse(userId !== viewer.id, PEOPLE_MESSAGES.blockSelf, 400);
  const person = await getSessionUserById(userId);
  invariantResponse(person, PEOPLE_MESSAGES.missing, 404);
  // Someone who blocked the viewer stays unnamed, as on their profile.
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, userId)) || (await contains(lens.blocking, userId)), PEOPLE_MESSAGES.unavailable, 404);
  return { userId, username: person.username, returnTo: backTo(url.searchParams.get("returnTo"), userId) };
}

/** A block (once confirmed), unblock, mute or unmute, then back where the form came from. */
export async function peoplePageAction(request: Request, userId: string) {
  const viewer = await requireUser(request, { redirectTo: paths.profile(userId) });
  const formData = await readForm(request);
  const intent = readIntent(formData);
  const returnTo = backTo(formData.get("returnTo"), userId);
  if (intent === "block" && formData.get("confirm") !== "yes") {
    return redirect(`${personPath(userId)}?${new URLSearchParams({ intent, returnTo })}`);
  }
  const outcome =
    intent === "block" || intent === "unblock"
      ? await setBlock({ actor: viewer, targetId: userId, blocked: intent === "block" })
      : intent === "mute" || intent === "unmute"
        ? await setMute({ actor: viewer, targetId: userId, muted: intent === "mute" })
        : null;
  invariantResponse(outcome, "Unknown action.", 400);
  invariantResponse(outcome.ok, outcome.ok ? "" : outcome.message, outcome.ok ? 200 : outcome.status);
  return redirect(returnTo);
}
