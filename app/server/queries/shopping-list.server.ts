import crypto from "node:crypto";

import { db, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";
import { nextSeq, nowIso } from "./seq.server";
import { shownPerson, type PersonList } from "./visibility.server";

// The shopping list's rows (docs/rules.md#shopping-list): `shopping_recipes` (a recipe put on a
// person's list, at its servings or multiplier, in the order added) and `shopping_items` (its
// lines as they read then, each with a check mark). Every function reads or writes one person's
// rows only; the rules (limits, what may be added, the lock around a write) are the shopping
// service's.

/** The person's recipes on the list in the order added (none by the people in `without`), and all their items. */
export async function listShoppingRows(userId: string, without: PersonList, database: DB = db) {
  const [recipes, items] = await Promise.all([
    database
      .selectFrom("shopping_recipes as s")
      .innerJoin("recipes as r", "r.id", "s.recipe_id")
      .select(["s.recipe_id", "r.name", "s.serves", "s.scale_percent"])
      .where("s.user_id", "=", userId)
      .where(shownPerson("r.user_created", without))
      .orderBy("s.seq")
      .execute(),
    database
      .selectFrom("shopping_items")
      .select(["id", "recipe_id", "text", "checked"])
      .where("user_id", "=", userId)
      .orderBy("recipe_id")
      .orderBy("position")
      .execute(),
  ]);
  return { recipes, items };
}

const listedRow = preparedRead((database, userId: string, recipeId: string) =>
  database.selectFrom("shopping_recipes").select("recipe_id").where("user_id", "=", userId).where("recipe_id", "=", recipeId),
);

/** Whether the recipe is on the person's list (the recipe page's button says so). */
export async function isOnShoppingList(userId: string, recipeId: string, database: DB = db): Promise<boolean> {
  return (await listedRow(database, userId, recipeId)).length > 0;
}

/** How many recipes, or items, the person's list holds. */
export async function countShoppingRows(database: DB, table: "shopping_recipes" | "shopping_items", userId: string): Promise<number> {
  const row = await database
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One recipe's items on the person's list, with their check marks. */
export function listRecipeItems(database: DB, userId: string, recipeId: string) {
  return database.selectFrom("shopping_items").select(["position", "text", "checked"]).where("user_id", "=", userId).where("recipe_id", "=", recipeId).execute();
}

/** Puts a recipe on the person's list (or updates its servings) with these lines, replacing its earlier ones. */
export async function replaceRecipeOnList(
  database: DB,
  { userId, recipeId, serves, scalePercent, lines }: { userId: string; recipeId: string; serves: number | null; scalePercent: number | null; lines: { text: string; checked: boolean }[] },
): Promise<void> {
  await database.deleteFrom("shopping_items").where("user_id", "=", userId).where("recipe_id", "=", recipeId).execute();
  await database
    .insertInto("shopping_recipes")
    .values({ user_id: userId, recipe_id: recipeId, serves, scale_percent: scalePercent, added_at: nowIso(), seq: nextSeq(database, "shopping_recipes", userId) })
    .onConflict((oc) => oc.columns(["user_id", "recipe_id"]).doUpdateSet({ serves, scale_percent: scalePercent }))
    .execute();
  if (lines.length === 0) return;
  await database
    .insertInto("shopping_items")
    .values(lines.map(({ text, checked }, position) => ({ id: crypto.randomUUID(), user_id: userId, recipe_id: recipeId, position, text, checked: checked ? 1 : 0 })))
    .execute();
}

/** How many of these item ids are on the person's list. */
export async function countOwnItems(database: DB, userId: string, ids: string[]): Promise<number> {
  const own = await database.selectFrom("shopping_items").select((eb) => eb.fn.countAll<number>().as("n")).where("user_id", "=", userId).where("id", "in", ids).executeTakeFirstOrThrow();
  return Number(own.n);
}

/** Checks or unchecks these items of the person's list. */
export async function setItemsCheckedRows(database: DB, userId: string, ids: string[], checked: boolean): Promise<void> {
  await database.updateTable("shopping_items").set({ checked: checked ? 1 : 0 }).where("user_id", "=", userId).where("id", "in", ids).execute();
}

/** Drops the person's checked items, and the recipes left with none. */
export async function deleteCheckedItems(database: DB, userId: string): Promise<void> {
  await database.deleteFrom("shopping_items").where("user_id", "=", userId).where("checked", "=", 1).execute();
  await database
    .deleteFrom("shopping_recipes")
    .where("user_id", "=", userId)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("shopping_items as i").select("i.id").whereRef("i.user_id", "=", "shopping_recipes.user_id").whereRef("i.recipe_id", "=", "shopping_recipes.recipe_id"))),
    )
    .execute();
}

/** Takes one recipe and its items off the person's list; whether it was there. */
export async function deleteRecipeFromList(database: DB, userId: string, recipeId: string): Promise<boolean> {
  await database.deleteFrom("shopping_items").where("user_id", "=", userId).where("recipe_id", "=", recipeId).execute();
  const result = await database.deleteFrom("shopping_recipes").where("user_id", "=", userId).where("recipe_id", "=", recipeId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Empties the person's list. */
export async function deleteList(database: DB, userId: string): Promise<void> {
  await database.deleteFrom("shopping_items").where("user_id", "=", userId).execute();
  await database.deleteFrom("shopping_recipes").where("user_id", "=", userId).execute();
}
