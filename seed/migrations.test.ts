import { sql } from "kysely";
import { afterEach, expect, test } from "vitest";

import type { DB } from "../app/server/db/connection.server";

import { ALL_TABLES, freshDb } from "./test-support";

let db: DB | undefined;
afterEach(async () => {
  await db?.destroy();
  db = undefined;
});

test("migrating an empty database creates every table", async () => {
  db = await freshDb();
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db);
  const tables = rows.map((row) => row.name);
  for (const table of ALL_TABLES) expect(tables).toContain(table);
});

test("foreign keys are enforced on a freshly opened database", async () => {
  db = await freshDb();
  await expect(
    db.insertInto("user_tags").values({ user_id: "nobody", position: 0, tag: "Baker" }).execute(),
  ).rejects.toThrow(/FOREIGN KEY/);
});
