import crypto from "node:crypto";


import { DEFAULT_PROFILE_IMAGE } from "~/lib/paths";

import { db, engineOf, isUniqueViolation, withinTransaction, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";
import { hashPassword, needsRehash, verifyPassword } from "../auth/password.server";
import { applyBatchSelection, groupRows, nextSeq, nowIso, type BatchSelection } from "./seq.server";
import { shownPerson } from "./visibility.server";

export type Role = "USER" | "ADMIN";

/** What every page needs to know about the signed-in user (root loader). */
export interface SessionUser {
  id: string;
  username: string;
  name: string;
  role: Role;
  profile: string;
}

export interface UserProfile extends SessionUser {
  bio: string;
  tags: string[];
}

export const sessionUserColumns = ["id", "username", "name", "role", "profile"] as const;

export async function getSessionUserById(id: string, database: DB = db): Promise<SessionUser | undefined> {
  return database.selectFrom("users").select(sessionUserColumns).where("id", "=", id).executeTakeFirst();
}

// A profile's reads are prepared once (db/prepared-read.server.ts): they run on every profile page.
const profileRow = preparedRead((database, id: string) => database.selectFrom("users").select([...sessionUserColumns, "bio"]).where("id", "=", id));
const tagRows = preparedRead((database, userId: string) => database.selectFrom("user_tags").select("tag").where("user_id", "=", userId).orderBy("position"));

export async function getUserProfile(id: string, database: DB = db): Promise<UserProfile | undefined> {
  const [user] = await profileRow(database, id);
  if (!user) return undefined;
  return { ...user, tags: await getUserTags(id, database) };
}

export async function getUserTags(userId: string, database: DB = db): Promise<string[]> {
  return (await tagRows(database, userId)).map((row) => row.tag);
}

export async function isUsernameTaken(username: string, database: DB = db): Promise<boolean> {
  const row = await database
    .selectFrom("users")
    .select("id")
    .where(engineOf(database).equalsIgnoringCase("username", username))
    .executeTakeFirst();
  return row !== undefined;
}

export type LoginResult =
  | { ok: true; user: SessionUser }
  | { ok: false; reason: "unknown-user" | "wrong-password" | "suspended" };

/** The only place the password hash is read. It never leaves this function. */
export async function verifyLogin(
  { username, password }: { username: string; password: string },
  database: DB = db,
): Promise<LoginResult> {
  const row = await database
    .selectFrom("users")
    .select([...sessionUserColumns, "password_hash", "suspended_at"])
    .where(engineOf(database).equalsIgnoringCase("username", username))
    .executeTakeFirst();
  if (!row) return { ok: false, reason: "unknown-user" };
  const { password_hash: hash, suspended_at: suspendedAt, ...user } = row;
  if (!(await verifyPassword(password, hash))) return { ok: false, reason: "wrong-password" };
  // Said only to whoever knows the password (docs/rules.md#suspension).
  if (suspendedAt) return { ok: false, reason: "suspended" };
  // A hash made at an older, lower cost is replaced now that the password is at hand. Only if it
  // is still the same hash: a password changed meanwhile is left alone.
  if (needsRehash(hash)) {
    const upgraded = await hashPassword(password);
    await database.updateTable("users").set({ password_hash: upgraded }).where("id", "=", user.id).where("password_hash", "=", hash).execute();
  }
  return { ok: true, user };
}

/** Whether `password` is the user's own (asked before a password change). The hash never leaves this function. */
export async function isCurrentPassword(userId: string, password: string, database: DB = db): Promise<boolean> {
  const row = await database.selectFrom("users").select("password_hash").where("id", "=", userId).executeTakeFirst();
  return row !== undefined && (await verifyPassword(password, row.password_hash));
}

export interface NewUser {
  id?: string;
  name: string;
  username: string;
  passwordHash: string;
  role?: Role;
  bio?: string;
  profile?: string;
  tags?: string[];
}

export class UsernameTakenError extends Error {
  constructor(username: string) {
    super(`The username "${username}" is already taken.`);
    this.name = "UsernameTakenError";
  }
}

/** Runs a rename to `username`: UsernameTakenError when another writer took it first (the unique index). */
async function takingUsername<T>(username: string, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isUniqueViolation(error, "users_username_nocase")) throw new UsernameTakenError(username);
    throw error;
  }
}

