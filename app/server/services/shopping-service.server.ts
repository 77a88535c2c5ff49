import { z } from "zod";

import { scaleIngredientLine } from "~/lib/quantity";
import { MAX_SERVES, SCALE_MESSAGE } from "~/lib/servings";
import { parseScale } from "~/lib/scale";
import { mergeShoppingList, type ShoppingList } from "~/lib/shopping-merge";

import { db, engineOf, writeTransaction, type DB } from "../db/connection.server";
import { getRecipeDetail } from "../queries/recipes.server";
import {
  countOwnItems,
  countShoppingRows,
  deleteCheckedItems,
  deleteList,
  deleteRecipeFromList,
  isOnShoppingList,
  listRecipeItems,
  listShoppingRows,
  replaceRecipeOnList,
  setItemsCheckedRows,
} from "../queries/shopping-list.server";
import { isOutOfReach, UNAVAILABLE_RECIPE, type PersonList } from "../queries/visibility.server";
import { done, refusal, RefusedError, type Actor, type Outcome } from "./outcome-service.server";

// A person's shopping list (docs/rules.md#shopping-list): recipes added at the servings shown,
// their ingredient lines as they read then, each with a check mark. Only ever the actor's own
// list: there is no way to name another person's. Every write is one transaction; a refused one
// changes nothing.

export const SHOPPING_LIMITS = { recipes: 100, items: 2000 } as const;

export const SHOPPING_MESSAGES = {
  recipeMissing: "Recipe not found.",
  notOnList: "That recipe is not on your shopping list.",
  itemMissing: "That item is not on your shopping list.",
  tooManyRecipes: `Your shopping list holds at most ${SHOPPING_LIMITS.recipes} recipes. Remove one to add another.`,
  tooManyItems: `Your shopping list holds at most ${SHOPPING_LIMITS.items.toLocaleString("en-US")} items. Clear some to add more.`,
  badServes: `Servings must be a whole number from 1 to ${MAX_SERVES}.`,
  badScale: SCALE_MESSAGE,
  badItems: "Please choose items of your shopping list.",
} as const;

export interface ShoppingRecipe {
  recipe_id: string;
  name: string;
  serves: number | null;
  /** The multiplier chosen for a recipe without servings (2, 0.5), or null. */
  scale: number | null;
  items: { id: string; text: string; checked: boolean }[];
}

export interface ShoppingListView {
  recipes: ShoppingRecipe[];
  /** Merged by item; null when not asked for (the page by recipe never shows it). */
  merged: ShoppingList | null;
  itemCount: number;
  checkedCount: number;
}

/**
 * A write transaction on one person's list. Writes to one list take turns (the limits are counted
 * before adding, and re-adding a recipe replaces its items); different people's lists go side by
 * side (docs/scaling.md, "How writers meet").
 */
function onOwnList<T>(userId: string, work: (trx: DB) => Promise<T>): Promise<T> {
  return writeTransaction(db, async (trx) => {
    await engineOf(trx).writers.lock(trx, [`shopping:${userId}`]);
    return work(trx);
  });
}

/**
 * The actor's list, by recipe in the order added, and merged by item unless `merge` is false. The
 * recipes of the people in `without` (their lens: a block either way, a suspension) are left out
 * with their items, and kept: an unblock shows them again.
 */
export async function getShoppingList(
  userId: string,
  database: DB = db,
  { merge = true, without = [] }: { merge?: boolean; without?: PersonList } = {},
): Promise<ShoppingListView> {
  const { recipes, items: allItems } = await listShoppingRows(userId, without, database);
  const byRecipe = new Map<string, ShoppingRecipe>(
    recipes.map(({ scale_percent, ...recipe }) => [recipe.recipe_id, { ...recipe, scale: scale_percent === null ? null : scale_percent / 100, items: [] }]),
  );
  const items = allItems.filter((item) => byRecipe.has(item.recipe_id));
  for (const item of items) byRecipe.get(item.recipe_id)?.items.push({ id: item.id, text: item.text, checked: Number(item.checked) === 1 });
  const list = [...byRecipe.values()];
  const counts = { itemCount: items.length, checkedCount: items.filter((item) => Number(item.checked) === 1).length };
  if (!merge) return { recipes: list, merged: null, ...counts };
  const merged = mergeShoppingList(
    list.flatMap((recipe) => recipe.items.map((item) => ({ ...item, recipeId: recipe.recipe_id, recipeName: recipe.name }))),
  );
  // Lines shown as written keep their recipe's order (the merge orders by id, to be order-free).
  const order = new Map(items.map((item, index) => [item.id, index]));
  for (const group of merged.unmerged) group.items.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return { recipes: list, merged, ...counts };
}

// A multiplier as a form sends it ("2", "1.5", "1/2"): within ¼…20, in hundredths.
const ScaleSchema = z
  .union([z.number().transform(String), z.string()])
  .transform((value, context) => {
    const scale = parseScale(value);
    if (scale === "invalid") {
      context.addIssue({ code: "custom", message: SHOPPING_MESSAGES.badScale });
      return z.NEVER;
    }
    return scale;
  });

// A whole number as a form sends it ("8") or as JSON does (8); nothing else is read as one.
const ServesSchema = z
  .union([z.number(), z.string().trim().regex(/^\d{1,3}$/).transform(Number)], { message: SHOPPING_MESSAGES.badServes })
  .pipe(z.number().int(SHOPPING_MESSAGES.badServes).min(1, SHOPPING_MESSAGES.badServes).max(MAX_SERVES, SHOPPING_MESSAGES.badServes));

