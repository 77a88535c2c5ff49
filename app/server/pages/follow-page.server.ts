// Follow, unfollow and remove-follower (/ReciPals/Account/Follow/{id}), posted from the profile and
// its dialogs. POST only: a fetcher (JavaScript on, `_fetcher=1`) gets data back and stays on its
// page; a plain form post is redirected back to the page it came from (POST/redirect/GET).
import { data, redirect } from "@remix-run/node";

import { paths, safeRedirect } from "~/lib/paths";
import { requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { isFetcherSubmission } from "~/server/http/interaction.server";
import { readIntent } from "~/server/http/responses.server";
import { isFollowing } from "~/server/queries/follows.server";
import { removeFollower, setFollowing } from "~/server/services/follows-service.server";

export type FollowIntent = "follow" | "unfollow" | "remove";
export type FollowActionData =
  | { ok: true; intent: FollowIntent; userId: string; following: boolean }
  | { ok: false; message: string };

/** A GET of the address: the person's profile. */
export function loadFollowPage(userId: string) {
  // Nothing changes on GET: someone who lands here goes to the profile.
  return redirect(paths.profile(userId));
}

/** A follow, unfollow or remove-follower: data for a fetcher, a redirect back for a page post. */
export async function followPageAction(request: Request, targetId: string) {
  const viewer = await requireUser(request, { redirectTo: paths.profile(targetId) });
  const formData = await readForm(request);
  const viaFetcher = isFetcherSubmission(formData);
  const refuseFollow = (message: string, status: number) => {
    // A fetcher shows the message beside its button; a page post gets a real error page.
    if (viaFetcher) return data<FollowActionData>({ ok: false, message }, { status });
    throw new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  };

  const intent = readIntent(formData);
  if (intent !== "follow" && intent !== "unfollow" && intent !== "remove") return refuseFollow("Unknown action.", 400);
  const outcome =
    intent === "remove"
      ? await removeFollower({ actor: viewer, ownerId: viewer.id, followerId: targetId })
      : await setFollowing({ actor: viewer, targetId, following: intent === "follow" });
  if (!outcome.ok) return refuseFollow(outcome.message, outcome.status);

  if (!viaFetcher) return redirect(safeRedirect(formData.get("redirectTo"), paths.profile(targetId)));
  // Whether the viewer follows them now: as asked when nothing was refused (removing a follower leaves one's own follows alone).
  const following = outcome.value && "following" in outcome.value ? outcome.value.following : await isFollowing({ followerId: viewer.id, followeeId: targetId });
  return data<FollowActionData>({ ok: true, intent, userId: targetId, following });
}
