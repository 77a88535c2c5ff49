// Saving a recipe (/ReciPals/Recipes/{id}/Save): an address that only takes the posts of the Save
// buttons, and answers the button's fetcher or goes back to the page it was on.
import { paths } from "~/lib/paths";
import { requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { isFetcherSubmission, redirectBack, refuseInteraction } from "~/server/http/interaction.server";
import { readIntent } from "~/server/http/responses.server";
import { setSaved } from "~/server/services/interactions-service.server";

/** Save or unsave a recipe for the session user (idempotent both ways). */
export async function savePageAction(request: Request, recipeId: string) {
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
