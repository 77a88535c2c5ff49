import crypto from "node:crypto";

import { z } from "zod";

import { canEditRecipe, isAdmin } from "~/lib/permissions";
import { RECIPE_LIMITS, RECIPE_MESSAGES } from "~/lib/recipe-form";

import { CacheScope } from "../cache/scopes.server";
import { getPostForRecipe, postExists, readPostsFull } from "../queries/posts.server";
import { getRecipeOwnership } from "../queries/recipe-writes.server";
import { addComment } from "../services/interactions-service.server";
import { addPostToRecipe, changePost, POST_MESSAGES } from "../services/posts-service.server";
import { scopeSharedCache } from "../cache/shared-cache.server";
import { isUsableRecipeId } from "../validation/recipe-schema.server";
import { apiPost, NOT_FOUND, parseListWindow, streamPosts } from "./entities-api.server";
import { ApiError, invalid, json, param, readJsonObject, requireApiUser, type ApiArgs } from "../http/api.server";
import { getLens } from "../auth/session.server";
import type { Lens } from "../queries/visibility.server";
import { unwrap } from "./outcome-api.server";
import type { PicturePlan } from "../media/pictures.server";
import { planPicture } from "./pictures-api.server";
import { deleteRecipeUnit } from "./recipes-api.server";
import { issuesToErrors, withoutNulls } from "./validation-api.server";

// /api/posts (docs/rules.md#posts-calls; PUT merges: docs/rules.md#whole-object-put-merge-rules).
// A post and its recipe are one unit: POST /api/recipes creates both, and deleting either deletes
// both (so a client's follow-up DELETE of the other gets 404, which the original client warns
// about and ignores: docs/rules.md#recipe-and-post). POST /api/posts is idempotent for the
// original client, which creates the recipe and then sends the post: the author's recipe that
// already has its post answers that post (200). In a PUT, an ADMIN's `comments` array removes the
// comments it no longer lists (the original admin panel deletes a comment that way); a PUT with
// any refused part is refused whole and changes nothing.

const AUTHOR_FIXED = "The author of a post cannot be changed.";
const ID_FIXED = "The post id in the body does not match the URL; ids cannot be changed.";
const RECIPE_FIXED = "A post always stays with its recipe.";
const RECIPE_REQUIRED = "Please say which recipe the post is for (recipe_id).";
const NOT_YOUR_RECIPE = "This recipe belongs to someone else.";

const PostBody = z.object({
  _id: z.string().optional(),
  post_id: z.string().optional(),
  recipe_id: z.string().optional(),
  created_by: z.string().optional(),
  title: z.string().optional(),
  caption: z.string().optional(),
  photo: z.string().optional(),
  likes: z.array(z.string()).max(1_000_000).optional(),
  comments: z.array(z.unknown()).optional(),
});

type PostBody = z.infer<typeof PostBody>;

const TitleSchema = z.string().trim().min(1, RECIPE_MESSAGES.nameRequired).max(RECIPE_LIMITS.name, RECIPE_MESSAGES.nameTooLong);
const CaptionSchema = z
  .string()
  .trim()
  .min(1, RECIPE_MESSAGES.descriptionRequired)
  .max(RECIPE_LIMITS.description, RECIPE_MESSAGES.descriptionTooLong);

async function readPostBody(request: Request): Promise<PostBody> {
  const parsed = PostBody.safeParse(withoutNulls(await readJsonObject(request)));
  if (!parsed.success) throw invalid(issuesToErrors(parsed.error));
  return parsed.data;
}

async function loadPost(postId: string, lens: Lens) {
  const [post] = await readPostsFull({ ids: [postId], without: lens.hidden, quiet: lens.quiet });
  if (!post) throw new ApiError(404, NOT_FOUND.post);
  return post;
}

const minus = (a: readonly string[], b: readonly string[]) => {
  const other = new Set(b);
  return [...new Set(a)].filter((item) => !other.has(item));
};

// ---------------------------------------------------------------------------------------------

/** GET /api/posts: every post (streamed), `?limit=&offset=` to page. */
export async function listPosts({ request }: ApiArgs): Promise<Response> {
  return streamPosts(parseListWindow(new URL(request.url)), await getLens(request));
}

/** GET /api/posts/{id}. */
export async function getPost(args: ApiArgs): Promise<Response> {
  const post = await apiPost(param(args, "post_id"), await getLens(args.request));
  scopeSharedCache(args.context, [CacheScope.recipe(post.recipe_id)]);
  return json(post);
}

