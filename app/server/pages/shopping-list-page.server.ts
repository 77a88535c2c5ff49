// The shopping list (/ReciPals/ShoppingList, docs/rules.md#shopping-list): what it shows and what
// its controls post. The rules are the shopping service's.
import { redirect } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { convertIngredientLine } from "~/lib/units";
import { getLens, requireUser } from "~/server/auth/session.server";
import { db } from "~/server/db/connection.server";
import { readForm } from "~/server/http/body.server";
import { isFetcherSubmission, redirectBack, refuseInteraction } from "~/server/http/interaction.server";
import { readIntent } from "~/server/http/responses.server";
import { unitsOf } from "~/server/http/units.server";
import {
  addRecipeToList,
  clearChecked,
  clearList,
  getShoppingList,
  removeRecipeFromList,
  setItemsChecked,
} from "~/server/services/shopping-service.server";

/** The viewer's list, by recipe, or merged by item (`?view=item`). */
export async function loadShoppingListPage(request: Request) {
  const user = await requireUser(request);
  // Merged only for the view that shows it: the page's data carries each line once.
  const byItem = new URL(request.url).searchParams.get("view") === "item";
  const { hidden } = await getLens(request);
  const list = await getShoppingList(user.id, db, { merge: byItem, without: hidden });
  // In the units chosen on the recipe pages (Metric or US), when a choice was made; as added otherwise.
  const units = unitsOf(request.headers.get("Cookie"));
  if (!units) return { ...list, byItem, units };
  const inUnits = <T extends { text: string }>(item: T): T => ({ ...item, text: convertIngredientLine(item.text, units) });
  return {
    ...list,
    recipes: list.recipes.map((recipe) => ({ ...recipe, items: recipe.items.map(inUnits) })),
    merged: list.merged && {
      byItem: list.merged.byItem.map(inUnits),
      unmerged: list.merged.unmerged.map((group) => ({ ...group, items: group.items.map(inUnits) })),
    },
    byItem,
    units,
  };
}

/** Every control of the list (and "Add to shopping list" of a recipe page) posts here. */
export async function shoppingListPageAction(request: Request) {
  const formData = await readForm(request);
  const back = formData.get("redirectTo");
  const user = await requireUser(request, { redirectTo: typeof back === "string" ? back : paths.shoppingList() });
  const intent = readIntent(formData);
  const recipeId = String(formData.get("recipeId") ?? "");
  let outcome;
  if (intent === "add") outcome = await addRecipeToList({ actor: user, recipeId, serves: formData.get("serves") ?? undefined, scale: formData.get("scale") ?? undefined });
  else if (intent === "check" || intent === "uncheck") outcome = await setItemsChecked({ actor: user, itemIds: formData.getAll("id"), checked: intent === "check" });
  else if (intent === "clear-checked") outcome = await clearChecked({ actor: user });
  else if (intent === "remove-recipe") outcome = await removeRecipeFromList({ actor: user, recipeId });
  else if (intent === "clear" && formData.get("confirm") === "yes") outcome = await clearList({ actor: user });
  // Clearing without the confirmation's answer asks for it first (docs/rules.md#confirmations).
  else if (intent === "clear") return redirect(`${paths.shoppingList()}?confirm=clear`);
  else return refuseInteraction(formData, "Unknown action.", 400);
  if (!outcome.ok) return refuseInteraction(formData, outcome.message, outcome.status);
  if (isFetcherSubmission(formData)) return { ok: true as const, intent };
  return redirectBack(formData, paths.shoppingList());
}
