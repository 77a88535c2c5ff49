import { sql, type Kysely } from "kysely";

import { isPostgres } from "./engine";

// Frozen once merged. An email address on the account (docs/rules.md#account-email), confirmed by
// a link, and the one-use links themselves (confirm an address, choose a new password), kept only
// as a hash of their token: the database and its backups hold nothing that opens an account.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("email", "text").execute();
  await db.schema.alterTable("users").addColumn("email_confirmed_at", "text").execute();
  // One account per address, compared without case.
  if (isPostgres(db)) await sql`create unique index users_email_nocase on users (lower(email))`.execute(db);
  else await sql`create unique index users_email_nocase on users (email collate nocase)`.execute(db);

  await db.schema
    .createTable("account_tokens")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    // "verify" (confirm `email`) or "reset" (choose a new password).
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    // A fingerprint of the password hash when the link was made: a password changed since voids it.
    .addColumn("password_stamp", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("used_at", "bigint")
    .execute();
  await db.schema.createIndex("account_tokens_user").on("account_tokens").columns(["user_id", "purpose"]).execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
