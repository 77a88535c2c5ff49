import { sql, type Kysely } from "kysely";

// Frozen once merged. Blocks and mutes (docs/rules.md#blocking-and-muting): one row per person who
// acts and person acted on, gone with either account. A block hides the two from each other both
// ways, so it is looked up from both ends (the key, and the index on blocked_id); a mute only ever
// from the person who muted.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("blocks")
    .addColumn("blocker_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("blocked_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("blocks_pk", ["blocker_id", "blocked_id"])
    .addCheckConstraint("blocks_not_self", sql`blocker_id <> blocked_id`)
    .execute();
  await db.schema.createIndex("blocks_blocked").on("blocks").columns(["blocked_id", "blocker_id"]).execute();
  await db.schema
    .createTable("mutes")
    .addColumn("muter_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("muted_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("mutes_pk", ["muter_id", "muted_id"])
    .addCheckConstraint("mutes_not_self", sql`muter_id <> muted_id`)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
