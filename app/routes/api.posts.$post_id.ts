import { apiRoute } from "~/server/http/api.server";
import { deletePostApi, getPost, updatePost } from "~/server/api/posts-api.server";
import type { RequestBodyKind } from "~/server/http/body.server";

// GET, PUT (likes: one's own; content: author or ADMIN), DELETE (author or ADMIN) /api/posts/{post_id}.
// Its bodies may carry photos as data URLs: the larger JSON limit (app/server/http/body.server.ts).
export const requestBody = "photo-json" satisfies RequestBodyKind;
const handle = apiRoute({ GET: getPost, PUT: updatePost, DELETE: deletePostApi }, requestBody);
export const loader = handle;
export const action = handle;
