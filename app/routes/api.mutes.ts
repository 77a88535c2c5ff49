import type { ApiArgs } from "~/server/http/api.server";
import { apiRoute } from "~/server/http/api.server";
import { addRelated, listRelated } from "~/server/api/people-api.server";

// GET /api/mutes: the caller's list; POST /api/mutes {user_id}: adds to it (docs/rules.md#blocking-and-muting).
const handle = apiRoute({ GET: (args: ApiArgs) => listRelated("mutes", args), POST: (args: ApiArgs) => addRelated("mutes", args) });
export const loader = handle;
export const action = handle;
