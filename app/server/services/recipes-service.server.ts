import { canEditRecipe, isAdmin } from "~/lib/permissions";
import { formatIngredientText, formatStepsText, parseIngredientText, parseStepsText } from "~/lib/ingredient-text";

import { CacheScope, changing } from "../cache/scopes.server";
import { isUniqueViolation } from "../db/connection.server";
import { applyPicture, type PicturePlan } from "../media/pictures.server";
import { deleteImageIfUnreferenced, forgetPendingUploads } from "../media/uploads.server";
import { getPostOwnership } from "../queries/posts.server";
import { getRecipeDetail } from "../queries/recipes.server";
import {
  createRecipeWithPost,
  deleteRecipe as deleteRecipeRows,
  getRecipeOwnership,
  updateRecipeAndPost,
  writeRecipeParts,
} from "../queries/recipe-writes.server";
import { publishRecipe } from "../federation/federation.server";
import { AdminTextSchema } from "../validation/admin-recipe-schema.server";
import { isUsableRecipeId, type RecipeInput } from "../validation/recipe-schema.server";
import { done, refusal, type Actor, type Outcome } from "./outcome-service.server";

// Recipes with their posts and photos, for the editor, the admin pages and the API alike
// (docs/rules.md#recipes). A recipe and its post are one unit: created, changed and deleted
// together in one transaction. Photos: a new upload is stored only once everything else is
// acceptable and removed again when the write fails; a replaced or deleted photo (the recipe's
// and the post's) goes once nothing else refers to it.
//
// Page-cache scopes (cache/scopes.server.ts): a recipe with its post is one scope (its page and
// JSON, its post's card and JSON), and its content is what search finds; creating or deleting one
// also changes the feed and its creator's list of posts.

export const RECIPE_SERVICE_MESSAGES = {
  notFound: "Recipe not found.",
  notAllowed: "You are not allowed to change this recipe.",
  notAllowedDelete: "You are not allowed to delete this recipe.",
  idTaken: "A recipe with that id already exists.",
  badId: "That recipe id cannot be used.",
  adminOnly: "Only administrators may do that.",
} as const;

/** Removes what a failed or finished write left unused: uploads nothing refers to any more. */
async function discard(urls: (string | null | undefined)[], keep: string): Promise<void> {
  for (const url of new Set(urls)) if (url && url !== keep) await deleteImageIfUnreferenced(url);
}

/**
 * A signed-in person creates a recipe (under `recipeId`, as the editor and the API choose it) with
 * its post. `pendingUploads`: photos this person's form stored earlier and did not end up using.
 */
export async function createRecipe({
  actor,
  recipeId,
  postId,
  input,
  photo,
  fallbackPhoto,
  pendingUploads = [],
}: {
  actor: Actor;
  recipeId: string;
  postId?: string;
  input: RecipeInput;
  photo: PicturePlan;
  /** The picture when `photo` keeps "what there is" (a new recipe has none yet). */
  fallbackPhoto: string;
  pendingUploads?: string[];
}): Promise<Outcome<{ recipeId: string; postId: string }>> {
  if (!isUsableRecipeId(recipeId)) return refusal(400, RECIPE_SERVICE_MESSAGES.badId);
  if (await getRecipeOwnership(recipeId)) return refusal(409, RECIPE_SERVICE_MESSAGES.idTaken);
  const applied = await applyPicture(photo, fallbackPhoto);
  if (!applied.ok) return refusal(applied.status, applied.message, { errors: { photo: applied.message } });
  const { url, uploaded } = applied;
  try {
    const created = await changing([CacheScope.recipe(recipeId), CacheScope.feed, CacheScope.search, CacheScope.user(actor.id)], (trx) =>
      createRecipeWithPost({ recipeId, postId, userId: actor.id, input, photo: url }, trx),
    );
    await forgetPendingUploads(actor.id, pendingUploads);
    await discard(pendingUploads, url);
    // To the author's followers on other servers (docs/federation.md), after the answer's work.
    void publishRecipe("create", { postId: created.postId, authorId: actor.id });
    return done(created);
  } catch (error) {
    if (uploaded) await deleteImageIfUnreferenced(url);
    // The same new recipe sent twice at once (a double click, the API client's retry): both passed
    // the check above and the unique index let the first one in. Known by either engine's code.
    if (isUniqueViolation(error)) return refusal(409, RECIPE_SERVICE_MESSAGES.idTaken);
    throw error;
  }
}

