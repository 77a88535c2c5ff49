import type { ApiArgs } from "~/server/http/api.server";
import { apiRoute, noBody } from "~/server/http/api.server";
import { setFollowing } from "~/server/api/users-api.server";

// POST /api/users/follow/{id}: the session user follows {id}; answers the session user.
const handle = apiRoute({ POST: noBody((args: ApiArgs) => setFollowing(args, true)) });
export const loader = handle;
export const action = handle;
