import { sql, type Kysely } from "kysely";

import { isPostgres, wholeNumber } from "./engine";

// Frozen once merged: change the schema with a new migration, never by editing this one.
// (The PostgreSQL variants were added when PostgreSQL became an engine; SQLite's SQL is unchanged.)
// Ordered children (tags, sections, lines, steps) carry an explicit `position`, so the
// order users typed survives every round trip. `seq` columns give a stable insertion
// order for "newest first" and "stored order" without trusting SQLite's rowid.
export async function up(db: Kysely<any>): Promise<void> {
  const big = wholeNumber(db);
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("username", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) =>
      c.notNull().defaultTo("USER").check(sql`role in ('USER', 'ADMIN')`),
    )
    .addColumn("bio", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("profile", "text", (c) => c.notNull().defaultTo("/images/profile.png"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("seq", big, (c) => c.notNull())
    .execute();
  // Usernames are unique regardless of case ("Jasmin" and "jasmin" are one person).
  if (isPostgres(db)) await sql`create unique index users_username_nocase on users (lower(username))`.execute(db);
  else await sql`create unique index users_username_nocase on users (username collate nocase)`.execute(db);
  await db.schema.createIndex("users_seq").on("users").column("seq").unique().execute();
  await db.schema.createIndex("users_name").on("users").column("name").execute();

  await db.schema
    .createTable("user_tags")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("tag", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("user_tags_pk", ["user_id", "position"])
    .execute();

  await db.schema
    .createTable("follows")
    .addColumn("follower_id", "text", (c) =>
      c.notNull().references("users.id").onDelete("cascade"),
    )
    .addColumn("followee_id", "text", (c) =>
      c.notNull().references("users.id").onDelete("cascade"),
    )
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("follows_pk", ["follower_id", "followee_id"])
    .addCheckConstraint("follows_not_self", sql`follower_id <> followee_id`)
    .execute();
  await db.schema
    .createIndex("follows_followee")
    .on("follows")
    .columns(["followee_id", "follower_id"])
    .execute();

  // Recipes, posts and comments outlive their author: the author column becomes null
  // and pages show 'Unknown User'.
  await db.schema
    .createTable("recipes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_created", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("total_time", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("serves", "integer")
    .addColumn("photo", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "text")
    .addColumn("seq", big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("recipes_seq").on("recipes").column("seq").unique().execute();
  await db.schema
    .createIndex("recipes_user_created")
    .on("recipes")
    .columns(["user_created", "seq"])
    .execute();

  await db.schema
    .createTable("recipe_tags")
    .addColumn("recipe_id", "text", (c) =>
      c.notNull().references("recipes.id").onDelete("cascade"),
    )
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("tag", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("recipe_tags_pk", ["recipe_id", "position"])
    .execute();

  await db.schema
    .createTable("ingredient_sections")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("recipe_id", "text", (c) =>
      c.notNull().references("recipes.id").onDelete("cascade"),
    )
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addUniqueConstraint("ingredient_sections_order", ["recipe_id", "position"])
    .execute();

  await db.schema
    .createTable("ingredient_lines")
    .addColumn("section_id", "text", (c) =>
      c.notNull().references("ingredient_sections.id").onDelete("cascade"),
    )
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("ingredient_lines_pk", ["section_id", "position"])
    .execute();

  await db.schema
    .createTable("steps")
    .addColumn("recipe_id", "text", (c) =>
      c.notNull().references("recipes.id").onDelete("cascade"),
    )
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("steps_pk", ["recipe_id", "position"])
    .execute();

  // One post per recipe (unique recipe_id); deleting the recipe deletes its post.
  await db.schema
    .createTable("posts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("recipe_id", "text", (c) =>
      c.notNull().unique().references("recipes.id").onDelete("cascade"),
    )
    .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("caption", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("photo", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "text")
    .addColumn("seq", big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("posts_seq").on("posts").column("seq").unique().execute();
  await db.schema
    .createIndex("posts_created_by")
    .on("posts")
    .columns(["created_by", "seq"])
    .execute();

  await db.schema
    .createTable("likes")
    .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("likes_pk", ["post_id", "user_id"])
    .execute();
  await db.schema.createIndex("likes_user").on("likes").columns(["user_id", "post_id"]).execute();

  await db.schema
    .createTable("comments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("post_id", "text", (c) => c.notNull().references("posts.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("seq", big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("comments_post").on("comments").columns(["post_id", "seq"]).execute();
  await db.schema.createIndex("comments_user").on("comments").column("user_id").execute();

  await db.schema
    .createTable("saved_recipes")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("recipe_id", "text", (c) =>
      c.notNull().references("recipes.id").onDelete("cascade"),
    )
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("seq", big, (c) => c.notNull())
    .addPrimaryKeyConstraint("saved_recipes_pk", ["user_id", "recipe_id"])
    .execute();
  await db.schema
    .createIndex("saved_recipes_recipe")
    .on("saved_recipes")
    .column("recipe_id")
    .execute();

  await db.schema
    .createTable("sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_user").on("sessions").column("user_id").execute();

  // Seed runs are recorded so that seeding twice changes nothing.
  await db.schema
    .createTable("seed_runs")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("ran_at", "text", (c) => c.notNull())
    .addColumn("detail", "text", (c) => c.notNull().defaultTo(""))
    .execute();
}

// Forward-only: production never rolls back; a mistake is fixed by a new migration.
export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
