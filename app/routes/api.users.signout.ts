import { apiRoute, noBody } from "~/server/http/api.server";
import { signOut } from "~/server/api/users-api.server";

// POST /api/users/signout.
const handle = apiRoute({ POST: noBody(signOut) });
export const loader = handle;
export const action = handle;
