import { redirect, type ActionFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { readForm } from "~/server/body.server";
import { readIntent } from "~/server/http.server";
import { isFetcherSubmission, redirectBack, refuse } from "~/server/interaction.server";
import { setPostLiked } from "~/server/queries/likes.server";
import { postExists } from "~/server/queries/posts.server";
import { requireUser } from "~/server/session.server";

// Action only: like or unlike a post as the session user.
export const loader = () => redirect(paths.home());

export async function action({ request, params }: ActionFunctionArgs) {
  const formData = await readForm(request);
  const back = formData.get("redirectTo");
  // Visitors are sent to Login and brought back to the page they were on.
  const user = await requireUser(request, { redirectTo: typeof back === "string" ? back : paths.home() });
  const postId = params.pid ?? "";
  const intent = readIntent(formData);
  if (intent !== "like" && intent !== "unlike") return refuse(formData, "Unknown action.", 400);
  if (!(await postExists(postId))) return refuse(formData, "Post not found.", 404);
  const likes = await setPostLiked({ postId, userId: user.id, liked: intent === "like" });
  if (isFetcherSubmission(formData)) return { liked: intent === "like", likes };
  return redirectBack(formData, paths.home());
}

// Never shown: the loader redirects and the action answers data or redirects. Present so
// the route is not a resource route and a refused plain post renders its error page.
export default function ActionOnlyRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
