import { apiRoute } from "~/server/http/api.server";
import { signUp } from "~/server/api/users-api.server";

// POST /api/users/signup: creates the user and signs them in.
const handle = apiRoute({ POST: signUp });
export const loader = handle;
export const action = handle;
