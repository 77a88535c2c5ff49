import type { ApiArgs } from "~/server/http/api.server";
import { apiRoute } from "~/server/http/api.server";
import { setSaved } from "~/server/api/users-api.server";

// PUT /api/users/{id}/save {recipeId}: the user themselves; answers the updated user.
const handle = apiRoute({ PUT: (args: ApiArgs) => setSaved(args, true) });
export const loader = handle;
export const action = handle;
