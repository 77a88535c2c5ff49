import { sql, type Kysely } from "kysely";

// Frozen once merged. "I made this" photos are uploads only (docs/rules.md#i-made-this): earlier
// versions of the API stored any address a client sent, and the recipe page then loaded it (a
// tracking pixel on someone else's recipe). Such addresses are cleared; uploads (`/uploads/…`) stay.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`update cooks set photo = null where photo is not null and photo not like '/uploads/%'`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
