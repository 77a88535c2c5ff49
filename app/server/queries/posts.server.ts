import { db, engineOf, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";
import { likeCount } from "./likes.server";
import { applyBatchSelection, groupRows, nextSeq, todayDate, type BatchSelection } from "./seq.server";
import { shownPerson } from "./visibility.server";

export interface PostThumb {
  post_id: string;
  recipe_id: string;
  title: string;
  photo: string;
}

/**
 * A user's posts in reversed stored order (newest first), as the profile grid and the
 * post viewer's chevrons walk them (docs/rules.md#post-viewer).
 */
export async function listUserPosts(userId: string, database: DB = db): Promise<PostThumb[]> {
  return userPosts(database, userId);
}

/** A user's posts as thumbnails, newest first (the grid's and the post viewer's order). */
function userPostsNewestFirst(userId: string, database: DB) {
  return database.selectFrom("posts").select(["id as post_id", "recipe_id", "title", "photo"]).where("created_by", "=", userId).orderBy("seq", "desc");
}

const userPosts = preparedRead((database, userId: string) => userPostsNewestFirst(userId, database));

/** Squares of a profile's grid a page: eight rows of three (app/styles/profile.css). */
export const PROFILE_PAGE_SIZE = 24;

const userPostsPage = preparedRead((database, userId: string, offset: number) =>
  userPostsNewestFirst(userId, database)
    // One more than a page tells whether there is a next one.
    .limit(PROFILE_PAGE_SIZE + 1)
    .offset(offset),
);

/**
 * One page of a user's posts, newest first, as the profile grid shows them (`Load more` asks for
 * the next): 300 posts in one page were 300 photos and a large page for a phone.
 */
export async function listUserPostsPage(
  userId: string,
  page: number,
  database: DB = db,
): Promise<{ posts: PostThumb[]; page: number; hasMore: boolean }> {
  const rows = await userPostsPage(database, userId, (page - 1) * PROFILE_PAGE_SIZE);
  return { posts: rows.slice(0, PROFILE_PAGE_SIZE), page, hasMore: rows.length > PROFILE_PAGE_SIZE };
}

export async function postExists(postId: string, database: DB = db): Promise<boolean> {
  const row = await database.selectFrom("posts").select("id").where("id", "=", postId).executeTakeFirst();
  return row !== undefined;
}

/** The post of a recipe: its text and its owner (a comment posted on the recipe page needs the owner). */
export async function getPostForRecipe(
  recipeId: string,
  database: DB = db,
): Promise<{ id: string; recipe_id: string; created_by: string | null; title: string; caption: string } | undefined> {
  return database.selectFrom("posts").select(["id", "recipe_id", "created_by", "title", "caption"]).where("recipe_id", "=", recipeId).executeTakeFirst();
}

// ---------------------------------------------------------------------------------------------
// Whole posts in batches, for the JSON API (docs/rules.md#api-entities): likes as user ids in the order
// they were given, comments in stored order. One query per list kind for a whole batch.

export interface PostComment {
  comment_id: string;
  /** Null once the author's account is deleted (the comment stays). */
  user_id: string | null;
  text: string;
  created_at: string;
}

export interface PostFull {
  seq: number;
  post_id: string;
  recipe_id: string;
  created_by: string | null;
  title: string;
  caption: string;
  photo: string;
  created_at: string | null;
  likes: string[];
  comments: PostComment[];
}

export async function readPostsFull(selection: BatchSelection, database: DB = db): Promise<PostFull[]> {
  const query = applyBatchSelection(
    database
      .selectFrom("posts")
      .select(["seq", "id as post_id", "recipe_id", "created_by", "title", "caption", "photo", "created_at"]),
    selection,
    { id: "posts.id", seq: "posts.seq", person: "posts.created_by" },
  );
  if (!query) return [];
  const posts = await query.execute();
  if (posts.length === 0) return [];
  const ids = posts.map((post) => post.post_id);
  const [likes, comments] = await Promise.all([
    database
      .selectFrom("likes")
      .select(["post_id", "user_id"])
      .where("post_id", "in", ids)
      .where(shownPerson("likes.user_id", selection.without ?? []))
      .orderBy("post_id")
      .orderBy("created_at")
      .orderBy("user_id")
      .execute(),
    database
      .selectFrom("comments")
      .select(["post_id", "id", "user_id", "text", "created_at"])
      .where("post_id", "in", ids)
      .where(shownPerson("comments.user_id", selection.quiet ?? selection.without ?? []))
      .orderBy("seq")
      .execute(),
  ]);
  const likesOf = groupRows(likes.map((row) => [row.post_id, row.user_id] as const));
  const commentsOf = groupRows(
    comments.map(
      (row) => [row.post_id, { comment_id: row.id, user_id: row.user_id, text: row.text, created_at: row.created_at }] as const,
    ),
  );
  return posts.map((post) => ({ ...post, likes: likesOf.get(post.post_id) ?? [], comments: commentsOf.get(post.post_id) ?? [] }));
}

/** Who may touch a post (its author, or the recipe's creator), and what it points at. */
export async function getPostOwnership(
  postId: string,
  database: DB = db,
): Promise<{ id: string; recipe_id: string; created_by: string | null; photo: string } | undefined> {
  return database.selectFrom("posts").select(["id", "recipe_id", "created_by", "photo"]).where("id", "=", postId).executeTakeFirst();
}

/** A post's owner and recipe with its like count as it stands, in one read (a like's answer counts from it). */
export async function getPostWithLikes(
  postId: string,
  database: DB = db,
): Promise<{ id: string; recipe_id: string; created_by: string | null; likes: number } | undefined> {
  const row = await database
    .selectFrom("posts as p")
    .select(["p.id", "p.recipe_id", "p.created_by", likeCount("p.id").as("likes")])
    .where("p.id", "=", postId)
    .executeTakeFirst();
  return row && { ...row, likes: Number(row.likes ?? 0) };
}

/** Changes a post's own text and picture (the recipe keeps its own). Pass a transaction to combine it with other writes. */
export async function updatePostContent(
  { postId, title, caption, photo }: { postId: string; title: string; caption: string; photo: string },
  database: DB = db,
): Promise<void> {
  await database.updateTable("posts").set({ title, caption, photo }).where("id", "=", postId).execute();
}

/**
 * Gives a recipe that has no post its post (title, caption and photo from the recipe, author the
 * recipe's creator, dated today). Refused by the schema when the recipe already has one.
 */
export async function createPostForRecipe({ postId, recipeId }: { postId: string; recipeId: string }, database: DB = db): Promise<void> {
  // The recipe's row held: an edit giving it its missing post at the same moment waits (one post per recipe).
  const recipe = await engineOf(database)
    .writers.forUpdate(database.selectFrom("recipes").select(["user_created", "name", "description", "photo"]).where("id", "=", recipeId))
    .executeTakeFirstOrThrow();
  await database
    .insertInto("posts")
    .values({
      id: postId,
      recipe_id: recipeId,
      created_by: recipe.user_created,
      title: recipe.name,
      caption: recipe.description,
      photo: recipe.photo,
      created_at: todayDate(),
      seq: nextSeq(database, "posts"),
    })
    .execute();
}