/** The creator or an ADMIN changes a recipe; its post's title, caption and photo follow. */
export async function updateRecipe({
  actor,
  recipeId,
  input,
  photo,
  pendingUploads = [],
}: {
  actor: Actor;
  recipeId: string;
  input: RecipeInput;
  photo: PicturePlan;
  pendingUploads?: string[];
}): Promise<Outcome<{ recipeId: string; postId: string }>> {
  const current = await getRecipeOwnership(recipeId);
  if (!current) return refusal(404, RECIPE_SERVICE_MESSAGES.notFound);
  if (!canEditRecipe(actor, current.user_created)) return refusal(403, RECIPE_SERVICE_MESSAGES.notAllowed);
  const postPhoto = current.post_id ? (await getPostOwnership(current.post_id))?.photo : undefined;
  const applied = await applyPicture(photo, current.photo);
  if (!applied.ok) return refusal(applied.status, applied.message, { errors: { photo: applied.message } });
  const { url, uploaded } = applied;
  let updated: Awaited<ReturnType<typeof updateRecipeAndPost>>;
  try {
    // A recipe without its post gets one here: a new post in the feed and in its creator's list.
    const newPost = !current.post_id;
    updated = await changing(
      [CacheScope.recipe(recipeId), CacheScope.search, newPost && CacheScope.feed, newPost && current.user_created && CacheScope.user(current.user_created)],
      (trx) => updateRecipeAndPost({ recipeId, input, photo: url }, trx),
    );
  } catch (error) {
    if (uploaded) await deleteImageIfUnreferenced(url);
    throw error;
  }
  if (!updated) {
    if (uploaded) await deleteImageIfUnreferenced(url);
    return refusal(404, RECIPE_SERVICE_MESSAGES.notFound);
  }
  await forgetPendingUploads(actor.id, pendingUploads);
  await discard([updated.previousPhoto, postPhoto, ...pendingUploads], url);
  void publishRecipe(current.post_id ? "update" : "create", { postId: updated.postId, authorId: current.user_created });
  return done({ recipeId, postId: updated.postId });
}

/** The creator or an ADMIN deletes a recipe with its post, likes, comments, saves and both photos. */
export async function deleteRecipe({ actor, recipeId }: { actor: Actor; recipeId: string }): Promise<Outcome<{ recipeId: string; postId: string | null }>> {
  const current = await getRecipeOwnership(recipeId);
  if (!current) return refusal(404, RECIPE_SERVICE_MESSAGES.notFound);
  if (!canEditRecipe(actor, current.user_created)) return refusal(403, RECIPE_SERVICE_MESSAGES.notAllowedDelete);
  const postPhoto = current.post_id ? (await getPostOwnership(current.post_id))?.photo : undefined;
  const deleted = await changing(
    [
      CacheScope.recipe(recipeId),
      CacheScope.feed,
      CacheScope.search,
      current.user_created && CacheScope.user(current.user_created),
    ],
    (trx) => deleteRecipeRows({ recipeId }, trx),
  );
  if (!deleted) return refusal(404, RECIPE_SERVICE_MESSAGES.notFound);
  await discard([deleted.photo, postPhoto], "");
  if (current.post_id) void publishRecipe("delete", { postId: current.post_id, authorId: current.user_created });
  return done({ recipeId, postId: current.post_id });
}

/**
 * An ADMIN replaces a recipe's ingredients or instructions from the plain-text format
 * (docs/rules.md#admin-text-format). The text it opened with, saved again, writes nothing.
 */
export async function editRecipeText({
  actor,
  recipeId,
  part,
  text,
}: {
  actor: Actor;
  recipeId: string;
  part: "ingredients" | "instructions";
  text: string;
}): Promise<Outcome<{ changed: boolean }>> {
  if (!isAdmin(actor)) return refusal(403, RECIPE_SERVICE_MESSAGES.adminOnly);
  const recipe = await getRecipeDetail(recipeId);
  if (!recipe) return refusal(404, RECIPE_SERVICE_MESSAGES.notFound);
  const checked = AdminTextSchema.safeParse({ text });
  if (!checked.success) return refusal(400, checked.error.issues[0]!.message);
  const same = (stored: string) => text.replace(/\r\n?/g, "\n").trim() === stored.trim();
  if (part === "ingredients") {
    if (same(formatIngredientText(recipe.ingredients_sec))) return done({ changed: false });
    const parsed = parseIngredientText(text);
    if (!parsed.ok) return refusal(400, parsed.error);
    await changing([CacheScope.recipe(recipeId), CacheScope.search], (trx) => writeRecipeParts(trx, recipeId, { sections: parsed.value }));
  } else {
    if (same(formatStepsText(recipe.steps))) return done({ changed: false });
    const parsed = parseStepsText(text);
    if (!parsed.ok) return refusal(400, parsed.error);
    await changing([CacheScope.recipe(recipeId)], (trx) => writeRecipeParts(trx, recipeId, { steps: parsed.value }));
  }
  return done({ changed: true });
}
