import { apiRoute } from "~/server/api/http.server";
import { deleteUserAsAdmin, getUserById, updateUser } from "~/server/api/users.server";

// GET, PUT (self or ADMIN, merged field by field), DELETE (ADMIN) /api/users/{id}.
const handle = apiRoute({ GET: getUserById, PUT: updateUser, DELETE: deleteUserAsAdmin });
export const loader = handle;
export const action = handle;
