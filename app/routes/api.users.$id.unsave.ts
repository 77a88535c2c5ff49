import type { ApiArgs } from "~/server/api/http.server";
import { apiRoute } from "~/server/api/http.server";
import { setSaved } from "~/server/api/users.server";

// PUT /api/users/{id}/unsave {recipeId}: the user themselves; answers the updated user.
const handle = apiRoute({ PUT: (args: ApiArgs) => setSaved(args, false) });
export const loader = handle;
export const action = handle;
