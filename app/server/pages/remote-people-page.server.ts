// Following, blocking and muting a person on another server (/ReciPals/Account/RemotePeople),
// posted from the search's result for @name@host and from Following, and liking their posts (/ReciPals/Account/RemoteLike)
// from Home. POST only: a fetcher (JavaScript on) gets data back; a plain form post is redirected
// back to the page it came from.
import { data, redirect } from "@remix-run/node";

import { paths, safeRedirect } from "~/lib/paths";
import { requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { isFetcherSubmission } from "~/server/http/interaction.server";
import { readIntent } from "~/server/http/responses.server";
import { actOnRemotePerson, likeRemotePost, type RemoteStanding } from "~/server/services/federation-service.server";

export type RemotePeopleActionData = ({ ok: true; actorId: string } & RemoteStanding) | { ok: false; message: string };

/** A GET of the address: the search. */
export function loadRemotePeoplePage() {
  return redirect(paths.search());
}

export type RemoteLikeActionData = { ok: true; postId: string; liked: boolean } | { ok: false; message: string };

/** A GET of the like address: Home. */
export function loadRemoteLikePage() {
  return redirect(paths.home());
}

export async function remoteLikePageAction(request: Request) {
  const viewer = await requireUser(request, { redirectTo: paths.home() });
  const formData = await readForm(request);
  const viaFetcher = isFetcherSubmission(formData);
  const postId = formData.get("post");
  const outcome = await likeRemotePost({ actor: viewer, postId, intent: readIntent(formData) });
  if (!outcome.ok) {
    if (viaFetcher) return data<RemoteLikeActionData>({ ok: false, message: outcome.message }, { status: outcome.status });
    throw new Response(outcome.message, { status: outcome.status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  if (!viaFetcher) return redirect(safeRedirect(formData.get("redirectTo"), paths.home()));
  return data<RemoteLikeActionData>({ ok: true, postId: String(postId), liked: outcome.value.liked });
}

export async function remotePeoplePageAction(request: Request) {
  const viewer = await requireUser(request, { redirectTo: paths.search() });
  const formData = await readForm(request);
  const viaFetcher = isFetcherSubmission(formData);
  const actorId = formData.get("actor");
  const outcome = await actOnRemotePerson({ actor: viewer, actorId, intent: readIntent(formData) });
  if (!outcome.ok) {
    if (viaFetcher) return data<RemotePeopleActionData>({ ok: false, message: outcome.message }, { status: outcome.status });
    throw new Response(outcome.message, { status: outcome.status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  if (!viaFetcher) return redirect(safeRedirect(formData.get("redirectTo"), paths.search()));
  return data<RemotePeopleActionData>({ ok: true, actorId: String(actorId), ...outcome.value });
}
