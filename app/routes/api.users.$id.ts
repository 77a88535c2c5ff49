import { apiRoute } from "~/server/http/api.server";
import { deleteUserAsAdmin, getUserById, updateUser } from "~/server/api/users-api.server";
import type { RequestBodyKind } from "~/server/http/body.server";

// GET, PUT (self or ADMIN, merged field by field), DELETE (ADMIN) /api/users/{id}.
// Its bodies may carry photos as data URLs: the larger JSON limit (app/server/http/body.server.ts).
export const requestBody = "photo-json" satisfies RequestBodyKind;
const handle = apiRoute({ GET: getUserById, PUT: updateUser, DELETE: deleteUserAsAdmin }, requestBody);
export const loader = handle;
export const action = handle;