/** POST /api/posts: see the comment at the top (idempotent after POST /api/recipes). */
export async function createPost({ request }: ApiArgs): Promise<Response> {
  const user = await requireApiUser(request);
  const body = await readPostBody(request);
  if (!body.recipe_id) throw invalid({ recipe_id: RECIPE_REQUIRED });
  if (body.created_by !== undefined && body.created_by !== user.id) throw new ApiError(403, AUTHOR_FIXED, { refused: ["created_by"] });
  const recipe = await getRecipeOwnership(body.recipe_id);
  if (!recipe) throw new ApiError(404, NOT_FOUND.recipe);
  if (!canEditRecipe(user, recipe.user_created)) throw new ApiError(403, NOT_YOUR_RECIPE);
  if (recipe.post_id) return json(await apiPost(recipe.post_id, await getLens(request)));
  const wanted = body.post_id ?? body._id;
  const postId = wanted && isUsableRecipeId(wanted) && !(await postExists(wanted)) ? wanted : crypto.randomUUID();
  try {
    await addPostToRecipe({ postId, recipeId: recipe.id, creatorId: recipe.user_created });
  } catch (error) {
    // Two creates at once: the other one won; answer its post.
    const existing = await getPostForRecipe(recipe.id);
    if (existing) return json(await apiPost(existing.id, await getLens(request)));
    throw error;
  }
  return json(await apiPost(postId, await getLens(request)), { status: 201 });
}

/** PUT /api/posts/{id}: see the comment at the top. */
export async function updatePost(args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const postId = param(args, "post_id");
  const lens = await getLens(args.request);
  const post = await loadPost(postId, lens);
  const body = await readPostBody(args.request);
  for (const field of ["_id", "post_id"] as const) {
    if (body[field] !== undefined && body[field] !== postId) throw invalid({ [field]: ID_FIXED });
  }
  if (body.recipe_id !== undefined && body.recipe_id !== post.recipe_id) throw invalid({ recipe_id: RECIPE_FIXED });
  if (body.created_by !== undefined && body.created_by !== post.created_by) {
    throw new ApiError(403, AUTHOR_FIXED, { refused: ["created_by"] });
  }

  // The post's own content: what differs from the stored post, each field checked.
  const errors: Record<string, string> = {};
  const content = { title: post.title, caption: post.caption };
  let contentChanged = false;
  for (const [field, schema] of [
    ["title", TitleSchema],
    ["caption", CaptionSchema],
  ] as const) {
    const sent = body[field];
    if (sent === undefined || sent === post[field]) continue;
    const parsed = schema.safeParse(sent);
    if (!parsed.success) errors[field] = parsed.error.issues[0]?.message ?? "Not valid.";
    else if (parsed.data !== post[field]) {
      content[field] = parsed.data;
      contentChanged = true;
    }
  }
  const photoChanged = body.photo !== undefined && body.photo !== post.photo;
  // Whose content it is decides before any message about its fields.
  if ((contentChanged || photoChanged || Object.keys(errors).length > 0) && !canEditRecipe(actor, post.created_by)) {
    throw new ApiError(403, POST_MESSAGES.authorOnly, { refused: ["post"] });
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);

  // Likes: the differences from the list as the caller sees it (people hidden from them are neither sent nor taken away).
  const shownLikes = post.likes;
  const likes = body.likes === undefined ? [] : [...minus(body.likes, shownLikes).map((userId) => ({ userId, liked: true })), ...minus(shownLikes, body.likes).map((userId) => ({ userId, liked: false }))];
  // Comments: an ADMIN's array removes what it no longer lists; anyone else's is ignored.
  let removeComments: string[] = [];
  if (isAdmin(actor) && body.comments !== undefined) {
    const kept = new Set(
      body.comments.flatMap((item) =>
        item && typeof item === "object" && typeof (item as { comment_id?: unknown }).comment_id === "string"
          ? [(item as { comment_id: string }).comment_id]
          : [],
      ),
    );
    removeComments = post.comments.map((c) => c.comment_id).filter((id) => !kept.has(id));
  }
  const photo: PicturePlan = photoChanged ? await planPicture(body.photo!, { current: post.photo, fallback: post.photo, field: "photo", uploader: actor.id }) : { kind: "keep" };
  unwrap(await changePost({ actor, postId, changes: { content: contentChanged ? content : undefined, photo, likes, removeComments } }));
  return json(await apiPost(postId, lens));
}

/** DELETE /api/posts/{id}: the post with its recipe (author or ADMIN). */
export async function deletePostApi(args: ApiArgs): Promise<Response> {
  const user = await requireApiUser(args.request);
  const post = await loadPost(param(args, "post_id"), await getLens(args.request));
  return deleteRecipeUnit(user, post.recipe_id);
}

/** GET /api/posts/{id}/comments: the post's comments. */
export async function listPostComments(args: ApiArgs): Promise<Response> {
  const post = await apiPost(param(args, "post_id"), await getLens(args.request));
  scopeSharedCache(args.context, [CacheScope.recipe(post.recipe_id)]);
  return json(post.comments);
}

/** POST /api/posts/{id}/comments `{text}`: comments as the session user; answers the post (201). */
export async function addPostComment(args: ApiArgs): Promise<Response> {
  const user = await requireApiUser(args.request);
  const postId = param(args, "post_id");
  if (!(await postExists(postId))) throw new ApiError(404, NOT_FOUND.post);
  const body = await readJsonObject(args.request);
  unwrap(await addComment({ actor: user, postId, text: typeof body.text === "string" ? body.text : "" }));
  return json(await apiPost(postId, await getLens(args.request)), { status: 201 });
}
