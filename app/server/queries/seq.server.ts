import { sql } from "kysely";

/** Next insertion-order number of a table with a `seq` column (evaluated inside the insert). */
export function nextSeq(table: "users" | "recipes" | "posts" | "comments" | "saved_recipes") {
  return sql<number>`(select coalesce(max(seq), 0) + 1 from ${sql.table(table)})`;
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** Post dates are day-only (SPEC §9). */
export function todayDate(): string {
  return new Date().toISOString().slice(0, 10);
}
