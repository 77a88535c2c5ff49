import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";

import { paths, safeRedirect } from "~/lib/paths";
import { readForm } from "~/server/body.server";
import { readIntent } from "~/server/http.server";
import { isFetcherSubmission } from "~/server/interaction.server";
import { follow, isFollowing, removeFollower, unfollow } from "~/server/queries/follows.server";
import { getSessionUserById } from "~/server/queries/users.server";
import { requireUser } from "~/server/session.server";

// Follow, unfollow and remove-follower, posted from the profile and its dialogs. POST only:
// a fetcher (JavaScript on, `_fetcher=1`) gets data back and stays on its page; a plain form
// post is redirected back to the page it came from (POST/redirect/GET).

export type FollowIntent = "follow" | "unfollow" | "remove";
export type FollowActionData =
  | { ok: true; intent: FollowIntent; userId: string; following: boolean }
  | { ok: false; message: string };

const MESSAGES = {
  self: "You cannot follow yourself.",
  selfRemove: "You cannot remove yourself from your followers.",
  missing: "User not found.",
  intent: "Unknown action.",
} as const;

// Nothing changes on GET: someone who lands here goes to the profile.
export function loader({ params }: LoaderFunctionArgs) {
  return redirect(paths.profile(params.uid ?? ""));
}

export async function action({ request, params }: ActionFunctionArgs) {
  const targetId = params.uid ?? "";
  const viewer = await requireUser(request, { redirectTo: paths.profile(targetId) });
  const formData = await readForm(request);
  const viaFetcher = isFetcherSubmission(formData);
  const refuse = (message: string, status: number) => {
    // A fetcher shows the message beside its button; a page post gets a real error page.
    if (viaFetcher) return data<FollowActionData>({ ok: false, message }, { status });
    throw new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  };

  const intent = readIntent(formData);
  if (intent !== "follow" && intent !== "unfollow" && intent !== "remove") return refuse(MESSAGES.intent, 400);
  if (targetId === viewer.id) return refuse(intent === "remove" ? MESSAGES.selfRemove : MESSAGES.self, 400);
  if (!(await getSessionUserById(targetId))) return refuse(MESSAGES.missing, 404);

  if (intent === "follow") await follow({ followerId: viewer.id, followeeId: targetId });
  else if (intent === "unfollow") await unfollow({ followerId: viewer.id, followeeId: targetId });
  else await removeFollower({ ownerId: viewer.id, followerId: targetId });

  if (!viaFetcher) return redirect(safeRedirect(formData.get("redirectTo"), paths.profile(targetId)));
  const following = await isFollowing({ followerId: viewer.id, followeeId: targetId });
  return data<FollowActionData>({ ok: true, intent, userId: targetId, following });
}

// Never shown: the loader and the action always redirect or answer data. Present so a
// refused page post renders its error inside the app shell.
export default function FollowRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
