import crypto from "node:crypto";

import { z } from "zod";

import { RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";
import { canEditRecipe } from "~/lib/permissions";
import { draftFromRecipe, ERROR_KEY, type RecipeDraft } from "~/lib/recipe-form";

import { CacheScope } from "../cache/scopes.server";
import type { Actor } from "../services/outcome-service.server";
import { postExists } from "../queries/posts.server";
import { getRecipeOwnership } from "../queries/recipe-writes.server";
import { createRecipe as createRecipeService, deleteRecipe as deleteRecipeService, updateRecipe as updateRecipeService } from "../services/recipes-service.server";
import { EDITOR_MESSAGES } from "../services/recipe-editor-service.server";
import { getRecipeDetail, recipeExists } from "../queries/recipes.server";
import { searchRecipeIds, searchRecipes } from "../queries/search.server";
import { isUsableRecipeId, validateRecipeDraft, type RecipeInput } from "../validation/recipe-schema.server";
import { scopeSharedCache } from "../cache/shared-cache.server";
import { parseSearchParams } from "../validation/search-schema.server";
import { apiRecipe, apiRecipesByIds, jsonList, NOT_FOUND, parseListWindow, streamRecipes } from "./entities-api.server";
import { ApiError, invalid, json, param, readJsonObject, requireApiUser, type ApiArgs } from "../http/api.server";
import { getLens } from "../auth/session.server";
import { unwrap } from "./outcome-api.server";
import type { PicturePlan } from "../media/pictures.server";
import { planPicture } from "./pictures-api.server";
import { issuesToErrors, withoutNulls } from "./validation-api.server";

// /api/recipes (docs/rules.md#recipes-calls; PUT merges: docs/rules.md#whole-object-put-merge-rules).
// The body uses the API's field names; it is mapped onto the recipe editor's draft, checked by the
// editor's own rules (validateRecipeDraft) and written by the editor's own writes, so a recipe and
// its post always change together. A name or description left as stored is not re-checked against
// today's limits (a few seeded names break them; docs/rules.md#seed-quirks).

const NOT_ALLOWED = "You are not allowed to edit this recipe.";
const CREATE_AS_SELF = "You can only create recipes as yourself.";
const ID_FIXED = "The recipe id in the body does not match the URL; ids cannot be changed.";
const SEARCH_REQUIRED = "Search query required.";
const ID_TAKEN = "That recipe was just created by another request; please reload.";
/** Without `?page=`, search answers at most this many recipes (the best first). */
export const SEARCH_MAX_RESULTS = 120;

const SectionBody = z.looseObject({
  _id: z.string().optional().catch(undefined),
  title: z.string().optional(),
  ingredients: z.array(z.string()).optional(),
  "ingredients:": z.array(z.string()).optional(),
});

const RecipeBody = z.object({
  _id: z.string().optional(),
  recipe_id: z.string().optional(),
  post_id: z.string().optional(),
  user_created: z.string().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  total_time: z.string().optional(),
  serves: z.union([z.number(), z.string()]).optional(),
  tags: z.union([z.array(z.string()), z.string()]).optional(),
  ingredients_sec: z.array(SectionBody).optional(),
  steps: z.array(z.string()).optional(),
  photo: z.string().optional(),
});

type RecipeBody = z.infer<typeof RecipeBody>;

/** The fields a PUT may change. */
const RECIPE_CONTENT_FIELDS = ["name", "description", "total_time", "serves", "tags", "ingredients_sec", "steps", "photo"] as const;

async function readRecipeBody(request: Request): Promise<RecipeBody> {
  const parsed = RecipeBody.safeParse(withoutNulls(await readJsonObject(request)));
  if (!parsed.success) throw invalid(issuesToErrors(parsed.error));
  return parsed.data;
}

/** The editor's draft with the sent fields laid over `base`. */
function draftOf(body: RecipeBody, base: RecipeDraft): RecipeDraft {
  return {
    name: body.name ?? base.name,
    description: body.description ?? base.description,
    totalTime: body.total_time ?? base.totalTime,
    serves: body.serves === undefined ? base.serves : String(body.serves),
    tags: body.tags === undefined ? base.tags : Array.isArray(body.tags) ? body.tags.join(", ") : body.tags,
    sections:
      body.ingredients_sec?.map((section) => ({
        id: section._id ?? "",
        title: section.title ?? "",
        ingredients: section.ingredients ?? section["ingredients:"] ?? [],
      })) ?? base.sections,
    steps: body.steps ?? base.steps,
  };
}

/** The editor's error keys under the API's field names. */
function specField(key: string): string {
  if (key === ERROR_KEY.ingredients || key.startsWith("sectionTitle-") || key.startsWith("ingredient-")) return "ingredients_sec";
  if (key === ERROR_KEY.steps || key.startsWith("step-")) return "steps";
  if (key === "totalTime") return "total_time";
  return key;
}

/**
 * Checks a draft by the editor's rules. `keep` holds stored name/description that were sent
 * back unchanged: they stand in for a short value during the check and are restored after.
 */
function validate(draft: RecipeDraft, keep: { name?: string; description?: string } = {}): RecipeInput {
  const checked = validateRecipeDraft({
    ...draft,
    name: keep.name !== undefined ? "x" : draft.name,
    description: keep.description !== undefined ? "x" : draft.description,
  });
  if (!checked.ok) {
    const errors: Record<string, string> = {};
    for (const [key, message] of Object.entries(checked.fieldErrors)) errors[specField(key)] ??= message;
    throw invalid(errors);
  }
  return { ...checked.value, name: keep.name ?? checked.value.name, description: keep.description ?? checked.value.description };
}

async function planPhoto(body: RecipeBody, current: string | null, uploader: string): Promise<PicturePlan> {
  if (body.photo === undefined) return current === null ? { kind: "set", url: RECIPE_PLACEHOLDER_IMAGE } : { kind: "keep" };
  return planPicture(body.photo, { current, fallback: RECIPE_PLACEHOLDER_IMAGE, field: "photo", uploader });
}

/** A client-chosen id when it looks like one of ours and `taken` says it is free; otherwise a fresh UUID. */
async function chooseId(wanted: string | undefined, taken: (id: string) => Promise<boolean>): Promise<string> {
  if (wanted !== undefined && isUsableRecipeId(wanted) && !(await taken(wanted))) return wanted;
  return crypto.randomUUID();
}

// ---------------------------------------------------------------------------------------------

/** GET /api/recipes: every recipe (streamed), `?limit=&offset=` to page. */
export async function listRecipes({ request }: ApiArgs): Promise<Response> {
  return streamRecipes(parseListWindow(new URL(request.url)), await getLens(request));
}

/** GET /api/recipes/{id}. */
export async function getRecipe(args: ApiArgs): Promise<Response> {
  const recipe = await apiRecipe(param(args, "recipe_id"), await getLens(args.request));
  scopeSharedCache(args.context, [CacheScope.recipe(recipe.recipe_id)]);
  return json(recipe);
}

/**
 * GET /api/recipes/search?q=: recipes matching the words of q (plain text: quotes, `*`, `(` are
 * just characters), best first, as whole recipes. `?page=N` gives one page of the search
 * module's size; without it the first SEARCH_MAX_RESULTS.
 */
export async function searchRecipesApi({ request, context }: ApiArgs): Promise<Response> {
  const url = new URL(request.url);
  const { q, page } = parseSearchParams(url.searchParams);
  if (q === "") throw invalid({ q: SEARCH_REQUIRED });
  const lens = await getLens(request);
  const ids: string[] = [];
  if (url.searchParams.has("page")) {
    ids.push(...(await searchRecipes({ q, page, without: lens.hidden })).items.map((card) => card.recipe_id));
  } else {
    // One pass over the search's tiers: reading them page by page ran the whole search per page.
    ids.push(...(await searchRecipeIds({ q, limit: SEARCH_MAX_RESULTS, without: lens.hidden })));
  }
  const recipes = await apiRecipesByIds([...new Set(ids)].slice(0, SEARCH_MAX_RESULTS), lens);
  // What matches, and each whole recipe (steps too, which search does not read).
  scopeSharedCache(context, [CacheScope.search, ...recipes.map((recipe) => CacheScope.recipe(recipe.recipe_id))]);
  return jsonList(recipes, { offset: 0, limit: null });
}

/** POST /api/recipes: creates the recipe and its post (201). */
export async function createRecipe({ request }: ApiArgs): Promise<Response> {
  const user = await requireApiUser(request);
  const body = await readRecipeBody(request);
  if (body.user_created !== undefined && body.user_created !== user.id) {
    throw new ApiError(403, CREATE_AS_SELF, { refused: ["user_created"] });
  }
  if (body._id !== undefined && body.recipe_id !== undefined && body._id !== body.recipe_id) {
    throw invalid({ _id: "_id and recipe_id must be the same." });
  }
  const input = validate(draftOf(body, { name: "", description: "", totalTime: "", serves: "", tags: "", sections: [], steps: [] }));
  const plan = await planPhoto(body, null, user.id);
  const recipeId = await chooseId(body.recipe_id ?? body._id, recipeExists);
  const postId = await chooseId(body.post_id, postExists);
  const created = await createRecipeService({ actor: user, recipeId, postId, input, photo: plan, fallbackPhoto: RECIPE_PLACEHOLDER_IMAGE });
  // The same new recipe sent twice at once (a double click): the first one won, whether the other
  // found its id taken before writing or was stopped by the unique index (either engine).
  if (!created.ok && created.status === 409) throw new ApiError(409, ID_TAKEN);
  unwrap(created);
  return json(await apiRecipe(recipeId), { status: 201 });
}

/** PUT /api/recipes/{id}: the creator or an ADMIN; answers the updated recipe. */
export async function updateRecipe(args: ApiArgs): Promise<Response> {
  const user = await requireApiUser(args.request);
  const recipeId = param(args, "recipe_id");
  const owner = await getRecipeOwnership(recipeId);
  if (!owner) throw new ApiError(404, NOT_FOUND.recipe);
  if (!canEditRecipe(user, owner.user_created)) throw new ApiError(403, NOT_ALLOWED);
  const body = await readRecipeBody(args.request);
  for (const field of ["_id", "recipe_id"] as const) {
    if (body[field] !== undefined && body[field] !== recipeId) throw invalid({ [field]: ID_FIXED });
  }
  if (body.user_created !== undefined && body.user_created !== owner.user_created) {
    throw new ApiError(403, EDITOR_MESSAGES.creatorFixed, { refused: ["user_created"] });
  }
  // A body with nothing of the recipe in it changes nothing (not even the post that follows the recipe).
  if (RECIPE_CONTENT_FIELDS.every((field) => body[field] === undefined)) return json(await apiRecipe(recipeId));
  const detail = await getRecipeDetail(recipeId);
  if (!detail) throw new ApiError(404, NOT_FOUND.recipe);
  const draft = draftOf(body, draftFromRecipe(detail));
  const input = validate(draft, {
    name: draft.name === detail.name ? detail.name : undefined,
    description: draft.description === detail.description ? detail.description : undefined,
  });
  unwrap(await updateRecipeService({ actor: user, recipeId, input, photo: await planPhoto(body, owner.photo, user.id) }));
  return json(await apiRecipe(recipeId));
}

/** Deletes a recipe with its post (both DELETEs: they are one unit); answers what went. */
export async function deleteRecipeUnit(actor: Actor, recipeId: string): Promise<Response> {
  const { postId } = unwrap(await deleteRecipeService({ actor, recipeId }));
  return json({ deleted: true, _id: recipeId, recipe_id: recipeId, post_id: postId });
}

/** DELETE /api/recipes/{id}: the recipe with its post (creator or ADMIN). */
export async function deleteRecipeApi(args: ApiArgs): Promise<Response> {
  return deleteRecipeUnit(await requireApiUser(args.request), param(args, "recipe_id"));
}
