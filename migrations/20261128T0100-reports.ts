import { sql, type Kysely } from "kysely";

import { wholeNumber } from "./engine";

// Frozen once merged. Reports, the moderation log and suspensions (docs/rules.md#reports-and-moderation).
// A report names its target by kind and id (a post, a comment or a person) and whose it is, so the
// queue can group reports per target and a suspension can find them; one person has at most one
// open report per target (the partial unique index). The log keeps who did what to what, and why,
// even after the moderator's or the target's account is gone.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("suspended_at", "text").execute();
  await db.schema.createIndex("users_suspended").on("users").column("suspended_at").where(sql.ref("suspended_at"), "is not", null).execute();

  await db.schema
    .createTable("reports")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("reporter_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("target_kind", "text", (c) => c.notNull())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("target_user_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("resolved_at", "text")
    .addColumn("resolution", "text")
    .addColumn("seq", wholeNumber(db), (c) => c.notNull())
    .addCheckConstraint("reports_kind", sql`target_kind in ('post', 'comment', 'user')`)
    .addCheckConstraint("reports_reason", sql`reason in ('spam', 'harassment', 'inappropriate', 'other')`)
    .execute();
  await db.schema
    .createIndex("reports_one_open")
    .on("reports")
    .unique()
    .columns(["reporter_id", "target_kind", "target_id"])
    .where(sql.ref("resolved_at"), "is", null)
    .execute();
  await db.schema.createIndex("reports_target").on("reports").columns(["target_kind", "target_id"]).execute();
  await db.schema.createIndex("reports_open_seq").on("reports").column("seq").where(sql.ref("resolved_at"), "is", null).execute();
  await db.schema.createIndex("reports_reporter_time").on("reports").columns(["reporter_id", "created_at"]).execute();

  await db.schema
    .createTable("moderation_log")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("moderator_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target_kind", "text", (c) => c.notNull())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("target_user_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("summary", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("why", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("seq", wholeNumber(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex("moderation_log_seq").on("moderation_log").column("seq").execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
