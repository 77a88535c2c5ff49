import crypto from "node:crypto";

import type { Transaction } from "kysely";

import type { RecipeInput } from "../validation/recipe.server";
import { db, type DB } from "../db.server";
import type { Database } from "../db-types.server";
import { nextSeq, todayDate } from "./seq.server";

// Writes of recipes and their posts (SPEC §4 "Recipe editor", "Delete recipe"). Each function
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

export interface RecipeParts {
  tags?: string[];
  /** `id`: the section's id as the writer has it ("" or left out for a new section). */
  sections?: { id?: string; title: string; ingredients: string[] }[];
  steps?: string[];
}

/**
 * The ids a write gives a recipe's sections: one policy for the editor, the API, the admin's text,
 * the seed and the tests. A section keeps the id it comes with when that id is already this
 * recipe's or nobody's (so ids stay stable across edits and the seed's ids are kept); a section
 * without an id takes the id the recipe's section at the same position had (the admin's text
 * has no ids); anything else, or an id used twice, gets a new one.
 */
export function planSectionIds({
  wanted,
  own,
  takenElsewhere,
}: {
  wanted: (string | undefined)[];
  own: readonly string[];
  takenElsewhere: ReadonlySet<string>;
}): string[] {
  const used = new Set<string>();
  const ownIds = new Set(own);
  return wanted.map((id, position) => {
    const candidates = [id && (ownIds.has(id) || !takenElsewhere.has(id)) ? id : undefined, id ? undefined : own[position]];
    const chosen = candidates.find((candidate): candidate is string => candidate !== undefined && candidate !== "" && !used.has(candidate)) ?? crypto.randomUUID();
    used.add(chosen);
    return chosen;
  });
}

/** The rows of a recipe's parts, in order, for the section ids chosen by planSectionIds. */
export function recipePartRows(recipeId: string, parts: RecipeParts, sectionIds: readonly string[]) {
  return {
    tags: (parts.tags ?? []).map((tag, position) => ({ recipe_id: recipeId, position, tag })),
    sections: (parts.sections ?? []).map((section, position) => ({ id: sectionIds[position]!, recipe_id: recipeId, position, title: section.title })),
    lines: (parts.sections ?? []).flatMap((section, position) =>
      section.ingredients.map((text, linePosition) => ({ section_id: sectionIds[position]!, position: linePosition, text })),
    ),
    steps: (parts.steps ?? []).map((text, position) => ({ recipe_id: recipeId, position, text })),
  };
}

/**
 * Replaces the parts of a recipe that `parts` names (tags, sections with their lines, steps),
 * inside the caller's transaction. The only writer of recipe parts in the app (the seed at scale
 * inserts the same rows, from recipePartRows, with its own statements).
 */
export async function writeRecipeParts(trx: Trx | DB, recipeId: string, parts: RecipeParts): Promise<void> {
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
  await database.transaction().execute(async (trx) => {
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
        seq: nextSeq("recipes"),
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
        seq: nextSeq("posts"),
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
  return database.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom("recipes")
      .select(["photo", "user_created"])
      .where("id", "=", recipeId)
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
          seq: nextSeq("posts"),
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
  return database.transaction().execute(async (trx) => {
    const recipe = await trx.selectFrom("recipes").select("photo").where("id", "=", recipeId).executeTakeFirst();
    if (!recipe) return undefined;
    // The post first (its likes and comments cascade from it), then the recipe and the rest.
    await trx.deleteFrom("posts").where("recipe_id", "=", recipeId).execute();
    await trx.deleteFrom("recipes").where("id", "=", recipeId).execute();
    return { photo: recipe.photo };
  });
}
