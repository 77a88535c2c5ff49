import { apiRoute } from "~/server/api/http.server";
import { deleteRecipeApi, getRecipe, updateRecipe } from "~/server/api/recipes.server";

// GET, PUT (creator or ADMIN, merged), DELETE (creator or ADMIN; the post goes too) /api/recipes/{recipe_id}.
const handle = apiRoute({ GET: getRecipe, PUT: updateRecipe, DELETE: deleteRecipeApi });
export const loader = handle;
export const action = handle;
