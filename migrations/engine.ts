import { PostgresAdapter, type Kysely } from "kysely";

// Migrations run on both engines (docs/scaling.md). Where the SQL must differ, a migration holds
// both variants and picks one with this; the migration's name is the same on both.

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * The type of a whole-number column that may outgrow 32 bits (`seq`, times in milliseconds):
 * SQLite's integer is 64-bit already; PostgreSQL's is 32-bit, so bigint there.
 */
export function wholeNumber(db: Kysely<any>): "integer" | "bigint" {
  return isPostgres(db) ? "bigint" : "integer";
}
