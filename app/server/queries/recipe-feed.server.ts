import { db, type DB } from "../db/connection.server";

// Reads for the public Atom feed of a user's recipes (app/routes/ReciPals.Users.$uid.recipes[.]atom.ts).
// Only what recipe pages already show to every visitor: never the user's name, bio or saved list.

export interface FeedRecipe {
  recipe_id: string;
  name: string;
  description: string;
  photo: string;
  /** A date (YYYY-MM-DD) for recipes made here; null for seeded ones. */
  created_at: string | null;
}

export interface RecipesFeedData {
  user: { id: string; username: string; created_at: string };
  recipes: FeedRecipe[];
}

/** How many entries a feed holds: the latest ones, as feed readers expect (a reader polls, it does not page). */
export const FEED_ENTRIES = 50;

/** A user's latest recipes (FEED_ENTRIES), newest first; undefined for an unknown user. */
export async function getRecipesFeed(userId: string, database: DB = db): Promise<RecipesFeedData | undefined> {
  const user = await database.selectFrom("users").select(["id", "username", "created_at"]).where("id", "=", userId).executeTakeFirst();
  if (!user) return undefined;
  const recipes = await database
    .selectFrom("recipes")
    .select(["id as recipe_id", "name", "description", "photo", "created_at"])
    .where("user_created", "=", userId)
    .orderBy("seq", "desc")
    .limit(FEED_ENTRIES)
    .execute();
  return { user, recipes };
}
