import { apiRoute } from "~/server/http/api.server";
import { searchRecipesApi } from "~/server/api/recipes-api.server";

// GET /api/recipes/search?q= (a static segment: wins over api.recipes.$recipe_id).
const handle = apiRoute({ GET: searchRecipesApi });
export const loader = handle;
export const action = handle;
