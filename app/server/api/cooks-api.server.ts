import { z } from "zod";

import { COOK_MESSAGES } from "~/lib/cook-limits";

import { getLens } from "../auth/session.server";
import { ApiError, invalid, json, param, readJsonObject, requireApiUser, type ApiArgs } from "../http/api.server";
import { getCookEntry, getOwnCook, listRecipeCooks, recipeCookStats, type CookEntry } from "../queries/cooks.server";
import { getRecipeCreator } from "../queries/recipes.server";
import { isHidden, UNAVAILABLE_RECIPE } from "../queries/visibility.server";
import { removeCook, saveCook } from "../services/cooks-service.server";
import { done } from "../services/outcome-service.server";
import { unwrap } from "./outcome-api.server";
import { planPicture } from "./pictures-api.server";

// /api/recipes/{id}/cooks (docs/rules.md#i-made-this): GET lists a recipe's "I made this" entries
// with their count and average; POST {rating, note?, servings?, photo?} adds or changes the
// caller's own (201 when added, 200 when changed), answering it, its photo an upload (a data URL),
// never an address; DELETE removes the caller's own, answering the list. The same service as the
// recipe page's form decides.

const BodySchema = z
  .object({
    rating: z.unknown(),
    note: z.unknown().optional(),
    servings: z.unknown().optional(),
    photo: z.string({ error: "photo must be a string." }).optional(),
  })
  .strict();

const toApiCook = (entry: CookEntry) => ({
  _id: entry.cook_id,
  recipe_id: entry.recipe_id,
  user: { _id: entry.person.id, username: entry.person.username, profile: entry.person.profile },
  rating: entry.rating,
  note: entry.note,
  servings: entry.servings,
  photo: entry.photo,
  created_at: entry.created_at,
  updated_at: entry.updated_at,
});

async function visibleRecipe(args: ApiArgs): Promise<string> {
  const recipeId = param(args, "recipe_id");
  const creatorId = await getRecipeCreator(recipeId);
  if (creatorId === undefined) throw new ApiError(404, "Recipe not found.");
  if (await isHidden(await getLens(args.request), creatorId)) throw new ApiError(404, UNAVAILABLE_RECIPE);
  return recipeId;
}

async function listing(args: ApiArgs, recipeId: string) {
  const lens = await getLens(args.request);
  const [stats, entries] = await Promise.all([recipeCookStats(recipeId, { without: lens.hidden }), listRecipeCooks(recipeId, { without: lens.hidden })]);
  return { recipe_id: recipeId, count: stats.count, average: stats.average, cooks: entries.map(toApiCook) };
}

/** GET /api/recipes/{id}/cooks. */
export async function listCooks(args: ApiArgs): Promise<Response> {
  return json(await listing(args, await visibleRecipe(args)));
}

/** POST /api/recipes/{id}/cooks {rating, note?, servings?, photo?}. */
export async function addCook(args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const recipeId = await visibleRecipe(args);
  const parsed = BodySchema.safeParse(await readJsonObject(args.request));
  if (!parsed.success) throw invalid(Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0] ?? "body"), issue.message])));
  const { photo, ...fields } = parsed.data;
  // Read only once the service has accepted the rest of the entry (a refusal of the photo is thrown as JSON).
  // Uploads only: the address of a picture elsewhere would be loaded by every reader of the recipe page.
  const picture = async () =>
    done(
      await planPicture(photo!, {
        current: (await getOwnCook(actor.id, recipeId))?.photo ?? null,
        fallback: "",
        field: "photo",
        uploader: actor.id,
        uploadsOnly: COOK_MESSAGES.photoUploadOnly,
      }),
    );
  const { created } = unwrap(await saveCook({ actor, recipeId, fields, photo: photo === undefined ? null : picture, mode: "upsert" }));
  const entry = await getCookEntry(actor.id, recipeId);
  if (!entry) throw new ApiError(404, "Recipe not found.");
  return json(toApiCook(entry), { status: created ? 201 : 200 });
}

/** DELETE /api/recipes/{id}/cooks: the caller's own entry. */
export async function deleteCook(args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const recipeId = await visibleRecipe(args);
  unwrap(await removeCook({ actor, recipeId }));
  return json(await listing(args, recipeId));
}
