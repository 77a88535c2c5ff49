// People on other servers (docs/federation.md): following, blocking and muting one
// (/ReciPals/Account/RemotePeople, from the search's card for @name@host and from Following), and
// liking and answering their posts (/ReciPals/Account/RemotePosts, from Home). POST only: a fetcher
// (JavaScript on) gets data back; a plain form post is redirected back to the page it came from.
import { data, redirect } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { isFetcherSubmission, redirectBack, refuseInteraction } from "~/server/http/interaction.server";
import { readIntent } from "~/server/http/responses.server";
import { actOnRemotePerson, actOnRemotePost, type RemoteStanding } from "~/server/services/federation-service.server";

export type RemotePeopleActionData = ({ ok: true; actorId: string } & RemoteStanding) | { ok: false; message: string };

/** A GET of the address: the search. */
export function loadRemotePeoplePage() {
  return redirect(paths.search());
}

export type RemotePostsActionData = { ok: true; postId: string; liked?: boolean; replyId?: string } | { ok: false; message: string; text?: string };

/** A GET of the posts' address: Home. */
export function loadRemotePostsPage() {
  return redirect(paths.home());
}

/** Like, unlike or reply to a post from elsewhere: data for a fetcher, back to Home for a page post. */
export async function remotePostsPageAction(request: Request) {
  const viewer = await requireUser(request, { redirectTo: paths.home() });
  const formData = await readForm(request);
  const postId = formData.get("post");
  const text = formData.get("text");
  const outcome = await actOnRemotePost({ actor: viewer, postId, intent: readIntent(formData), text });
  if (!outcome.ok) {
    // A refused reply keeps its words in the box (a fetcher's data).
    const kept = typeof text === "string" ? { text } : {};
    return refuseInteraction<RemotePostsActionData>(formData, outcome.message, outcome.status, { ok: false, message: outcome.message, ...kept });
  }
  if (!isFetcherSubmission(formData)) return redirectBack(formData, paths.home());
  return data<RemotePostsActionData>({ ok: true, postId: String(postId), ...outcome.value });
}

export async function remotePeoplePageAction(request: Request) {
  const viewer = await requireUser(request, { redirectTo: paths.search() });
  const formData = await readForm(request);
  const actorId = formData.get("actor");
  const outcome = await actOnRemotePerson({ actor: viewer, actorId, intent: readIntent(formData) });
  if (!outcome.ok) return refuseInteraction<RemotePeopleActionData>(formData, outcome.message, outcome.status, { ok: false, message: outcome.message });
  if (!isFetcherSubmission(formData)) return redirectBack(formData, paths.search());
  return data<RemotePeopleActionData>({ ok: true, actorId: String(actorId), ...outcome.value });
}
