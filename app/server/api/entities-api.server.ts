import { readPostsFull, type PostComment, type PostFull } from "../queries/posts.server";
import { readRecipesFull, type RecipeFull } from "../queries/recipes.server";
import type { IngredientSection } from "../queries/recipes.server";
import type { KeysetSelection } from "../queries/seq.server";
import { readUsersWithLists, type Role, type UserWithLists } from "../queries/users.server";
import { OPEN_LENS, type Lens } from "../queries/visibility.server";
import { ApiError, invalid, json } from "../http/api.server";
import { log } from "../observability/log.server";
import { currentRequestId } from "../observability/request-notes.server";

// The entities as the JSON API shows them: the field names of docs/rules.md#api-entities exactly, `_id` on every object
// (equal to its recipe_id / post_id for recipes and posts), lists of ids, never a password.
// Each serializer names its fields one by one, so a column added later never leaks by accident.
// Every reader takes the asker's lens (docs/rules.md#blocking-and-muting): people hidden from them,
// and what those people made, are left out of the lists and the lists inside each entity.

export interface ApiUser {
  _id: string;
  name: string;
  username: string;
  role: Role;
  bio: string;
  profile: string;
  tags: string[];
  posts: string[];
  followers: string[];
  following: string[];
  saved_recipes: string[];
}

export interface ApiRecipe {
  _id: string;
  recipe_id: string;
  post_id: string | null;
  user_created: string | null;
  name: string;
  description: string;
  total_time: string;
  serves: number | null;
  tags: string[];
  ingredients_sec: IngredientSection[];
  steps: string[];
  photo: string;
  created_at: string | null;
}

export interface ApiPost {
  _id: string;
  post_id: string;
  recipe_id: string;
  created_by: string | null;
  title: string;
  caption: string;
  photo: string;
  likes: string[];
  comments: PostComment[];
  created_at: string | null;
}

/** A user as the API shows it; its lists come already without the people hidden from the reader (readUsersWithLists). */
export function toApiUser(user: UserWithLists): ApiUser {
  return {
    _id: user.id,
    name: user.name,
    username: user.username,
    role: user.role,
    bio: user.bio,
    profile: user.profile,
    tags: user.tags,
    posts: user.posts,
    followers: user.followers,
    following: user.following,
    saved_recipes: user.saved_recipes,
  };
}

export function toApiRecipe(recipe: RecipeFull): ApiRecipe {
  return {
    _id: recipe.recipe_id,
    recipe_id: recipe.recipe_id,
    post_id: recipe.post_id,
    user_created: recipe.user_created,
    name: recipe.name,
    description: recipe.description,
    total_time: recipe.total_time,
    serves: recipe.serves,
    tags: recipe.tags,
    ingredients_sec: recipe.ingredients_sec.map((section) => ({ _id: section._id, title: section.title, ingredients: section.ingredients })),
    steps: recipe.steps,
    photo: recipe.photo,
    created_at: recipe.created_at,
  };
}

/** A post as the API shows it; its likes and comments come already without the people the reader does not see (readPostsFull). */
export function toApiPost(post: PostFull): ApiPost {
  return {
    _id: post.post_id,
    post_id: post.post_id,
    recipe_id: post.recipe_id,
    created_by: post.created_by,
    title: post.title,
    caption: post.caption,
    photo: post.photo,
    likes: post.likes,
    comments: post.comments.map((c) => ({ comment_id: c.comment_id, user_id: c.user_id, text: c.text, created_at: c.created_at })),
    created_at: post.created_at,
  };
}

export const NOT_FOUND = {
  user: "User not found.",
  recipe: "Recipe not found.",
  post: "Post not found.",
} as const;

