import { apiRoute } from "~/server/http/api.server";
import { deleteRecipeApi, getRecipe, updateRecipe } from "~/server/api/recipes-api.server";
import type { RequestBodyKind } from "~/server/http/body.server";

// GET, PUT (creator or ADMIN, merged), DELETE (creator or ADMIN; the post goes too) /api/recipes/{recipe_id}.
// Its bodies may carry photos as data URLs: the larger JSON limit (app/server/http/body.server.ts).
export const requestBody = "photo-json" satisfies RequestBodyKind;
const handle = apiRoute({ GET: getRecipe, PUT: updateRecipe, DELETE: deleteRecipeApi }, requestBody);
export const loader = handle;
export const action = handle;
