import { apiRoute } from "~/server/api/http.server";
import { createUserAsAdmin, listUsers } from "~/server/api/users.server";
import type { RequestBodyKind } from "~/server/body.server";

// GET /api/users (all users, streamed; ?name= searches; ?limit=&offset=), POST /api/users (ADMIN).
// Its bodies may carry photos as data URLs: the larger JSON limit (app/server/body.server.ts).
export const requestBody = "photo-json" satisfies RequestBodyKind;
const handle = apiRoute({ GET: listUsers, POST: createUserAsAdmin }, requestBody);
export const loader = handle;
export const action = handle;
