import { apiRoute } from "~/server/api/http.server";
import { deletePostApi, getPost, updatePost } from "~/server/api/posts.server";

// GET, PUT (likes: one's own; content: author or ADMIN), DELETE (author or ADMIN) /api/posts/{post_id}.
const handle = apiRoute({ GET: getPost, PUT: updatePost, DELETE: deletePostApi });
export const loader = handle;
export const action = handle;
