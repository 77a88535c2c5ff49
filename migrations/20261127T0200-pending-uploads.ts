import type { Kysely } from "kysely";

import { wholeNumber } from "./engine";

// Frozen once merged. Photos a person chose with a submission that saved nothing yet (a row
// button of the editor without JavaScript, an import): kept so the form can carry them, at most a
// few per person (docs/rules.md#images). Older ones nothing uses are removed at once instead of
// waiting for the day-old sweep, so submissions that never save cannot fill the store.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("pending_uploads")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("created_at", wholeNumber(db), (c) => c.notNull())
    .addPrimaryKeyConstraint("pending_uploads_pk", ["user_id", "url"])
    .execute();
  await db.schema.createIndex("pending_uploads_user_time").on("pending_uploads").columns(["user_id", "created_at"]).execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
