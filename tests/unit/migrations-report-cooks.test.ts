import { Migrator, type Kysely, type Migration } from "kysely";
import { describe, expect, it } from "vitest";

import { migrationProvider } from "../../migrations/index";
import { openDatabase, type DB } from "~/server/db/connection.server";
import { nowIso } from "~/server/queries/seq.server";

// The two migrations that let "I made this" entries be reported and keep their photos uploads
// (migrations/20261201T0000-report-cooks.ts, 20261201T0100-cook-photos-uploaded.ts), run over a
// database made before them: SQLite builds the reports table again, and nothing in it may be lost.

const FIRST_NEW = "20261201T0000-report-cooks";

describe("reports of entries, on a database made before them", () => {
  it("keeps every report and index, takes kind 'cook' (and 'remote_post'), and clears entry photos that are not uploads", async () => {
    const all = await migrationProvider.getMigrations();
    const before: Record<string, Migration> = Object.fromEntries(Object.entries(all).filter(([name]) => name < FIRST_NEW));
    const old: DB = openDatabase(":memory:");
    try {
      expect((await new Migrator({ db: old, provider: { getMigrations: async () => before } }).migrateToLatest()).error).toBeUndefined();
      const now = nowIso();
      await old
        .insertInto("users")
        .values([
          { id: "u1", username: "cook_one", name: "One", password_hash: "x", role: "USER", created_at: now, seq: 1 },
          { id: "u2", username: "cook_two", name: "Two", password_hash: "x", role: "USER", created_at: now, seq: 2 },
        ])
        .execute();
      await old.insertInto("recipes").values({ id: "r1", user_created: "u1", name: "Soup", description: "", created_at: now, seq: 1 }).execute();
      const cook = (id: string, userId: string, photo: string | null) => ({ id, recipe_id: "r1", user_id: userId, rating: 4, photo, created_at: now, updated_at: now, seq: Number(id.slice(1)) });
      await old.insertInto("cooks").values([cook("c1", "u1", "https://tracker.example/pixel.gif"), cook("c2", "u2", "/uploads/abc.webp")]).execute();
      await old
        .insertInto("reports")
        .values({ id: "rep1", reporter_id: "u2", target_kind: "user", target_id: "u1", target_user_id: "u1", reason: "spam", text: "Spam!", created_at: now, seq: 1 })
        .execute();

      expect((await new Migrator({ db: old as Kysely<unknown>, provider: migrationProvider }).migrateToLatest()).error).toBeUndefined();

      expect(await old.selectFrom("reports").selectAll().execute()).toEqual([
        { id: "rep1", reporter_id: "u2", target_kind: "user", target_id: "u1", target_user_id: "u1", reason: "spam", text: "Spam!", created_at: now, resolved_at: null, resolution: null, seq: 1 },
      ]);
      const indexes = await old.selectFrom("sqlite_master" as never).select("name" as never).where("tbl_name" as never, "=", "reports" as never).where("type" as never, "=", "index" as never).execute();
      expect((indexes as { name: string }[]).map((row) => row.name).filter((name) => !name.startsWith("sqlite_")).sort()).toEqual(["reports_one_open", "reports_open_seq", "reports_reporter_time", "reports_target"]);
      await old
        .insertInto("reports")
        .values({ id: "rep2", reporter_id: "u1", target_kind: "cook", target_id: "c2", target_user_id: "u2", reason: "other", created_at: now, seq: 2 })
        .execute();
      // One open report per person and target, still.
      await expect(
        old.insertInto("reports").values({ id: "rep3", reporter_id: "u1", target_kind: "cook", target_id: "c2", target_user_id: "u2", reason: "spam", created_at: now, seq: 3 }).execute(),
      ).rejects.toThrow(/UNIQUE/);
      // And, since 20261205T0000-report-remote, what comes from other servers (no account behind it here).
      await old.insertInto("reports").values({ id: "rep5", reporter_id: "u1", target_kind: "remote_post", target_id: "https://far.example/notes/1", target_user_id: null, reason: "spam", created_at: now, seq: 5 }).execute();
      await expect(
        old.insertInto("reports").values({ id: "rep4", reporter_id: "u1", target_kind: "recipe" as never, target_id: "r1", reason: "spam", created_at: now, seq: 4 }).execute(),
      ).rejects.toThrow(/CHECK/);
      expect(await old.selectFrom("cooks").select(["id", "photo"]).orderBy("id").execute()).toEqual([
        { id: "c1", photo: null },
        { id: "c2", photo: "/uploads/abc.webp" },
      ]);
    } finally {
      await old.destroy();
    }
  });
});
