import { sql, type RawBuilder, type SelectQueryBuilder } from "kysely";

import { engineOf, type DB } from "../db/connection.server";
import type { SeqTable } from "../db/engines/engine.server";
import { shownPerson } from "./visibility.server";

/**
 * Next insertion-order number of a table with a `seq` column (evaluated inside the insert made
 * through `database`). Each engine numbers its own way (docs/scaling.md, "How writers meet"):
 * SQLite takes `max(seq) + 1` (per person for notifications and shopping lists, which only order
 * one person's rows), PostgreSQL a sequence, so two writers never wait for each other's number.
 */
export function nextSeq(database: DB, table: "users" | "recipes" | "posts" | "comments" | "saved_recipes" | "reports" | "moderation_log" | "cooks"): RawBuilder<number>;
export function nextSeq(database: DB, table: "notifications" | "shopping_recipes", userId: string): RawBuilder<number>;
export function nextSeq(database: DB, table: SeqTable, userId?: string): RawBuilder<number> {
  return engineOf(database).writers.nextSeq(table, userId);
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** Post dates are day-only (docs/rules.md#urls-and-ids). */
export function todayDate(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Which rows a batched reader returns: the given ids, or a keyset page in insertion order
 * (`seq` greater than `afterSeq`, skipping `offset` rows, at most `limit`). Rows of the people in
 * `without` (whom the reader does not see: docs/rules.md#blocking-and-muting) are left out, and so
 * are they from the lists a row carries (a user's followers, a post's likes); `quiet` (`without`
 * and the people the reader muted) from what people wrote in them (a post's comments).
 */
export type BatchSelection = ({ ids: readonly string[] } | { afterSeq: number; offset?: number; limit: number }) & {
  without?: readonly string[];
  quiet?: readonly string[];
};
export type KeysetSelection = Extract<BatchSelection, { afterSeq: number }>;

/**
 * Narrows a batched reader's query to its selection, in insertion order; null when there is
 * nothing to read. `id`, `seq` and `person` (whose row it is) name the table's columns (qualified
 * if the query joins).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any reader's query, whatever its tables and columns
export function applyBatchSelection<QB extends SelectQueryBuilder<any, any, any>>(
  query: QB,
  selection: BatchSelection,
  { id, seq, person }: { id: string; seq: string; person: string },
): QB | null {
  query = query.where(shownPerson(person, selection.without ?? [])) as QB;
  if ("ids" in selection) {
    if (selection.ids.length === 0) return null;
    return query.where(sql.ref(id), "in", [...selection.ids]).orderBy(sql.ref(seq)) as QB;
  }
  return query
    .where(sql.ref(seq), ">", selection.afterSeq)
    .orderBy(sql.ref(seq))
    .limit(selection.limit)
    .offset(selection.offset ?? 0) as QB;
}

/** Groups `[key, value]` rows into lists per key, keeping the rows' order. */
export function groupRows<K, V>(rows: readonly (readonly [K, V])[]): Map<K, V[]> {
  const groups = new Map<K, V[]>();
  for (const [key, value] of rows) {
    const list = groups.get(key);
    if (list) list.push(value);
    else groups.set(key, [value]);
  }
  return groups;
}
