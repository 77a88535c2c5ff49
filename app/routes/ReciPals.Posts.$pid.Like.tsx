import { redirect, type ActionFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { readForm } from "~/server/http/body.server";
import { readIntent } from "~/server/http/responses.server";
import { isFetcherSubmission, redirectBack, refuseInteraction } from "~/server/http/interaction.server";
import { setLike } from "~/server/services/interactions.server";
import { requireUser } from "~/server/auth/session.server";

// Action only: like or unlike a post as the session user.
export const loader = () => redirect(paths.home());

export async function action({ request, params }: ActionFunctionArgs) {
  const formData = await readForm(request);
  const back = formData.get("redirectTo");
  // Visitors are sent to Login and brought back to the page they were on.
  const user = await requireUser(request, { redirectTo: typeof back === "string" ? back : paths.home() });
  const postId = params.pid ?? "";
  const intent = readIntent(formData);
  if (intent !== "like" && intent !== "unlike") return refuseInteraction(formData, "Unknown action.", 400);
  const outcome = await setLike({ actor: user, postId, liked: intent === "like" });
  if (!outcome.ok) return refuseInteraction(formData, outcome.message, outcome.status);
  if (isFetcherSubmission(formData)) return { liked: intent === "like", likes: outcome.value.likes };
  return redirectBack(formData, paths.home());
}

// Never shown: the loader redirects and the action answers data or redirects. Present so
// the route is not a resource route and a refused plain post renders its error page.
export default function ActionOnlyRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
