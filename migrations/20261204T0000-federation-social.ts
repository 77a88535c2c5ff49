import { sql, type Kysely } from "kysely";

import { wholeNumber } from "./engine";

// Frozen once merged. The social half of federation (docs/federation.md): people here following
// people on other servers (a Follow waits for its Accept) and whom of them they blocked or muted,
// the posts those people send us with the likes and replies given them here, and the likes and
// replies people on other servers give posts here.
export async function up(db: Kysely<any>): Promise<void> {
  const ms = wholeNumber(db);
  await db.schema
    .createTable("remote_follows")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("actor_id", "text", (c) => c.notNull().references("remote_actors.id").onDelete("cascade"))
    // Our Follow activity's id: their Accept names it, our Undo repeats it.
    .addColumn("follow_id", "text", (c) => c.notNull())
    // Empty until their server accepts.
    .addColumn("accepted_at", ms)
    .addColumn("created_at", ms, (c) => c.notNull())
    .addPrimaryKeyConstraint("remote_follows_pk", ["user_id", "actor_id"])
    .execute();
  await db.schema.createIndex("remote_follows_actor").on("remote_follows").column("actor_id").execute();

  // People on other servers someone here blocked or muted.
  await db.schema
    .createTable("remote_blocks")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("actor_id", "text", (c) => c.notNull().references("remote_actors.id").onDelete("cascade"))
    // "block": nothing between the two either way; "mute": their posts are not shown to the person.
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('block', 'mute')`))
    .addColumn("created_at", ms, (c) => c.notNull())
    .addPrimaryKeyConstraint("remote_blocks_pk", ["user_id", "actor_id", "kind"])
    .execute();
  await db.schema.createIndex("remote_blocks_actor").on("remote_blocks").column("actor_id").execute();

  await db.schema
    .createTable("remote_posts")
    // The Note's id on its server.
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("actor_id", "text", (c) => c.notNull().references("remote_actors.id").onDelete("cascade"))
    // Where people read it there (an http(s) address), or the id itself.
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("name", "text")
    // Plain text: the Note's HTML with every tag taken out (never shown as HTML).
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("image_url", "text")
    .addColumn("published_at", ms, (c) => c.notNull())
    .addColumn("received_at", ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("remote_posts_actor_published").on("remote_posts").columns(["actor_id", "published_at"]).execute();

  // Likes given here to posts from elsewhere (sent to their author's server as Like).
  await db.schema
    .createTable("remote_post_likes")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("post_id", "text", (c) => c.notNull().references("remote_posts.id").onDelete("cascade"))
    // Our Like activity's id (our Undo repeats it).
    .addColumn("like_id", "text", (c) => c.notNull())
    .addColumn("created_at", ms, (c) => c.notNull())
    .addPrimaryKeyConstraint("remote_post_likes_pk", ["user_id", "post_id"])
    .execute();
  await db.schema.createIndex("remote_post_likes_post").on("remote_post_likes").column("post_id").execute();

  // Replies written here to posts from elsewhere (sent to their author's server as a Note).
  await db.schema
    .createTable("remote_post_replies")
    // Our Note's id: an address on this server.
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("post_id", "text", (c) => c.notNull().references("remote_posts.id").onDelete("cascade"))
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("created_at", ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("remote_post_replies_post").on("remote_post_replies").columns(["post_id", "created_at"]).execute();

  await db.schema
    .createTable("remote_likes")
    .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
    .addColumn("actor_id", "text", (c) => c.notNull().references("remote_actors.id").onDelete("cascade"))
    // The Like activity's id (an Undo names it).
    .addColumn("like_id", "text", (c) => c.notNull())
    .addColumn("created_at", ms, (c) => c.notNull())
    .addPrimaryKeyConstraint("remote_likes_pk", ["post_id", "actor_id"])
    .execute();
  await db.schema.createIndex("remote_likes_actor").on("remote_likes").column("actor_id").execute();

  await db.schema
    .createTable("remote_comments")
    // The reply Note's id on its server.
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
    .addColumn("actor_id", "text", (c) => c.notNull().references("remote_actors.id").onDelete("cascade"))
    .addColumn("url", "text", (c) => c.notNull())
    // Plain text, as remote_posts.text.
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("created_at", ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("remote_comments_post").on("remote_comments").columns(["post_id", "created_at"]).execute();
  await db.schema.createIndex("remote_comments_actor").on("remote_comments").column("actor_id").execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