/** Creates a user and their ordered tags in one transaction; refuses a taken username. */
export async function createUser(input: NewUser, database: DB = db): Promise<SessionUser> {
  const id = input.id ?? crypto.randomUUID();
  return withinTransaction(database, async (trx) => {
    if (await isUsernameTaken(input.username, trx)) throw new UsernameTakenError(input.username);
    // The unique index decides between sign-ups racing for one name (the check above answers the
    // usual case). Nothing is inserted then, and the transaction stays usable (a caller may try another name).
    const inserted = await trx
      .insertInto("users")
      .values({
        id,
        name: input.name,
        username: input.username,
        password_hash: input.passwordHash,
        role: input.role ?? "USER",
        bio: input.bio ?? "",
        profile: input.profile || DEFAULT_PROFILE_IMAGE,
        created_at: nowIso(),
        seq: nextSeq(trx, "users"),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw new UsernameTakenError(input.username);
    const tags = input.tags ?? [];
    if (tags.length > 0) {
      await trx
        .insertInto("user_tags")
        .values(tags.map((tag, position) => ({ user_id: id, position, tag })))
        .execute();
    }
    const created = await getSessionUserById(id, trx);
    if (!created) throw new Error("User vanished inside its own transaction");
    return created;
  });
}

/** Whether another user (any case) already has this username; the user's own name never counts. */
export async function isUsernameTakenByOther(username: string, userId: string, database: DB = db): Promise<boolean> {
  const row = await database
    .selectFrom("users")
    .select("id")
    .where(engineOf(database).equalsIgnoringCase("username", username))
    .where("id", "<>", userId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * True when `userId` is the only ADMIN. Called inside the transaction that changes the role or
 * deletes the user: every such transaction holds the "admins" lock until it ends, so two admins
 * demoting each other at once take turns and the second sees the first's change (docs/scaling.md,
 * "How writers meet").
 */
export async function isLastAdmin(userId: string, database: DB): Promise<boolean> {
  await engineOf(database).writers.lock(database, ["admins"]);
  const admins = await database.selectFrom("users").select("id").where("role", "=", "ADMIN").limit(2).execute();
  return admins.length === 1 && admins[0]!.id === userId;
}

/**
 * What a profile save writes: only the fields given. What the request did not change is not
 * written back, so a save that read the user before another one changed it (an ADMIN demoting
 * them meanwhile, while this save hashed a password) cannot put the old value back.
 */
export interface ProfileUpdate {
  id: string;
  name?: string;
  username?: string;
  role?: Role;
  bio?: string;
  tags?: string[];
  /** A new password's hash: it also ends every session of the user, in the same transaction. */
  passwordHash?: string;
  /** A new picture's URL. */
  profile?: string;
}

/**
 * Saves a profile (user row, ordered tags, the sessions a new password ends) with `trx`, the
 * caller's transaction; refuses a username another user has, whatever its case.
 */
export async function updateUserProfile(input: ProfileUpdate, trx: DB): Promise<UserProfile> {
  if (input.username !== undefined && (await isUsernameTakenByOther(input.username, input.id, trx))) throw new UsernameTakenError(input.username);
  // Two saves of one profile take turns: each replaces the tags whole.
  await engineOf(trx).writers.forUpdate(trx.selectFrom("users").select("id").where("id", "=", input.id)).execute();
  const columns = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.username !== undefined ? { username: input.username } : {}),
    ...(input.role !== undefined ? { role: input.role } : {}),
    ...(input.bio !== undefined ? { bio: input.bio } : {}),
    ...(input.passwordHash !== undefined ? { password_hash: input.passwordHash } : {}),
    ...(input.profile !== undefined ? { profile: input.profile } : {}),
  };
  if (Object.keys(columns).length > 0) {
    const update = trx.updateTable("users").set(columns).where("id", "=", input.id).executeTakeFirstOrThrow();
    await (input.username === undefined ? update : takingUsername(input.username, update));
  }
  if (input.tags !== undefined) {
    await trx.deleteFrom("user_tags").where("user_id", "=", input.id).execute();
    if (input.tags.length > 0) {
      await trx
        .insertInto("user_tags")
        .values(input.tags.map((tag, position) => ({ user_id: input.id, position, tag })))
        .execute();
    }
  }
  if (input.passwordHash !== undefined) await trx.deleteFrom("sessions").where("user_id", "=", input.id).execute();
  const updated = await getUserProfile(input.id, trx);
  if (!updated) throw new Error("User vanished inside its own transaction");
  return updated;
}

// ---------------------------------------------------------------------------------------------
// Users with their id lists, for the JSON API (docs/rules.md#api-entities). Batched: one query per list
// kind for a whole batch, never one per user. The password hash is never selected.

export interface UserWithLists extends UserProfile {
  seq: number;
  /** Post ids, in stored order. */
  posts: string[];
  /** Follower ids, oldest follow first. */
  followers: string[];
  /** Followed user ids, oldest follow first. */
  following: string[];
  /** Saved recipe ids, in the order they were saved. */
  saved_recipes: string[];
}

export async function readUsersWithLists(selection: BatchSelection, database: DB = db): Promise<UserWithLists[]> {
  const query = applyBatchSelection(
    database.selectFrom("users").select(["seq", ...sessionUserColumns, "bio"]),
    selection,
    { id: "users.id", seq: "users.seq", person: "users.id" },
  );
  if (!query) return [];
  const users = await query.execute();
  if (users.length === 0) return [];
  const ids = users.map((user) => user.id);
  const without = selection.without ?? [];
  const [tags, posts, followers, following, saved] = await Promise.all([
    database.selectFrom("user_tags").select(["user_id", "tag"]).where("user_id", "in", ids).orderBy("user_id").orderBy("position").execute(),
    database.selectFrom("posts").select(["created_by", "id"]).where("created_by", "in", ids).orderBy("seq").execute(),
    database
      .selectFrom("follows")
      .select(["followee_id", "follower_id"])
      .where("followee_id", "in", ids)
      .where(shownPerson("follows.follower_id", without))
      .orderBy("created_at")
      .orderBy("follower_id")
      .execute(),
    database
      .selectFrom("follows")
      .select(["follower_id", "followee_id"])
      .where("follower_id", "in", ids)
      .where(shownPerson("follows.followee_id", without))
      .orderBy("created_at")
      .orderBy("followee_id")
      .execute(),
    // Saved recipes by people hidden from the reader are not theirs to know of.
    database
      .selectFrom("saved_recipes as s")
      .innerJoin("recipes as r", "r.id", "s.recipe_id")
      .select(["s.user_id", "s.recipe_id"])
      .where("s.user_id", "in", ids)
      .where(shownPerson("r.user_created", without))
      .orderBy("s.seq")
      .execute(),
  ]);
  const tagsOf = groupRows(tags.map((row) => [row.user_id, row.tag] as const));
  const postsOf = groupRows(posts.map((row) => [row.created_by, row.id] as const));
  const followersOf = groupRows(followers.map((row) => [row.followee_id, row.follower_id] as const));
  const followingOf = groupRows(following.map((row) => [row.follower_id, row.followee_id] as const));
  const savedOf = groupRows(saved.map((row) => [row.user_id, row.recipe_id] as const));
  return users.map((user) => ({
    ...user,
    tags: tagsOf.get(user.id) ?? [],
    posts: postsOf.get(user.id) ?? [],
    followers: followersOf.get(user.id) ?? [],
    following: followingOf.get(user.id) ?? [],
    saved_recipes: savedOf.get(user.id) ?? [],
  }));
}
