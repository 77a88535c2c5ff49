import type { Kysely } from "kysely";

import { isPostgres } from "./engine";

// Failed sign-ins, kept in the database so a restart does not reset the throttle.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("sign_in_failures")
    .addColumn("id", isPostgres(db) ? "bigserial" : "integer", (c) => (isPostgres(db) ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn("username_key", "text", (c) => c.notNull())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("at", isPostgres(db) ? "bigint" : "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sign_in_failures_username").on("sign_in_failures").columns(["username_key", "at"]).execute();
  await db.schema.createIndex("sign_in_failures_address").on("sign_in_failures").columns(["address", "at"]).execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
