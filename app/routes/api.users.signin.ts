import { apiRoute } from "~/server/http/api.server";
import { signIn } from "~/server/api/users-api.server";

// POST /api/users/signin {username, password}: the user, with a session cookie.
const handle = apiRoute({ POST: signIn });
export const loader = handle;
export const action = handle;
