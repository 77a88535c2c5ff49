import type { ApiArgs } from "~/server/http/api.server";
import { apiRoute, noBody } from "~/server/http/api.server";
import { setFollowing } from "~/server/api/users-api.server";

// POST /api/users/unfollow/{id}: the session user unfollows {id}; answers the session user.
const handle = apiRoute({ POST: noBody((args: ApiArgs) => setFollowing(args, false)) });
export const loader = handle;
export const action = handle;
