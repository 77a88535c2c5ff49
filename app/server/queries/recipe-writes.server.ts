import crypto from "node:crypto";

import type { Transaction } from "kysely";

import type { RecipeInput } from "../validation/recipe-schema.server";
import { db, engineOf, withinTransaction, type DB } from "../db/connection.server";
import type { Database } from "../db/schema.server";
import { planSectionIds, recipePartRows, type RecipeParts } from "./recipe-parts.server";
import { nextSeq, todayDate } from "./seq.server";

// Writes of recipes and their posts (docs/rules.md#recipe-and-post). Each function
// is one transaction: a recipe never exists without its post, and a refused write leaves nothing.
// Plain rows only: the search index follows these tables through its own triggers.

type Trx = Transaction<Database>;

/** What the editor needs to decide create vs edit and who may touch the recipe. */
export interface RecipeOwnership {
  id: string;
  user_created: string | null;
  photo: string;
  post_id: string | null;
}

export async function getRecipeOwnership(id: string, database: DB = db): Promise<RecipeOwnership | undefined> {
  return database
    .selectFrom("recipes as r")
    .leftJoin("posts as p", "p.recipe_id", "r.id")
    .select(["r.id", "r.user_created", "r.photo", "p.id as post_id"])
    .where("r.id", "=", id)
    .executeTakeFirst();
}

/**
 * Replaces the parts of a recipe that `parts` names (tags, sections with their lines, steps),
 * inside the caller's transaction. The only writer of recipe parts in the app (the seed at scale
 * inserts the same rows, from recipePartRows, with its own statements).
 */
export async function writeRecipeParts(trx: Trx | DB, recipeId: string, parts: RecipeParts): Promise<void> {
  // Two writers of one recipe's parts take turns on its row: each replaces the parts whole.
  await engineOf(trx).writers.forUpdate(trx.selectFrom("recipes").select("id").where("id", "=", recipeId)).execute();
  let sectionIds: string[] = [];
  if (parts.sections) {
    const own = (await trx.selectFrom("ingredient_sections").select("id").where("recipe_id", "=", recipeId).orderBy("position").execute()).map((row) => row.id);
    const sent = parts.sections.map((section) => section.id).filter((id): id is string => Boolean(id));
    const elsewhere =
      sent.length === 0
        ? []
        : (await trx.selectFrom("ingredient_sections").select("id").where("id", "in", sent).where("recipe_id", "<>", recipeId).execute()).map((row) => row.id);
    sectionIds = planSectionIds({ wanted: parts.sections.map((section) => section.id), own, takenElsewhere: new Set(elsewhere) });
    // Lines go with their sections (FK cascade).
    await trx.deleteFrom("ingredient_sections").where("recipe_id", "=", recipeId).execute();
  }
  if (parts.tags) await trx.deleteFrom("recipe_tags").where("recipe_id", "=", recipeId).execute();
  if (parts.steps) await trx.deleteFrom("steps").where("recipe_id", "=", recipeId).execute();
  const rows = recipePartRows(recipeId, parts, sectionIds);
  if (rows.tags.length > 0) await trx.insertInto("recipe_tags").values(rows.tags).execute();
  if (rows.sections.length > 0) await trx.insertInto("ingredient_sections").values(rows.sections).execute();
  if (rows.lines.length > 0) await trx.insertInto("ingredient_lines").values(rows.lines).execute();
  if (rows.steps.length > 0) await trx.insertInto("steps").values(rows.steps).execute();
}

/**
 * Creates a recipe and its post together: the post's title is the name, its caption the
 * description, the same photo, dated today (YYYY-MM-DD). `created_by` links the post to the user.
 */
export async function createRecipeWithPost(
  {
    recipeId,
    postId = crypto.randomUUID(),
    userId,
    input,
    photo,
  }: { recipeId: string; postId?: string; userId: string; input: RecipeInput; photo: string },
  database: DB = db,
): Promise<{ recipeId: string; postId: string }> {
  const today = todayDate();
  await withinTransaction(database, async (trx) => {
    await trx
      .insertInto("recipes")
      .values({
        id: recipeId,
        user_created: userId,
        name: input.name,
        description: input.description,
        total_time: input.totalTime,
        serves: input.serves,
        photo,
        created_at: today,
        seq: nextSeq(trx, "recipes"),
      })
      .execute();
    await writeRecipeParts(trx, recipeId, input);
    await trx
      .insertInto("posts")
      .values({
        id: postId,
        recipe_id: recipeId,
        created_by: userId,
        title: input.name,
        caption: input.description,
        photo,
        created_at: today,
        seq: nextSeq(trx, "posts"),
      })
      .execute();
  });
  return { recipeId, postId };
}

/**
 * Updates a recipe and its post together (title, caption and photo follow the recipe). The
 * creator never changes. A recipe that somehow lacks its post gets one. Returns the photo it had
 * before, so a replaced upload can be cleaned up, or undefined when the recipe is gone.
 */
export async function updateRecipeAndPost(
  { recipeId, input, photo }: { recipeId: string; input: RecipeInput; photo: string },
  database: DB = db,
): Promise<{ previousPhoto: string; postId: string } | undefined> {
  return withinTransaction(database, async (trx) => {
    const current = await engineOf(trx)
      .writers.forUpdate(trx.selectFrom("recipes").select(["photo", "user_created"]).where("id", "=", recipeId))
      .executeTakeFirst();
    if (!current) return undefined;
    await trx
      .updateTable("recipes")
      .set({ name: input.name, description: input.description, total_time: input.totalTime, serves: input.serves, photo })
      .where("id", "=", recipeId)
      .execute();
    await writeRecipeParts(trx, recipeId, input);

    const post = await trx.selectFrom("posts").select("id").where("recipe_id", "=", recipeId).executeTakeFirst();
    let postId = post?.id;
    if (postId) {
      await trx
        .updateTable("posts")
        .set({ title: input.name, caption: input.description, photo })
        .where("id", "=", postId)
        .execute();
    } else {
      postId = crypto.randomUUID();
      await trx
        .insertInto("posts")
        .values({
          id: postId,
          recipe_id: recipeId,
          created_by: current.user_created,
          title: input.name,
          caption: input.description,
          photo,
          created_at: todayDate(),
          seq: nextSeq(trx, "posts"),
        })
        .execute();
    }
    return { previousPhoto: current.photo, postId };
  });
}

/**
 * Deletes a recipe with its post, the post's likes and comments, every save of it, its tags,
 * sections and steps (FK cascades, one transaction). Returns the photo it had, or undefined
 * when there was no such recipe.
 */
export async function deleteRecipe({ recipeId }: { recipeId: string }, database: DB = db): Promise<{ photo: string } | undefined> {
  return withinTransaction(database, async (trx) => {
    const recipe = await trx.selectFrom("recipes").select("photo").where("id", "=", recipeId).executeTakeFirst();
    if (!recipe) return undefined;
    // The post first (its likes and comments cascade from it), then the recipe and the rest.
    await trx.deleteFrom("posts").where("recipe_id", "=", recipeId).execute();
    await trx.deleteFrom("recipes").where("id", "=", recipeId).execute();
    return { photo: recipe.photo };
  });
}
