import { sql, type Kysely } from "kysely";

import { isPostgres } from "./engine";

// Frozen once merged. PostgreSQL only (SQLite needs nothing: every connection reads the file's
// data_version). A commit that changed what pages show sends one notice on `recipals_changes`;
// every app server LISTENs and drops its shared page cache (app/server/db/engines/postgres.server.ts).
// Statement triggers, so a statement touching many rows costs one notice, and PostgreSQL folds
// the notices of one transaction into one. Sessions, throttling and rate events change no page a
// visitor is shown, so they send none.
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
  await sql`create function recipals_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('recipals_changes', '');
      return null;
    end $$`.execute(db);
  for (const table of CONTENT_TABLES) {
    await sql
      .raw(
        `create trigger ${table}_notify_change after insert or update or delete or truncate on ${table}
           for each statement execute function recipals_notify_change()`,
      )
      .execute(db);
  }
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
