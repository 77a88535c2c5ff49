import type { Kysely } from "kysely";

// Frozen once merged. Rate limits for actions other than signing in (import by link, for now):
// one row an action, counted per bucket and key (a user id) over a window. Kept in the database,
// not in a process's memory, so every server of a cluster counts the same actions. The id is
// text (a random UUID), which every engine stores the same way.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("rate_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("bucket", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("rate_events_bucket_key_at").on("rate_events").columns(["bucket", "key", "at"]).execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
