import { sql, type Kysely } from "kysely";

import { isPostgres, wholeNumber } from "./engine";

// Frozen once merged. What each commit changed, for the shared page cache (app/server/runtime/page-cache.server.ts,
// docs/scaling.md "What a write drops from the page cache"): kept pages name the scopes they show
// (`post:<id>`, `recipe:<id>`, `user:<id>`, `feed`, `search`), and a write names the scopes it
// changes, inside its own transaction.
//
// cache_versions: one row per scope ever changed, holding the number of the last commit that
// changed it. Writers take turns (docs/scaling.md), so a commit numbers itself max(version) + 1
// and numbers grow in commit order; a server asks "which scopes have a version above the last
// one I saw?" with one indexed query. The scope '*' is everything: every kept page depends on it.
//
// cache_scoping: empty outside a transaction. A writer that names its scopes marks its
// transaction with a row here (SQLite) or a transaction-local setting (PostgreSQL) and removes
// the mark before it commits. A write to a content table in a transaction without the mark — a
// script, an importer, the SQLite shell, a service that forgot — moves '*' by the triggers below:
// a write that names nothing drops every kept page, as every write did before.
const CONTENT_TABLES = [
  "users",
  "user_tags",
  "follows",
  "recipes",
  "recipe_tags",
  "ingredient_sections",
  "ingredient_lines",
  "steps",
  "posts",
  "likes",
  "comments",
  "saved_recipes",
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("cache_versions")
    .addColumn("scope", "text", (c) => c.primaryKey())
    .addColumn("version", wholeNumber(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex("cache_versions_version").on("cache_versions").column("version").execute();
  await db.schema.createTable("cache_scoping").addColumn("id", "integer", (c) => c.primaryKey()).execute();

  if (isPostgres(db)) {
    // Statement triggers (one bump however many rows). The mark is the setting
    // recipals.cache_scoped, local to the transaction that sets it; a bump sets
    // recipals.cache_unscoped, so the writing server can tell its own cache at once.
    await sql`create function recipals_cache_unscoped_write() returns trigger language plpgsql as $$
      begin
        if coalesce(current_setting('recipals.cache_scoped', true), '') <> 'on' then
          insert into cache_versions (scope, version)
            select '*', coalesce(max(version), 0) + 1 from cache_versions
            on conflict (scope) do update set version = excluded.version;
          perform set_config('recipals.cache_unscoped', 'on', true);
        end if;
        return null;
      end $$`.execute(db);
    for (const table of CONTENT_TABLES) {
      await sql
        .raw(
          `create trigger ${table}_cache_unscoped after insert or update or delete or truncate on ${table}
             for each statement execute function recipals_cache_unscoped_write()`,
        )
        .execute(db);
    }
    return;
  }
  // SQLite has row triggers only: one bump per row written without the mark.
  for (const table of CONTENT_TABLES) {
    for (const event of ["insert", "update", "delete"]) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_cache_unscoped_${event} AFTER ${event.toUpperCase()} ON ${table}
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
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
