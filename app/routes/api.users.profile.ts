import { apiRoute, noBody } from "~/server/http/api.server";
import { profile } from "~/server/api/users-api.server";

// GET and POST /api/users/profile: the session user, or 401. (A static segment: wins over api.users.$id.)
const handle = apiRoute({ GET: profile, POST: noBody(profile) });
export const loader = handle;
export const action = handle;
