import { apiRoute } from "~/server/http/api.server";
import { createUserAsAdmin, listUsers } from "~/server/api/users-api.server";
import type { RequestBodyKind } from "~/server/http/body.server";

// GET /api/users (all users, streamed; ?name= searches; ?limit=&offset=), POST /api/users (ADMIN).
// Its bodies may carry photos as data URLs: the larger JSON limit (app/server/http/body.server.ts).
export const requestBody = "photo-json" satisfies RequestBodyKind;
const handle = apiRoute({ GET: listUsers, POST: createUserAsAdmin }, requestBody);
export const loader = handle;
export const action = handle;