/** Some users as the API shows them, in the order of `ids` (missing and hidden ones left out). */
export async function apiUsersByIds(ids: readonly string[], lens: Lens = OPEN_LENS): Promise<ApiUser[]> {
  const byId = new Map((await readUsersWithLists({ ids, without: lens.hidden })).map((user) => [user.id, toApiUser(user)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function apiUser(id: string, lens: Lens = OPEN_LENS): Promise<ApiUser> {
  const [user] = await apiUsersByIds([id], lens);
  if (!user) throw new ApiError(404, NOT_FOUND.user);
  return user;
}

export async function apiRecipesByIds(ids: readonly string[], lens: Lens = OPEN_LENS): Promise<ApiRecipe[]> {
  const byId = new Map((await readRecipesFull({ ids, without: lens.hidden })).map((recipe) => [recipe.recipe_id, toApiRecipe(recipe)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function apiRecipe(id: string, lens: Lens = OPEN_LENS): Promise<ApiRecipe> {
  const [recipe] = await apiRecipesByIds([id], lens);
  if (!recipe) throw new ApiError(404, NOT_FOUND.recipe);
  return recipe;
}

export async function apiPost(id: string, lens: Lens = OPEN_LENS): Promise<ApiPost> {
  const [post] = await readPostsFull({ ids: [id], without: lens.hidden, quiet: lens.quiet });
  if (!post) throw new ApiError(404, NOT_FOUND.post);
  return toApiPost(post);
}

// ---------------------------------------------------------------------------------------------
// Lists: everything by default (docs/rules.md#api-conventions), `?limit=&offset=` for paging clients, streamed.

/**
 * Rows per database read while streaming a list: what a connection holds while its client reads.
 * Small, so a client that reads slowly (or not at all) holds the server to one batch, not to the
 * whole list.
 */
export const LIST_BATCH = 25;

export interface ListWindow {
  offset: number;
  /** Null: every row from `offset` on. */
  limit: number | null;
}

const WHOLE_NUMBER = /^[0-9]{1,9}$/;

/** `?limit=&offset=`: whole numbers (limit at least 1); anything else is a 400 naming the field. */
export function parseListWindow(url: URL): ListWindow {
  const errors: Record<string, string> = {};
  const read = (name: "limit" | "offset", min: number): number | null => {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === "") return null;
    if (!WHOLE_NUMBER.test(raw) || Number(raw) < min) {
      errors[name] = `${name} must be a whole number${min > 0 ? ` of at least ${min}` : ""}.`;
      return null;
    }
    return Number(raw);
  };
  const limit = read("limit", 1);
  const offset = read("offset", 0) ?? 0;
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return { offset, limit };
}

type BatchReader<Row extends { seq: number }> = (selection: KeysetSelection) => Promise<Row[]>;

/**
 * A JSON array written batch by batch as the client reads it: each pull reads the next LIST_BATCH
 * rows by keyset (seq greater than the last one sent), so neither the rows nor the text of the
 * whole list are ever held at once.
 */
export function streamJsonArray<Row extends { seq: number }>(
  read: BatchReader<Row>,
  serialize: (row: Row) => unknown,
  { offset, limit }: ListWindow,
  batchSize: number = LIST_BATCH,
): Response {
  const encoder = new TextEncoder();
  let afterSeq = Number.MIN_SAFE_INTEGER;
  let skip = offset;
  let remaining = limit ?? Infinity;
  let started = false;
  let finished = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (finished) return;
      const take = Math.min(batchSize, remaining);
      let rows: Row[];
      try {
        rows = take > 0 ? await read({ afterSeq, offset: skip, limit: take }) : [];
      } catch (error) {
        log.error({ err: error, reqId: currentRequestId() }, "API list failed while streaming");
        finished = true;
        controller.error(error);
        return;
      }
      skip = 0;
      let text = started ? "" : "[";
      for (const [index, row] of rows.entries()) {
        text += (started || index > 0 ? "," : "") + JSON.stringify(serialize(row));
      }
      if (rows.length > 0) started = true;
      remaining -= rows.length;
      const last = rows.at(-1);
      if (last) afterSeq = last.seq;
      if (rows.length < take || remaining <= 0 || take === 0) {
        finished = true;
        controller.enqueue(encoder.encode(`${text}]`));
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(text));
    },
    cancel() {
      finished = true;
    },
  });
  return new Response(stream, { headers: { "Content-Type": "application/json; charset=utf-8" } });
}

export const streamUsers = (window: ListWindow, lens: Lens = OPEN_LENS) =>
  streamJsonArray((selection) => readUsersWithLists({ ...selection, without: lens.hidden }), toApiUser, window);
export const streamRecipes = (window: ListWindow, lens: Lens = OPEN_LENS) =>
  streamJsonArray((selection) => readRecipesFull({ ...selection, without: lens.hidden }), toApiRecipe, window);
export const streamPosts = (window: ListWindow, lens: Lens = OPEN_LENS) =>
  streamJsonArray((selection) => readPostsFull({ ...selection, without: lens.hidden, quiet: lens.quiet }), toApiPost, window);

/** A small list already in memory, windowed the same way. */
export function jsonList(items: readonly unknown[], { offset, limit }: ListWindow): Response {
  return json(items.slice(offset, limit === null ? undefined : offset + limit));
}
