import { apiRoute } from "~/server/api/http.server";
import { createPost, listPosts } from "~/server/api/posts.server";

// GET /api/posts (all posts, streamed; ?limit=&offset=), POST /api/posts.
const handle = apiRoute({ GET: listPosts, POST: createPost });
export const loader = handle;
export const action = handle;
