import { sql, type Kysely } from "kysely";

import { isPostgres } from "./engine";

// Frozen once merged. PostgreSQL only: its writers no longer take turns (docs/scaling.md, "How
// writers meet"). SQLite keeps its single writer and needs nothing here.
//
// - Insertion order comes from one sequence per table instead of max(seq) + 1, which two writers
//   side by side would both take. Each sequence belongs to its seq column (and is its default), so
//   a copy into PostgreSQL moves it past the copied rows like any serial column's.
// - Servers of the version before this one must all be stopped before it runs (they number rows
//   and read changes the old way): stop every server, migrate, start them again.
// - The page cache's change feed rides on NOTIFY alone. A scoped writer sends its scopes with its
//   commit (app/server/db/engines/postgres.server.ts); a write to a content table in a
//   transaction that named nothing sends `*` from these triggers. cache_versions, whose numbers
//   were max(version) + 1 over one table every writer touched, is no longer written on PostgreSQL.
//   The notices without a payload sent by every content statement (20261124T0100) go: a scoped
//   commit's own notice says more.
const SEQ_TABLES = ["users", "recipes", "posts", "comments", "saved_recipes", "notifications", "shopping_recipes", "reports", "moderation_log"];
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
  if (!isPostgres(db)) return;
  // A row inserted with a seq of its own (a tool, a test's bulk rows) moves the sequence past it,
  // so the next number taken is never one already used.
  await sql`create function recipals_seq_follows() returns trigger language plpgsql as $$
    declare
      top bigint;
      upcoming bigint;
    begin
      select max(seq) into top from inserted;
      -- The number nextval hands out next; rows numbered by the sequence are always below it.
      execute format('select case when is_called then last_value + 1 else last_value end from %s', tg_argv[0]) into upcoming;
      if top is not null and top >= upcoming then
        -- Two such inserts at once take turns here, and the sequence only ever moves forward.
        perform pg_advisory_xact_lock(tg_relid::bigint);
        execute format('select case when is_called then last_value + 1 else last_value end from %s', tg_argv[0]) into upcoming;
        if top >= upcoming then
          perform setval(tg_argv[0]::regclass, top);
        end if;
      end if;
      return null;
    end $$`.execute(db);
  for (const table of SEQ_TABLES) {
    const sequence = `${table}_seq_seq`;
    await sql.raw(`create sequence ${sequence} as bigint owned by ${table}.seq`).execute(db);
    await sql.raw(`select setval('${sequence}', coalesce((select max(seq) from ${table}), 0) + 1, false)`).execute(db);
    await sql.raw(`alter table ${table} alter column seq set default nextval('${sequence}')`).execute(db);
    await sql
      .raw(
        `create trigger ${table}_seq_follows after insert on ${table} referencing new table as inserted
           for each statement execute function recipals_seq_follows('${sequence}')`,
      )
      .execute(db);
  }

  for (const table of CONTENT_TABLES) await sql.raw(`drop trigger ${table}_notify_change on ${table}`).execute(db);
  await sql`drop function recipals_notify_change()`.execute(db);
  await sql`create or replace function recipals_cache_unscoped_write() returns trigger language plpgsql as $$
    begin
      if coalesce(current_setting('recipals.cache_scoped', true), '') <> 'on' then
        perform pg_notify('recipals_changes', '*');
      end if;
      return null;
    end $$`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
