import type { Kysely } from "kysely";

import { isPostgres, wholeNumber } from "./engine";

// Frozen once merged. Federation over ActivityPub (docs/federation.md): each person's signing
// keys, the ActivityPub library's key–value store and its durable message queue (deliveries
// survive a restart), the people of other servers we know of, who of them follows whom here, and
// the servers an admin blocked.
export async function up(db: Kysely<any>): Promise<void> {
  const ms = wholeNumber(db);
  await db.schema
    .createTable("actor_keys")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    // JSON Web Keys: an RSA pair (what Mastodon verifies) and an Ed25519 pair (object proofs).
    .addColumn("rsa_public", "text", (c) => c.notNull())
    .addColumn("rsa_private", "text", (c) => c.notNull())
    .addColumn("ed25519_public", "text", (c) => c.notNull())
    .addColumn("ed25519_private", "text", (c) => c.notNull())
    .addColumn("created_at", ms, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("federation_kv")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("expires_at", ms)
    .execute();

  await db.schema
    .createTable("federation_queue")
    .addColumn("id", isPostgres(db) ? "bigserial" : "integer", (c) => (isPostgres(db) ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn("message", "text", (c) => c.notNull())
    // Not before this time (a retry's backoff).
    .addColumn("run_at", ms, (c) => c.notNull())
    // Taken by a worker until then; one that stopped mid-delivery leaves it to be taken again.
    .addColumn("taken_until", ms)
    .addColumn("created_at", ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("federation_queue_due").on("federation_queue").columns(["run_at", "id"]).execute();

  await db.schema
    .createTable("remote_actors")
    // The actor's id: an https address on its server.
    .addColumn("id", "text", (c) => c.primaryKey())
    // name@host, shown as @name@host.
    .addColumn("handle", "text", (c) => c.notNull())
    .addColumn("host", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("summary", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("icon_url", "text")
    .addColumn("url", "text")
    .addColumn("inbox", "text", (c) => c.notNull())
    .addColumn("shared_inbox", "text")
    .addColumn("fetched_at", ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("remote_actors_handle").on("remote_actors").column("handle").execute();
  await db.schema.createIndex("remote_actors_host").on("remote_actors").column("host").execute();

  await db.schema
    .createTable("remote_followers")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("actor_id", "text", (c) => c.notNull().references("remote_actors.id").onDelete("cascade"))
    // The Follow activity's id (an Undo names it).
    .addColumn("follow_id", "text", (c) => c.notNull())
    .addColumn("created_at", ms, (c) => c.notNull())
    .addPrimaryKeyConstraint("remote_followers_pk", ["user_id", "actor_id"])
    .execute();
  await db.schema.createIndex("remote_followers_actor").on("remote_followers").column("actor_id").execute();

  // Servers an admin blocked: nothing from them is accepted or shown, nothing is sent to them.
  await db.schema
    .createTable("blocked_domains")
    .addColumn("domain", "text", (c) => c.primaryKey())
    .addColumn("blocked_by", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("created_at", ms, (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
