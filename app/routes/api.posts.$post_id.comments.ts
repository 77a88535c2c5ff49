import { apiRoute } from "~/server/http/api.server";
import { addPostComment, listPostComments } from "~/server/api/posts-api.server";

// GET /api/posts/{post_id}/comments; POST {text} as the session user, answering the post.
const handle = apiRoute({ GET: listPostComments, POST: addPostComment });
export const loader = handle;
export const action = handle;
