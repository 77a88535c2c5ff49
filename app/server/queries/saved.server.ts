import { db, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";
import { nowIso, nextSeq } from "./seq.server";
import { shownPerson } from "./visibility.server";

export interface SavedRecipeCard {
  recipe_id: string;
  post_id: string | null;
  name: string;
  description: string;
  photo: string;
  total_time: string;
}

/** A user's saved recipes, most recently saved first, with the post each links to (if any); none by the people in `without`. */
export async function listSavedRecipes(userId: string, { without = [] }: { without?: readonly string[] } = {}, database: DB = db): Promise<SavedRecipeCard[]> {
  return database
    .selectFrom("saved_recipes as s")
    .innerJoin("recipes as r", "r.id", "s.recipe_id")
    .leftJoin("posts as p", "p.recipe_id", "r.id")
    .select(["r.id as recipe_id", "p.id as post_id", "r.name", "r.description", "r.photo", "r.total_time"])
    .where("s.user_id", "=", userId)
    .where(shownPerson("r.user_created", without))
    .orderBy("s.seq", "desc")
    .execute();
}

const savedRow = preparedRead((database, userId: string, recipeId: string) =>
  database.selectFrom("saved_recipes").select("recipe_id").where("user_id", "=", userId).where("recipe_id", "=", recipeId),
);

export async function isRecipeSaved(userId: string, recipeId: string, database: DB = db): Promise<boolean> {
  return (await savedRow(database, userId, recipeId)).length > 0;
}

/** Saves or unsaves; idempotent both ways, so a double submit never toggles twice. True when it changed something. */
export async function setRecipeSaved(
  { userId, recipeId, saved }: { userId: string; recipeId: string; saved: boolean },
  database: DB = db,
): Promise<boolean> {
  if (saved) {
    const added = await database
      .insertInto("saved_recipes")
      .values({ user_id: userId, recipe_id: recipeId, created_at: nowIso(), seq: nextSeq(database, "saved_recipes") })
      .onConflict((oc) => oc.columns(["user_id", "recipe_id"]).doNothing())
      .executeTakeFirst();
    return Number(added.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  {
    const removed = await database
      .deleteFrom("saved_recipes")
      .where("user_id", "=", userId)
      .where("recipe_id", "=", recipeId)
      .executeTakeFirst();
    return Number(removed.numDeletedRows) > 0;
  }
}
