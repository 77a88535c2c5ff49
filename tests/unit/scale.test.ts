import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { migrateToLatest, openDatabase, type DB } from "~/server/db/connection.server";
import { verifyPassword } from "~/server/auth/password.server";
import { randomRecipesPage, searchRecipes, searchUsers } from "~/server/queries/search.server";

import { SCALE_HEAVY_FOLLOWING, SCALE_PASSWORD, createRandom, scaleSeed, type ScaleReport } from "../../seed/scale";

// The scale seed at a small N, on a real file (it opens its own better-sqlite3 connection).

const USERS = 300;
const quiet = { log: () => {}, sink: { log: () => {} } };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-scale-test-"));

async function migratedFile(name: string): Promise<{ file: string; db: DB }> {
  const file = path.join(tmp, name);
  const db = openDatabase(file);
  await migrateToLatest(db);
  return { file, db };
}

function count(file: string, table: string): number {
  const sqlite = new SQLite(file, { readonly: true });
  try {
    return Number(sqlite.prepare(`select count(*) from ${table}`).pluck().get());
  } finally {
    sqlite.close();
  }
}

function fingerprint(file: string): string {
  const sqlite = new SQLite(file, { readonly: true });
  try {
    const parts = [
      "select id, username, name from users order by seq",
      "select id, user_created, name, description, total_time, serves from recipes order by seq",
      "select recipe_id, position, tag from recipe_tags order by recipe_id, position",
      "select section_id, position, text from ingredient_lines order by section_id, position",
      "select follower_id, followee_id from follows order by 1, 2",
      "select post_id, user_id from likes order by 1, 2",
      "select id, post_id, user_id, text from comments order by seq",
    ].map((query) => JSON.stringify(sqlite.prepare(query).raw().all()));
    return parts.join("\n");
  } finally {
    sqlite.close();
  }
}

let first: { file: string; db: DB };
let report: ScaleReport;

beforeAll(async () => {
  first = await migratedFile("first.db");
  report = await scaleSeed(first.file, { users: USERS, ...quiet });
});

