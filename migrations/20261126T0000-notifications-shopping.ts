import { sql, type Kysely } from "kysely";

import { wholeNumber } from "./engine";

// Frozen once merged. Notifications and shopping lists (docs/rules.md#notifications,
// docs/rules.md#shopping-list). Both are one person's own data, never on a page a visitor sees,
// so they take no part in the page cache's change tracking.
//
// notifications: one row per thing that happened to the recipient (`user_id`): a like, a
// comment, a follow or a save by `actor_id`. Deleting the actor keeps the row (shown as
// 'Unknown User'); deleting the recipient, the post or the recipe removes it. A removed comment
// takes its notification while unread (the service does that); a read one stays, without it.
// `read_at` is null until it is read; the partial index keeps the unread count a short index
// range per user.
//
// shopping_recipes: the recipes on a person's list, at the servings chosen; shopping_items:
// their ingredient lines as added (already scaled), each with its check mark.
export async function up(db: Kysely<any>): Promise<void> {
  const whole = wholeNumber(db);
  await db.schema
    .createTable("notifications")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("actor_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("post_id", "text", (c) => c.references("posts.id").onDelete("cascade"))
    .addColumn("recipe_id", "text", (c) => c.references("recipes.id").onDelete("cascade"))
    .addColumn("comment_id", "text", (c) => c.references("comments.id").onDelete("set null"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("read_at", "text")
    .addColumn("seq", whole, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("notifications_user_seq").on("notifications").columns(["user_id", "seq"]).execute();
  await db.schema
    .createIndex("notifications_unread")
    .on("notifications")
    .columns(["user_id", "seq"])
    .where(sql.ref("read_at"), "is", null)
    .execute();
  // Undoing an action finds its notification by what it was about.
  await db.schema.createIndex("notifications_actor").on("notifications").columns(["actor_id", "kind"]).execute();
  for (const column of ["post_id", "recipe_id", "comment_id"]) {
    await db.schema.createIndex(`notifications_${column}`).on("notifications").column(column).execute();
  }

  await db.schema
    .createTable("shopping_recipes")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("recipe_id", "text", (c) => c.notNull().references("recipes.id").onDelete("cascade"))
    .addColumn("serves", "integer")
    .addColumn("added_at", "text", (c) => c.notNull())
    .addColumn("seq", whole, (c) => c.notNull())
    .addPrimaryKeyConstraint("shopping_recipes_pk", ["user_id", "recipe_id"])
    .execute();
  await db.schema.createIndex("shopping_recipes_recipe").on("shopping_recipes").column("recipe_id").execute();
  await db.schema
    .createTable("shopping_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("recipe_id", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("checked", "integer", (c) => c.notNull().defaultTo(0))
    .addForeignKeyConstraint("shopping_items_recipe", ["user_id", "recipe_id"], "shopping_recipes", ["user_id", "recipe_id"], (fk) =>
      fk.onDelete("cascade"),
    )
    .execute();
  await db.schema.createIndex("shopping_items_list").on("shopping_items").columns(["user_id", "recipe_id", "position"]).execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
