import type { ApiArgs } from "~/server/http/api.server";
import { apiRoute, noBody } from "~/server/http/api.server";
import { removeRelated } from "~/server/api/people-api.server";

// DELETE /api/mutes/{id}: takes {id} off the caller's list (docs/rules.md#blocking-and-muting).
const handle = apiRoute({ DELETE: noBody((args: ApiArgs) => removeRelated("mutes", args)) });
export const loader = handle;
export const action = handle;
