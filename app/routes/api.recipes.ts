import { apiRoute } from "~/server/api/http.server";
import { createRecipe, listRecipes } from "~/server/api/recipes.server";

// GET /api/recipes (all recipes, streamed; ?limit=&offset=), POST /api/recipes (recipe and post).
const handle = apiRoute({ GET: listRecipes, POST: createRecipe });
export const loader = handle;
export const action = handle;
