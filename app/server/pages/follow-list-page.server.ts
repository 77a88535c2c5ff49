// The Followers and Following dialogs of a profile (/ReciPals/Account/Profile/{id}/Followers and
// /Following, docs/rules.md#dialogs): who follows the person, or whom they follow, as the viewer
// sees it. Signed-in people only; across a block, only that the account is not available.
import { getLens, requireUser } from "~/server/auth/session.server";
import { invariantResponse } from "~/server/http/responses.server";
import { getFollowList } from "~/server/queries/profiles.server";
import { federationEnabled } from "~/server/federation/handles.server";
import { remotePeopleOf } from "~/server/federation/remote-store.server";
import { isHidden, UNAVAILABLE_ACCOUNT } from "~/server/queries/visibility.server";

// Either list of the person, for a signed-in viewer: 404 across a block or for an unknown user.
async function loadFollowList(request: Request, kind: "followers" | "following", userId: string) {
  const viewer = await requireUser(request);
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, userId)), UNAVAILABLE_ACCOUNT, 404);
  const [list, remote] = await Promise.all([
    getFollowList({ kind, userId, viewerId: viewer.id, without: lens.hidden }),
    // People on other servers, by their handle (docs/federation.md).
    federationEnabled() ? remotePeopleOf(userId, kind) : Promise.resolve([]),
  ]);
  if (!list) throw new Response("User not found.", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return { ...list, remote };
}

/** Who follows the person, each row with the viewer's Follow or Remove. */
export function loadFollowersPage(request: Request, userId: string) {
  return loadFollowList(request, "followers", userId);
}

/** Whom the person follows, each row with the viewer's Follow or Unfollow. */
export function loadFollowingPage(request: Request, userId: string) {
  return loadFollowList(request, "following", userId);
}
