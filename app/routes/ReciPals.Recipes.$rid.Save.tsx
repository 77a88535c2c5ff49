import { redirect, type ActionFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { readForm } from "~/server/http/body.server";
import { readIntent } from "~/server/http/responses.server";
import { isFetcherSubmission, redirectBack, refuseInteraction } from "~/server/http/interaction.server";
import { setSaved } from "~/server/services/interactions.server";
import { requireUser } from "~/server/auth/session.server";

// Action only: save or unsave a recipe for the session user (idempotent both ways).
export const loader = ({ params }: { params: { rid?: string } }) => redirect(paths.recipe(params.rid ?? ""));

export async function action({ request, params }: ActionFunctionArgs) {
  const recipeId = params.rid ?? "";
  const formData = await readForm(request);
  const back = formData.get("redirectTo");
  const user = await requireUser(request, { redirectTo: typeof back === "string" ? back : paths.recipe(recipeId) });
  const intent = readIntent(formData);
  if (intent !== "save" && intent !== "unsave") return refuseInteraction(formData, "Unknown action.", 400);
  const outcome = await setSaved({ actor: user, recipeId, saved: intent === "save" });
  if (!outcome.ok) return refuseInteraction(formData, outcome.message, outcome.status);
  if (isFetcherSubmission(formData)) return { saved: intent === "save" };
  return redirectBack(formData, paths.recipe(recipeId));
}

// Never shown: the loader redirects and the action answers data or redirects. Present so
// the route is not a resource route and a refused plain post renders its error page.
export default function ActionOnlyRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
