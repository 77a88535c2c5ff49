import { sql, type Kysely } from "kysely";

import { isPostgres, wholeNumber } from "./engine";

// Frozen once merged. "I made this" (docs/rules.md#i-made-this): one entry per person and recipe,
// gone with either. The recipe page lists a recipe's entries newest first and counts them with
// their average; a profile's "Cooked" tab lists a person's. Both read by `seq`, the insertion order
// (an edit keeps its place). A content table: it shows on pages the page cache keeps, so a write
// that names no scopes drops every kept page, as for the other content tables.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("cooks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("recipe_id", "text", (c) => c.notNull().references("recipes.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("rating", "integer", (c) => c.notNull().check(sql`rating between 1 and 5`))
    .addColumn("note", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("servings", "integer")
    .addColumn("photo", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("seq", wholeNumber(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex("cooks_person_recipe").unique().on("cooks").columns(["user_id", "recipe_id"]).execute();
  await db.schema.createIndex("cooks_recipe_seq").on("cooks").columns(["recipe_id", "seq"]).execute();
  await db.schema.createIndex("cooks_user_seq").on("cooks").columns(["user_id", "seq"]).execute();

  if (isPostgres(db)) {
    await sql`create sequence cooks_seq_seq as bigint owned by cooks.seq`.execute(db);
    await sql`alter table cooks alter column seq set default nextval('cooks_seq_seq')`.execute(db);
    await sql`create trigger cooks_seq_follows after insert on cooks referencing new table as inserted
      for each statement execute function recipals_seq_follows('cooks_seq_seq')`.execute(db);
    await sql`create trigger cooks_cache_unscoped after insert or update or delete or truncate on cooks
      for each statement execute function recipals_cache_unscoped_write()`.execute(db);
    return;
  }
  for (const event of ["insert", "update", "delete"]) {
    await sql
      .raw(
        `CREATE TRIGGER cooks_cache_unscoped_${event} AFTER ${event.toUpperCase()} ON cooks
         WHEN NOT EXISTS (SELECT 1 FROM cache_scoping)
         BEGIN
           INSERT INTO cache_versions (scope, version)
             VALUES ('*', (SELECT coalesce(max(version), 0) + 1 FROM cache_versions))
             ON CONFLICT (scope) DO UPDATE SET version = excluded.version;
         END`,
      )
      .execute(db);
  }
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
