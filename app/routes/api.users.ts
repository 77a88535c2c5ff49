import { apiRoute } from "~/server/api/http.server";
import { createUserAsAdmin, listUsers } from "~/server/api/users.server";

// GET /api/users (all users, streamed; ?name= searches; ?limit=&offset=), POST /api/users (ADMIN).
const handle = apiRoute({ GET: listUsers, POST: createUserAsAdmin });
export const loader = handle;
export const action = handle;
