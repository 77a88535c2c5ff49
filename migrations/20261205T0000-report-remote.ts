import { sql, type Kysely } from "kysely";

import { isPostgres, wholeNumber } from "./engine";

// Frozen once merged. People on other servers and what they send can be reported
// (docs/federation.md, "Safety"): a report's target kind may now be `remote_user` (an actor's id),
// `remote_post` (a post from elsewhere on someone's Home) or `remote_comment` (a reply from
// elsewhere under a recipe). Such a report has no target_user_id: its owner has no account here.
// PostgreSQL changes the check in place; SQLite cannot change a CHECK constraint, so the table is
// built again under its name with its rows and indexes (as 20261201T0000-report-cooks did).
export async function up(db: Kysely<any>): Promise<void> {
  const kinds = sql`target_kind in ('post', 'comment', 'user', 'cook', 'remote_user', 'remote_post', 'remote_comment')`;
  if (isPostgres(db)) {
    await sql`alter table reports drop constraint reports_kind`.execute(db);
    await sql`alter table reports add constraint reports_kind check (${kinds})`.execute(db);
    return;
  }
  await db.schema
    .createTable("reports_next")
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
    .addCheckConstraint("reports_kind", kinds)
    .addCheckConstraint("reports_reason", sql`reason in ('spam', 'harassment', 'inappropriate', 'other')`)
    .execute();
  await sql`insert into reports_next (id, reporter_id, target_kind, target_id, target_user_id, reason, text, created_at, resolved_at, resolution, seq)
    select id, reporter_id, target_kind, target_id, target_user_id, reason, text, created_at, resolved_at, resolution, seq from reports`.execute(db);
  await db.schema.dropTable("reports").execute();
  await db.schema.alterTable("reports_next").renameTo("reports").execute();
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
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
