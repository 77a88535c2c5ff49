// Cook mode (/ReciPals/Recipes/{id}/Cook?step=N, docs/rules.md#cook-mode): one step of a recipe,
// its ingredients at the amounts asked for, and the links around it, all written by the server so
// the page works without JavaScript and its script carries none of the readers.
import { redirect, type AppLoadContext } from "@remix-run/node";

import { contentVersion, cookAmounts, cookPath, findDurations, ingredientsInStep, readStep, recipePathWith } from "~/lib/cook-mode";
import { paths } from "~/lib/paths";
import { scaleLabel } from "~/lib/scale";
import { convertStepTemperatures, presentIngredientLine } from "~/lib/units";
import { getLens } from "~/server/auth/session.server";
import { CacheScope } from "~/server/cache/scopes.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { invariantResponse } from "~/server/http/responses.server";
import { unitsOf } from "~/server/http/units.server";
import { getRecipeDetail } from "~/server/queries/recipes.server";
import { isHidden, UNAVAILABLE_RECIPE } from "~/server/queries/visibility.server";

/** One step of cook mode, in the reader's unit system (docs/rules.md#units: the `recipals_units` cookie). */
export async function loadCookPage(request: Request, recipeId: string, context: AppLoadContext) {
  const recipe = await getRecipeDetail(recipeId);
  invariantResponse(recipe, "Recipe not found.", 404);
  // What the recipe page shows and names (app/server/cache/scopes.server.ts).
  scopeSharedCache(context, [CacheScope.recipe(recipe.recipe_id)]);
  // The recipe page's rule (docs/rules.md#blocking-and-muting, #suspension): refused before the
  // step is read, so a refused viewer learns nothing, not even how many steps there are.
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, recipe.user_created)), UNAVAILABLE_RECIPE, 404);

  const { searchParams } = new URL(request.url);
  const amounts = cookAmounts(recipe.serves, searchParams);
  const total = recipe.steps.length;
  const { step, redirect: elsewhere } = readStep(searchParams.getAll("step"), total);
  if (elsewhere) throw redirect(cookPath(recipe.recipe_id, amounts, step));

  const system = unitsOf(request.headers.get("Cookie"));
  const rawText = step > 0 ? recipe.steps[step - 1]! : "";
  const text = system === null ? rawText : convertStepTemperatures(rawText, system);
  const lines = recipe.ingredients_sec.flatMap((section) => section.ingredients);
  const shown = (line: string) => presentIngredientLine(line, amounts.factor, system);
  const servesShown = recipe.serves === null ? null : (amounts.serves ?? recipe.serves);
  return {
    recipe: { id: recipe.recipe_id, name: recipe.name },
    step,
    total,
    text,
    durations: findDurations(text),
    // Matched on the lines as written (scaling does not change what they name), shown as the page shows them.
    mentioned: step > 0 ? ingredientsInStep(rawText, lines).map((index) => shown(lines[index]!)) : [],
    sections: recipe.ingredients_sec.map((section) => ({ id: section._id, title: section.title, lines: section.ingredients.map(shown) })),
    amountsNote:
      servesShown !== null ? `For ${servesShown} ${servesShown === 1 ? "serving" : "servings"}` : amounts.factor !== 1 ? `At ${scaleLabel(amounts.factor)}` : null,
    links: {
      previous: step > 1 ? cookPath(recipe.recipe_id, amounts, step - 1) : null,
      next: step > 0 && step < total ? cookPath(recipe.recipe_id, amounts, step + 1) : null,
      back: recipePathWith(recipe.recipe_id, amounts),
    },
    // For the service worker's offline copies of these pages (public/sw.js, app/lib/service-worker.ts).
    offline: {
      recipe: paths.recipe(recipe.recipe_id),
      steps: total,
      version: contentVersion([recipe.name, recipe.serves, recipe.steps, recipe.ingredients_sec.map((section) => [section.title, section.ingredients])]),
    },
  };
}
