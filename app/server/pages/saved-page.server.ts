// Saved Recipes (/ReciPals/Saved): the recipes the viewer saved, each with its photo's inline
// placeholder. Signed-in people only.
import { getLens, requireUser } from "~/server/auth/session.server";
import { withPlaceholders } from "~/server/media/placeholders.server";
import { listSavedRecipes } from "~/server/queries/saved.server";

/** The viewer's saved recipes, without those of people their lens hides. */
export async function loadSavedPage(request: Request) {
  const user = await requireUser(request);
  const recipes = await listSavedRecipes(user.id, { without: (await getLens(request)).hidden });
  return { recipes: await withPlaceholders(recipes, (recipe) => recipe.photo) };
}