/**
 * Puts a recipe's ingredients on the actor's list at `serves` (the recipe's own when it has none
 * or none is given), or, for a recipe without stated servings, at the multiplier `scale`. A
 * recipe already on the list is replaced, keeping the check marks of lines that read the same.
 */
export async function addRecipeToList({
  actor,
  recipeId,
  serves,
  scale,
}: {
  actor: Actor;
  recipeId: string;
  serves?: unknown;
  scale?: unknown;
}): Promise<Outcome<{ items: number }>> {
  const recipe = await getRecipeDetail(recipeId);
  if (!recipe) return refusal(404, SHOPPING_MESSAGES.recipeMissing);
  // A recipe whose creator and the reader blocked one another is not theirs to read (docs/rules.md#blocking-and-muting).
  if (recipe.user_created && recipe.user_created !== actor.id && (await isOutOfReach(actor.id, recipe.user_created))) {
    return refusal(404, UNAVAILABLE_RECIPE);
  }
  let chosen = recipe.serves;
  if (serves !== undefined && serves !== null && serves !== "" && recipe.serves !== null) {
    const parsed = ServesSchema.safeParse(serves);
    if (!parsed.success) return refusal(400, SHOPPING_MESSAGES.badServes, { errors: { serves: SHOPPING_MESSAGES.badServes } });
    chosen = parsed.data;
  }
  // A multiplier only where there are no servings to scale from.
  let multiplier: number | null = null;
  if (scale !== undefined && scale !== null && scale !== "" && recipe.serves === null) {
    const parsed = ScaleSchema.safeParse(scale);
    if (!parsed.success) return refusal(400, SHOPPING_MESSAGES.badScale, { errors: { scale: SHOPPING_MESSAGES.badScale } });
    multiplier = parsed.data === 1 ? null : parsed.data;
  }
  const factor = recipe.serves && chosen ? chosen / recipe.serves : (multiplier ?? 1);
  const lines = recipe.ingredients_sec.flatMap((section) => section.ingredients).map((line) => (factor === 1 ? line : scaleIngredientLine(line, factor)));
  try {
    return await onOwnList(actor.id, async (trx) => {
      const previous = await listRecipeItems(trx, actor.id, recipeId);
      if (previous.length === 0 && !(await isOnShoppingList(actor.id, recipeId, trx))) {
        if ((await countShoppingRows(trx, "shopping_recipes", actor.id)) >= SHOPPING_LIMITS.recipes) throw new RefusedError(refusal(409, SHOPPING_MESSAGES.tooManyRecipes));
      }
      if ((await countShoppingRows(trx, "shopping_items", actor.id)) - previous.length + lines.length > SHOPPING_LIMITS.items) {
        throw new RefusedError(refusal(409, SHOPPING_MESSAGES.tooManyItems));
      }
      // Check marks follow the text: each checked line marks one line that reads the same.
      const kept = new Map<string, number>();
      for (const item of previous) if (Number(item.checked) === 1) kept.set(item.text, (kept.get(item.text) ?? 0) + 1);
      const keepsMark = (text: string) => {
        const left = kept.get(text) ?? 0;
        if (left > 0) kept.set(text, left - 1);
        return left > 0;
      };
      await replaceRecipeOnList(trx, {
        userId: actor.id,
        recipeId,
        serves: chosen,
        scalePercent: multiplier === null ? null : Math.round(multiplier * 100),
        lines: lines.map((text) => ({ text, checked: keepsMark(text) })),
      });
      return done({ items: lines.length });
    });
  } catch (error) {
    if (error instanceof RefusedError) return error.refusal;
    throw error;
  }
}

const ItemIdsSchema = z.array(z.string().min(1).max(100), { message: SHOPPING_MESSAGES.badItems }).min(1, SHOPPING_MESSAGES.badItems).max(SHOPPING_LIMITS.items, SHOPPING_MESSAGES.badItems);

/** Checks or unchecks items of the actor's own list; any id not on it refuses the whole change. */
export async function setItemsChecked({ actor, itemIds, checked }: { actor: Actor; itemIds: unknown; checked: boolean }): Promise<Outcome> {
  const parsed = ItemIdsSchema.safeParse(itemIds);
  if (!parsed.success) return refusal(400, SHOPPING_MESSAGES.badItems);
  const ids = [...new Set(parsed.data)];
  return onOwnList(actor.id, async (trx) => {
    if ((await countOwnItems(trx, actor.id, ids)) !== ids.length) return refusal(404, SHOPPING_MESSAGES.itemMissing);
    await setItemsCheckedRows(trx, actor.id, ids, checked);
    return done();
  });
}

/** Drops the checked items, and the recipes left with nothing to buy. */
export async function clearChecked({ actor }: { actor: Actor }): Promise<Outcome> {
  await onOwnList(actor.id, (trx) => deleteCheckedItems(trx, actor.id));
  return done();
}

/** Takes one recipe (and its items) off the actor's list. */
export async function removeRecipeFromList({ actor, recipeId }: { actor: Actor; recipeId: string }): Promise<Outcome> {
  const removed = await onOwnList(actor.id, (trx) => deleteRecipeFromList(trx, actor.id, recipeId));
  return removed ? done() : refusal(404, SHOPPING_MESSAGES.notOnList);
}

/** Empties the actor's list. */
export async function clearList({ actor }: { actor: Actor }): Promise<Outcome> {
  await onOwnList(actor.id, (trx) => deleteList(trx, actor.id));
  return done();
}
