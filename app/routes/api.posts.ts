import { apiRoute } from "~/server/http/api.server";
import { createPost, listPosts } from "~/server/api/posts-api.server";
import type { RequestBodyKind } from "~/server/http/body.server";

// GET /api/posts (all posts, streamed; ?limit=&offset=), POST /api/posts.
// Its bodies may carry photos as data URLs: the larger JSON limit (app/server/http/body.server.ts).
export const requestBody = "photo-json" satisfies RequestBodyKind;
const handle = apiRoute({ GET: listPosts, POST: createPost }, requestBody);
export const loader = handle;
export const action = handle;
