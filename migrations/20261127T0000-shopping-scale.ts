import type { Kysely } from "kysely";

// Frozen once merged. A recipe without stated servings goes on the shopping list at a multiplier
// (½×, 2×, 1.5×: docs/rules.md#servings-scaling); the list says which. Kept in hundredths, a whole
// number, so both engines store exactly what was chosen. Null: the recipe's own amounts (or its
// servings, in `serves`).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("shopping_recipes").addColumn("scale_percent", "integer").execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
