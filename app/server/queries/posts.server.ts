import { db, type DB } from "../db.server";

export interface PostThumb {
  post_id: string;
  recipe_id: string;
  title: string;
  photo: string;
}

/**
 * A user's posts in reversed stored order (newest first), as the profile grid and the
 * post viewer's chevrons walk them (SPEC §2).
 */
export async function listUserPosts(userId: string, database: DB = db): Promise<PostThumb[]> {
  return database
    .selectFrom("posts")
    .select(["id as post_id", "recipe_id", "title", "photo"])
    .where("created_by", "=", userId)
    .orderBy("seq", "desc")
    .execute();
}

export async function getPostIdForRecipe(recipeId: string, database: DB = db): Promise<string | undefined> {
  const row = await database.selectFrom("posts").select("id").where("recipe_id", "=", recipeId).executeTakeFirst();
  return row?.id;
}

export async function postExists(postId: string, database: DB = db): Promise<boolean> {
  const row = await database.selectFrom("posts").select("id").where("id", "=", postId).executeTakeFirst();
  return row !== undefined;
}

export async function getPostForRecipe(
  recipeId: string,
  database: DB = db,
): Promise<{ id: string; title: string; caption: string } | undefined> {
  return database.selectFrom("posts").select(["id", "title", "caption"]).where("recipe_id", "=", recipeId).executeTakeFirst();
}