afterAll(async () => {
  await first.db.destroy();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("scale seed", () => {
  it("adds N users with about five recipes each, a post per recipe, follows, likes and comments", () => {
    expect(report).toMatchObject({
      skipped: false,
      users: USERS,
      recipes: USERS * 5,
      posts: USERS * 5,
      comments: USERS * 10,
    });
    expect(count(first.file, "users")).toBe(USERS);
    expect(count(first.file, "recipes")).toBe(USERS * 5);
    expect(count(first.file, "posts")).toBe(USERS * 5);
    expect(count(first.file, "comments")).toBe(USERS * 10);
    expect(count(first.file, "follows")).toBe(report.follows);
    expect(report.follows).toBeGreaterThanOrEqual(USERS * 10);
    expect(count(first.file, "likes")).toBe(report.likes);
    expect(report.likes).toBeGreaterThanOrEqual(USERS * 45);
    expect(count(first.file, "ingredient_lines")).toBeGreaterThan(USERS * 5 * 3);
    expect(count(first.file, "steps")).toBeGreaterThan(USERS * 5 * 3);
    expect(count(first.file, "recipe_tags")).toBeGreaterThan(0);
    expect(count(first.file, "user_tags")).toBeGreaterThan(0);
  });

  it("writes data that satisfies every foreign key", () => {
    const sqlite = new SQLite(first.file, { readonly: true });
    try {
      expect(sqlite.pragma("foreign_key_check")).toEqual([]);
      // Every recipe has at least one section with lines, and steps.
      expect(
        sqlite
          .prepare(
            "select count(*) from recipes r where not exists (select 1 from ingredient_sections s join ingredient_lines l on l.section_id = s.id where s.recipe_id = r.id) or not exists (select 1 from steps t where t.recipe_id = r.id)",
          )
          .pluck()
          .get(),
      ).toBe(0);
    } finally {
      sqlite.close();
    }
  });

  it("makes follows follow a power law, with one user following exactly 200 people", () => {
    const sqlite = new SQLite(first.file, { readonly: true });
    try {
      const followers = sqlite
        .prepare("select count(*) from follows group by followee_id order by 1 desc")
        .pluck()
        .all() as number[];
      const median = followers[Math.floor(followers.length / 2)]!;
      expect(followers[0]!).toBeGreaterThan(median * 10);
      expect(sqlite.prepare("select count(*) from follows where follower_id = 'scale-u0'").pluck().get()).toBe(
        SCALE_HEAVY_FOLLOWING,
      );
    } finally {
      sqlite.close();
    }
  });

  it("keeps the search index in step: every recipe and user is findable", async () => {
    expect(count(first.file, "recipes_fts")).toBe(USERS * 5);
    expect(count(first.file, "users_fts")).toBe(USERS);
    expect(count(first.file, "recipe_shuffle")).toBe(USERS * 5);
    const sqlite = new SQLite(first.file);
    try {
      sqlite.exec("insert into recipes_fts (recipes_fts) values ('integrity-check')");
    } finally {
      sqlite.close();
    }
    const sample = await first.db
      .selectFrom("recipes")
      .select(["id", "name"])
      .where("id", "=", "scale-r123")
      .executeTakeFirstOrThrow();
    const found = await searchRecipes({ q: sample.name }, first.db);
    expect(found.items[0]?.recipe_id).toBe("scale-r123");
    const line = await first.db
      .selectFrom("ingredient_lines")
      .select("text")
      .where("section_id", "=", "scale-r77I1")
      .orderBy("position")
      .executeTakeFirstOrThrow();
    const word = line.text.split(" (")[0]!;
    const byIngredient: string[] = [];
    for (let page = 1; page < 200; page++) {
      const result = await searchRecipes({ q: `"${word}" `, page }, first.db);
      byIngredient.push(...result.items.map((item) => item.recipe_id));
      if (!result.hasMore) break;
    }
    expect(byIngredient).toContain("scale-r77");
    const user = await first.db
      .selectFrom("users")
      .select("username")
      .where("id", "=", "scale-u9")
      .executeTakeFirstOrThrow();
    expect((await searchUsers({ q: user.username }, first.db))[0]?.username).toBe(user.username);
    expect((await randomRecipesPage(1, 1, first.db)).items).toHaveLength(12);
  });

  it("gives every user the documented password", async () => {
    const row = await first.db
      .selectFrom("users")
      .select("password_hash")
      .where("id", "=", "scale-u5")
      .executeTakeFirstOrThrow();
    expect(await verifyPassword(SCALE_PASSWORD, row.password_hash)).toBe(true);
  });

  it("is deterministic: another database gets the same data", async () => {
    const second = await migratedFile("second.db");
    try {
      const again = await scaleSeed(second.file, { users: USERS, ...quiet });
      expect({ ...again, ms: 0 }).toEqual({ ...report, ms: 0 });
      expect(fingerprint(second.file)).toBe(fingerprint(first.file));
    } finally {
      await second.db.destroy();
    }
  });

  it("changes nothing when run again on the same database", async () => {
    const before = fingerprint(first.file);
    const lines: string[] = [];
    const again = await scaleSeed(first.file, {
      users: USERS,
      log: (line) => lines.push(line),
      sink: { log: () => {} },
    });
    expect(again.skipped).toBe(true);
    expect(lines.join("\n")).toMatch(/already/);
    expect(fingerprint(first.file)).toBe(before);
  });

  it("adds to a database that already has users and recipes", async () => {
    const seeded = await migratedFile("seeded.db");
    try {
      await seeded.db
        .insertInto("users")
        .values({
          id: "123",
          username: "jasminduong09",
          name: "Jasmin",
          password_hash: "x",
          role: "USER",
          created_at: "2026-01-01",
          seq: 1,
        })
        .execute();
      await seeded.db
        .insertInto("recipes")
        .values({ id: "core-R1", user_created: "123", name: "Sesame Noodles", seq: 1, created_at: null, serves: 4 })
        .execute();
      const result = await scaleSeed(seeded.file, { users: 20, ...quiet });
      expect(result.users).toBe(20);
      expect(count(seeded.file, "users")).toBe(21);
      expect(count(seeded.file, "recipes")).toBe(101);
      expect((await searchRecipes({ q: "sesame noodles" }, seeded.db)).items[0]?.recipe_id).toBe("core-R1");
    } finally {
      await seeded.db.destroy();
    }
  });
});

describe("the seeded random generator", () => {
  it("repeats for a seed and skews toward low indexes", () => {
    const a = createRandom(1);
    const b = createRandom(1);
    const draws = Array.from({ length: 1000 }, () => a.skewed(100));
    expect(Array.from({ length: 1000 }, () => b.skewed(100))).toEqual(draws);
    const low = draws.filter((n) => n < 10).length;
    expect(low).toBeGreaterThan(draws.length * 0.3);
    expect(Math.max(...draws)).toBeLessThan(100);
  });
});
