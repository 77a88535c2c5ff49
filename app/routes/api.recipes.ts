import { apiRoute } from "~/server/http/api.server";
import { createRecipe, listRecipes } from "~/server/api/recipes-api.server";
import type { RequestBodyKind } from "~/server/http/body.server";

// GET /api/recipes (all recipes, streamed; ?limit=&offset=), POST /api/recipes (recipe and post).
// Its bodies may carry photos as data URLs: the larger JSON limit (app/server/http/body.server.ts).
export const requestBody = "photo-json" satisfies RequestBodyKind;
const handle = apiRoute({ GET: listRecipes, POST: createRecipe }, requestBody);
export const loader = handle;
export const action = handle;
