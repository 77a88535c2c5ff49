import { sql } from "kysely";

import { DEFAULT_PROFILE_IMAGE } from "~/lib/paths";

import { db, engineOf, type DB } from "../db/connection.server";
import { likePattern } from "../db/engines/engine.server";
import { createUser, UsernameTakenError, type Role } from "./users.server";

export const ADMIN_PAGE_SIZE = 50;

// Admin search text is matched literally: LIKE wildcards typed by the admin are escaped.
const likeContains = (text: string) => `%${likePattern(text)}%`;

export interface AdminUserRow {
  id: string;
  name: string;
  username: string;
  role: Role;
  profile: string;
  posts: number;
  followers: number;
  following: number;
}

export async function listUsersForAdmin(
  { q, page }: { q: string; page: number },
  database: DB = db,
): Promise<{ users: AdminUserRow[]; hasMore: boolean }> {
  let query = database
    .selectFrom("users as u")
    .select([
      "u.id",
      "u.name",
      "u.username",
      "u.role",
      "u.profile",
      (eb) => eb.selectFrom("posts").select((e) => e.fn.countAll<number>().as("n")).whereRef("posts.created_by", "=", "u.id").as("posts"),
      (eb) => eb.selectFrom("follows").select((e) => e.fn.countAll<number>().as("n")).whereRef("follows.followee_id", "=", "u.id").as("followers"),
      (eb) => eb.selectFrom("follows").select((e) => e.fn.countAll<number>().as("n")).whereRef("follows.follower_id", "=", "u.id").as("following"),
    ]);
  const text = q.trim();
  if (text) {
    const pattern = likeContains(text);
    query = query.where((eb) =>
      eb.or([
        eb("u.id", "=", text),
        engineOf(database).likeIgnoringCase("u.username", pattern),
        engineOf(database).likeIgnoringCase("u.name", pattern),
      ]),
    );
  }
  const rows = await query
    .orderBy("u.seq")
    .limit(ADMIN_PAGE_SIZE + 1)
    .offset((page - 1) * ADMIN_PAGE_SIZE)
    .execute();
  return {
    users: rows.slice(0, ADMIN_PAGE_SIZE).map((row) => ({
      ...row,
      posts: Number(row.posts ?? 0),
      followers: Number(row.followers ?? 0),
      following: Number(row.following ?? 0),
    })),
    hasMore: rows.length > ADMIN_PAGE_SIZE,
  };
}

/**
 * The admin's placeholder user (docs/rules.md#admin-created-users): User{n+1} / user{n+1} with n the number of users, taking the next
 * free number when that name exists, with the given password hash.
 */
export async function createPlaceholderUser({ passwordHash }: { passwordHash: string }, database: DB = db): Promise<{ id: string; username: string }> {
  const { n } = await database.selectFrom("users").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  // createUser checks and inserts in one transaction: when two admins add a user at the same
  // moment, the second finds the number taken and moves on to the next.
  for (let number = Number(n) + 1; ; number++) {
    try {
      const user = await createUser({ name: `User${number}`, username: `user${number}`, passwordHash, role: "USER", profile: DEFAULT_PROFILE_IMAGE }, database);
      return { id: user.id, username: user.username };
    } catch (error) {
      if (!(error instanceof UsernameTakenError)) throw error;
    }
  }
}

/** Deletes a user: follows, likes, saves and sessions go with them (FK cascades); their content stays. */
export async function deleteUserRow(userId: string, database: DB = db): Promise<boolean> {
  const result = await database.deleteFrom("users").where("id", "=", userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export interface AdminRecipeRow {
  recipe_id: string;
  name: string;
  photo: string;
  user_created: string | null;
  post_id: string | null;
  likes: number;
  comments: number;
  created_at: string | null;
}

export async function listRecipesForAdmin(
  { q, page }: { q: string; page: number },
  database: DB = db,
): Promise<{ recipes: AdminRecipeRow[]; hasMore: boolean }> {
  let query = database
    .selectFrom("recipes as r")
    .leftJoin("posts as p", "p.recipe_id", "r.id")
    .select([
      "r.id as recipe_id",
      "r.name",
      "r.photo",
      "r.user_created",
      "p.id as post_id",
      "p.created_at",
      (eb) => eb.selectFrom("likes").select((e) => e.fn.countAll<number>().as("n")).whereRef("likes.post_id", "=", "p.id").as("likes"),
      (eb) => eb.selectFrom("comments").select((e) => e.fn.countAll<number>().as("n")).whereRef("comments.post_id", "=", "p.id").as("comments"),
    ]);
  const text = q.trim();
  if (text) {
    const pattern = likeContains(text);
    query = query.where((eb) =>
      eb.or([
        eb("r.id", "=", text),
        eb("p.id", "=", text),
        eb("r.user_created", "=", text),
        engineOf(database).likeIgnoringCase("r.name", pattern),
        sql<boolean>`r.user_created in (select id from users where ${engineOf(database).likeIgnoringCase("username", pattern)})`,
      ]),
    );
  }
  const rows = await query
    .orderBy("r.seq", "desc")
    .limit(ADMIN_PAGE_SIZE + 1)
    .offset((page - 1) * ADMIN_PAGE_SIZE)
    .execute();
  return {
    recipes: rows.slice(0, ADMIN_PAGE_SIZE).map((row) => ({ ...row, likes: Number(row.likes ?? 0), comments: Number(row.comments ?? 0) })),
    hasMore: rows.length > ADMIN_PAGE_SIZE,
  };
}
