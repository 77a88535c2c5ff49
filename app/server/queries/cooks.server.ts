import crypto from "node:crypto";

import { sql } from "kysely";

import { db, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";
import { nextSeq, nowIso } from "./seq.server";
import { shownPerson } from "./visibility.server";

// Storage of "I made this" entries (docs/rules.md#i-made-this): one per person and recipe (a
// unique index), listed newest first by insertion order, an edit keeping its place.

export interface CookEntry {
  cook_id: string;
  recipe_id: string;
  rating: number;
  note: string;
  servings: number | null;
  photo: string | null;
  created_at: string;
  updated_at: string;
  person: { id: string; username: string; profile: string };
}

export interface CookedRecipe extends Omit<CookEntry, "person"> {
  recipe: { id: string; name: string; photo: string };
}

export interface CookStats {
  count: number;
  /** The average rating, one decimal; null without entries. */
  average: number | null;
}

export interface CookFields {
  rating: number;
  note: string;
  servings: number | null;
  photo: string | null;
}

/** Entries shown on a recipe page; a profile's "Cooked" tab lists them all. */
export const COOKS_SHOWN_ON_RECIPE = 20;

const entryColumns = ["c.id as cook_id", "c.recipe_id", "c.rating", "c.note", "c.servings", "c.photo", "c.created_at", "c.updated_at"] as const;

const ownCookRow = preparedRead((database, userId: string, recipeId: string) =>
  database.selectFrom("cooks").select(["id as cook_id", "rating", "note", "servings", "photo"]).where("user_id", "=", userId).where("recipe_id", "=", recipeId),
);

/** One person's entry for a recipe, if any. */
export async function getOwnCook(userId: string, recipeId: string, database: DB = db): Promise<(CookFields & { cook_id: string }) | undefined> {
  return (await ownCookRow(database, userId, recipeId))[0];
}

/** Adds the person's entry; false when they already have one (the unique index decides). */
export async function insertCook(userId: string, recipeId: string, fields: CookFields, database: DB): Promise<boolean> {
  const now = nowIso();
  const added = await database
    .insertInto("cooks")
    .values({ id: crypto.randomUUID(), recipe_id: recipeId, user_id: userId, ...fields, created_at: now, updated_at: now, seq: nextSeq(database, "cooks") })
    .onConflict((oc) => oc.columns(["user_id", "recipe_id"]).doNothing())
    .executeTakeFirst();
  return Number(added.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Changes the person's entry; false when they have none. */
export async function updateCook(userId: string, recipeId: string, fields: CookFields, database: DB): Promise<boolean> {
  const changed = await database
    .updateTable("cooks")
    .set({ ...fields, updated_at: nowIso() })
    .where("user_id", "=", userId)
    .where("recipe_id", "=", recipeId)
    .executeTakeFirst();
  return Number(changed.numUpdatedRows) > 0;
}

/** Removes the person's entry and answers what it was; undefined when there was none. */
export async function deleteCook(userId: string, recipeId: string, database: DB): Promise<{ id: string; rating: number; note: string; photo: string | null } | undefined> {
  return database.deleteFrom("cooks").where("user_id", "=", userId).where("recipe_id", "=", recipeId).returning(["id", "rating", "note", "photo"]).executeTakeFirst();
}

/** One person's entry for a recipe, as listed. */
export async function getCookEntry(userId: string, recipeId: string, database: DB = db): Promise<CookEntry | undefined> {
  const row = await entriesQuery(database).where("c.user_id", "=", userId).where("c.recipe_id", "=", recipeId).executeTakeFirst();
  return row && toEntry(row);
}

function entriesQuery(database: DB) {
  return database
    .selectFrom("cooks as c")
    .innerJoin("users as u", "u.id", "c.user_id")
    .select([...entryColumns, "u.id as person_id", "u.username", "u.profile"]);
}

function toEntry({ person_id, username, profile, ...entry }: { person_id: string; username: string; profile: string } & Omit<CookEntry, "person">): CookEntry {
  return { ...entry, person: { id: person_id, username, profile } };
}

/** A recipe's entries, newest first, without those of the people in `without` (the reader's lens). */
export async function listRecipeCooks(
  recipeId: string,
  { without = [], limit }: { without?: readonly string[]; limit?: number } = {},
  database: DB = db,
): Promise<CookEntry[]> {
  let query = entriesQuery(database)
    .where("c.recipe_id", "=", recipeId)
    .where(shownPerson("c.user_id", without))
    .orderBy("c.seq", "desc");
  if (limit !== undefined) query = query.limit(limit);
  return (await query.execute()).map(toEntry);
}

/** How many said they made a recipe, and their average rating (the lens applies here too). */
export async function recipeCookStats(recipeId: string, { without = [] }: { without?: readonly string[] } = {}, database: DB = db): Promise<CookStats> {
  const row = await database
    .selectFrom("cooks")
    .select([sql<number>`count(*)`.as("n"), sql<number | null>`avg(rating)`.as("average")])
    .where("recipe_id", "=", recipeId)
    .where(shownPerson("cooks.user_id", without))
    .executeTakeFirstOrThrow();
  return statsOf(row);
}

/**
 * Counts and averages of many recipes at once (recipe cards), without the entries of the people in
 * `without` (the reader's lens); recipes without entries are absent.
 */
export async function cookStatsOf(recipeIds: readonly string[], { without = [] }: { without?: readonly string[] } = {}, database: DB = db): Promise<Map<string, CookStats>> {
  if (recipeIds.length === 0) return new Map();
  const rows = await database
    .selectFrom("cooks")
    .select(["recipe_id", sql<number>`count(*)`.as("n"), sql<number | null>`avg(rating)`.as("average")])
    .where("recipe_id", "in", recipeIds)
    .where(shownPerson("cooks.user_id", without))
    .groupBy("recipe_id")
    .execute();
  return new Map(rows.map((row) => [row.recipe_id, statsOf(row)]));
}

function statsOf(row: { n: number | string; average: number | string | null }): CookStats {
  const count = Number(row.n);
  return { count, average: count === 0 || row.average === null ? null : Math.round(Number(row.average) * 10) / 10 };
}

/** What a person said they made, newest first, without recipes by the people in `without`. */
export async function listPersonCooks(userId: string, { without = [] }: { without?: readonly string[] } = {}, database: DB = db): Promise<CookedRecipe[]> {
  return (
    await database
      .selectFrom("cooks as c")
      .innerJoin("recipes as r", "r.id", "c.recipe_id")
      .select([...entryColumns, "r.name as recipe_name", "r.photo as recipe_photo"])
      .where("c.user_id", "=", userId)
      .where(shownPerson("r.user_created", without))
      .orderBy("c.seq", "desc")
      .execute()
  ).map(({ recipe_name, recipe_photo, ...entry }) => ({ ...entry, recipe: { id: entry.recipe_id, name: recipe_name, photo: recipe_photo } }));
}
