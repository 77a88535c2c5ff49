import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, test } from "vitest";

import type { DB } from "../app/server/db/connection.server";
import { hashPassword, verifyPassword } from "../app/server/auth/password.server";

import { seedDatabase, type SeedReport } from "./index";
import { captureLog, countAll, freshDb, sampleFilePath, startMealDbStub, type Stub } from "./test-support";

const ADMIN_PASSWORD = "admin-password-for-tests";

describe("importing the sample file", () => {
  let db: DB;
  let report: SeedReport;
  let stub: Stub;
  const output = captureLog();

  beforeAll(async () => {
    // The file must be enough on its own: TheMealDB (a local stub here) is never asked.
    stub = await startMealDbStub();
    db = await freshDb();
    report = await seedDatabase(db, {
      seedFile: sampleFilePath(),
      mealDbBaseUrl: stub.baseUrl,
      adminPassword: ADMIN_PASSWORD,
      log: output.log,
    });
  });
  afterAll(async () => {
    await db.destroy();
    await stub.close();
  });

  test("reports the file as the source and the totals", () => {
    expect(report).toMatchObject({ source: "file", users: 4, recipes: 303, posts: 303, comments: 2, adminCreated: true });
    expect(report.adminPassword).toBeUndefined();
    expect(stub.calls).toEqual([]);
  });

  test("stores 303 recipes and posts, 302 of them by the bot", async () => {
    const counts = await countAll(db);
    expect(counts).toMatchObject({ users: 4, recipes: 303, posts: 303 });
    const bot = await db
      .selectFrom("recipes")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_created", "=", "recipeBot")
      .executeTakeFirstOrThrow();
    expect(Number(bot.n)).toBe(302);
  });

  test("gives the sample user's post the recipe's post id (jd-P1, not jd-R1)", async () => {
    const post = await db.selectFrom("posts").select(["id", "created_at"]).where("recipe_id", "=", "jd-R1").executeTakeFirstOrThrow();
    expect(post).toEqual({ id: "jd-P1", created_at: "2025-05-28" });
    expect(await db.selectFrom("posts").select("id").where("id", "=", "jd-R1").executeTakeFirst()).toBeUndefined();
  });

  test("makes the repeated comment ids unique", async () => {
    const comments = await db.selectFrom("comments").select(["id", "post_id", "user_id"]).orderBy("seq").execute();
    expect(comments).toHaveLength(2);
    expect(new Set(comments.map((comment) => comment.id)).size).toBe(2);
    expect(comments.map((comment) => comment.post_id)).toEqual(["jd-P1", "recipeBot-P1"]);
    expect(comments.every((comment) => comment.user_id === "234")).toBe(true);
  });

  test("drops blank tags and trims the rest", async () => {
    const blank = await db.selectFrom("recipe_tags").select("recipe_id").where("tag", "=", "").execute();
    expect(blank).toEqual([]);
    const tags = await db.selectFrom("recipe_tags").select("tag").where("recipe_id", "=", "jd-R1").orderBy("position").execute();
    expect(tags.map((row) => row.tag)).toEqual(["Savory", "High Protein", "Asian Fusion"]);
  });

  test("leaves the bot posts without a date and keeps the recipe details", async () => {
    const dated = await db
      .selectFrom("posts")
      .select("id")
      .where("created_by", "=", "recipeBot")
      .where("created_at", "is not", null)
      .execute();
    expect(dated).toEqual([]);
    const jd = await db.selectFrom("recipes").selectAll().where("id", "=", "jd-R1").executeTakeFirstOrThrow();
    expect(jd).toMatchObject({ user_created: "123", serves: 4, total_time: "80min", photo: "/images/noodleDish.png" });
    const bot = await db.selectFrom("recipes").selectAll().where("id", "=", "recipeBot-R1").executeTakeFirstOrThrow();
    expect(bot).toMatchObject({ serves: null, total_time: "", description: "Dessert | British" });
  });

  test("keeps sections, lines and steps in file order", async () => {
    const sections = await db.selectFrom("ingredient_sections").select(["id", "title"]).where("recipe_id", "=", "jd-R1").orderBy("position").execute();
    expect(sections).toEqual([
      { id: "jd-R1I1", title: "Noodles" },
      { id: "jd-R1I2", title: "Sauce" },
    ]);
    const lines = await db.selectFrom("ingredient_lines").select("text").where("section_id", "=", "jd-R1I1").orderBy("position").execute();
    expect(lines[0]?.text).toBe("Rice Noodles");
    expect(lines).toHaveLength(6);
    const steps = await db.selectFrom("steps").select("text").where("recipe_id", "=", "jd-R1").orderBy("position").execute();
    expect(steps).toHaveLength(10);
    expect(steps[0]?.text).toMatch(/^Scramble/);
    // Seq follows file order: the sample user's recipe comes first, then the bot's in order.
    const order = await db.selectFrom("recipes").select("id").orderBy("seq").limit(3).execute();
    expect(order.map((row) => row.id)).toEqual(["jd-R1", "recipeBot-R1", "recipeBot-R2"]);
  });

  test("imports names longer than 50 characters as they are", async () => {
    const long = await db.selectFrom("recipes").select("name").where((eb) => eb(eb.fn("length", ["name"]), ">", 50)).execute();
    expect(long.length).toBeGreaterThan(0);
  });

  test("stores only salted scrypt hashes that verify the seed password", async () => {
    const users = await db.selectFrom("users").select(["id", "username", "role", "password_hash"]).where("username", "!=", "admin").orderBy("seq").execute();
    expect(users.map((user) => [user.id, user.username, user.role])).toEqual([
      ["123", "jasminduong09", "USER"],
      ["234", "danieljacob", "USER"],
      ["recipeBot", "recipe_bot", "USER"],
    ]);
    for (const user of users) {
      expect(user.password_hash.startsWith("scrypt$")).toBe(true);
      expect(user.password_hash).not.toContain("ReciPals");
      expect(await verifyPassword("ReciPals", user.password_hash)).toBe(true);
    }
    // Per-user salt: the same password never gives the same hash twice.
    expect(new Set(users.map((user) => user.password_hash)).size).toBe(users.length);
  });

  test("keeps user tags without blanks", async () => {
    const tags = await db.selectFrom("user_tags").select("tag").where("user_id", "=", "123").orderBy("position").execute();
    expect(tags.map((row) => row.tag)).toEqual(["Student Chef", "Fusion Explorer", "Sustainable"]);
  });

  test("creates the administrator with the given password and logs no password", async () => {
    const admin = await db.selectFrom("users").select(["role", "name", "password_hash"]).where("username", "=", "admin").executeTakeFirstOrThrow();
    expect(admin.role).toBe("ADMIN");
    expect(admin.name).toBe("Administrator");
    expect(await verifyPassword(ADMIN_PASSWORD, admin.password_hash)).toBe(true);
    expect(output.lines.join("\n")).not.toContain(ADMIN_PASSWORD);
    const runs = await db.selectFrom("seed_runs").select("name").orderBy("name").execute();
    expect(runs.map((run) => run.name)).toEqual(["admin", "sample-data"]);
  });
});

describe("seeding twice", () => {
  test("the second run reports already-seeded and changes no table", async () => {
    const db = await freshDb();
    try {
      const first = await seedDatabase(db, { seedFile: sampleFilePath(), adminPassword: ADMIN_PASSWORD, log: () => {} });
      expect(first.source).toBe("file");
      const before = await countAll(db);
      const second = await seedDatabase(db, { seedFile: sampleFilePath(), log: () => {} });
      expect(second).toMatchObject({ source: "already-seeded", adminCreated: false, recipes: 303 });
      expect(second.adminPassword).toBeUndefined();
      expect(await countAll(db)).toEqual(before);
    } finally {
      await db.destroy();
    }
  });

  test("a generated admin password is reported and logged once, then never again", async () => {
    const db = await freshDb();
    try {
      const output = captureLog();
      const first = await seedDatabase(db, { seedFile: sampleFilePath(), log: output.log });
      expect(first.adminPassword).toMatch(/^\S{12,}$/);
      expect(output.lines.filter((line) => line.startsWith("Admin account:"))).toEqual([`Admin account: admin / ${first.adminPassword}`]);
      const hash = await db.selectFrom("users").select("password_hash").where("username", "=", "admin").executeTakeFirstOrThrow();
      expect(await verifyPassword(first.adminPassword!, hash.password_hash)).toBe(true);

      const again = captureLog();
      const second = await seedDatabase(db, { seedFile: sampleFilePath(), log: again.log });
      expect(second.adminPassword).toBeUndefined();
      expect(again.lines.some((line) => line.startsWith("Admin account:"))).toBe(false);
    } finally {
      await db.destroy();
    }
  });
});

describe("importing into a database that already has users", () => {
  test("skips a seed user whose username is taken and leaves their content without an author", async () => {
    const db = await freshDb();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-seed-"));
    try {
      await db
        .insertInto("users")
        .values({ id: "someone-else", username: "Taken_Name", name: "Someone", password_hash: await hashPassword("x"), role: "USER", created_at: "2025-01-01T00:00:00.000Z", seq: 1 })
        .execute();
      const file = path.join(dir, "seed.json");
      fs.writeFileSync(
        file,
        JSON.stringify({
          users: [
            { _id: "u1", username: "taken_name", password: "pw", name: "Clash" },
            { _id: "u2", username: "fresh_name", password: "pw", name: "Fresh", following: [{ _id: "someone-else" }, "u1"], saved_recipes: ["r1", "missing"] },
          ],
          recipes: [
            { recipe_id: "r1", post_id: "p1", user_created: "u1", name: "Plain Rice", ingredients_sec: [{ _id: "s1", title: "", ingredients: ["Rice", " "] }, { _id: "s1", title: "Extra", ingredients: ["Salt"] }], steps: ["Boil.", ""], tags: [" Quick ", ""] },
          ],
          posts: [
            { post_id: "p1", recipe_id: "r1", created_by: "u1", title: "Plain Rice", likes: ["u2", "u1", "u2"], comments: [{ comment_id: "c1", user_id: "u1", text: "Mine!", created_at: "" }], created_at: "" },
            { post_id: "p9", recipe_id: "not-in-file", created_by: "u2", title: "Orphan" },
          ],
        }),
      );
      const output = captureLog();
      const report = await seedDatabase(db, { seedFile: file, adminPassword: ADMIN_PASSWORD, log: output.log });
      expect(report.source).toBe("file");
      expect(output.lines.some((line) => line.includes('"taken_name" is already taken'))).toBe(true);
      expect(await db.selectFrom("users").select("id").where("id", "=", "u1").executeTakeFirst()).toBeUndefined();

      const recipe = await db.selectFrom("recipes").select(["user_created"]).where("id", "=", "r1").executeTakeFirstOrThrow();
      expect(recipe.user_created).toBeNull();
      const sections = await db.selectFrom("ingredient_sections").select("id").where("recipe_id", "=", "r1").orderBy("position").execute();
      // The seed's id is kept; the repeated one gets a new id (one section-id policy for every writer).
      expect(sections).toHaveLength(2);
      expect(sections[0]!.id).toBe("s1");
      expect(sections[1]!.id).not.toBe("s1");
      const tags = await db.selectFrom("recipe_tags").select("tag").where("recipe_id", "=", "r1").execute();
      expect(tags.map((row) => row.tag)).toEqual(["Quick"]);
      const likes = await db.selectFrom("likes").select("user_id").where("post_id", "=", "p1").execute();
      expect(likes.map((like) => like.user_id)).toEqual(["u2"]);
      const comment = await db.selectFrom("comments").select(["id", "user_id"]).executeTakeFirstOrThrow();
      expect(comment).toEqual({ id: "p1-c1", user_id: null });
      const follows = await db.selectFrom("follows").select(["follower_id", "followee_id"]).execute();
      expect(follows).toEqual([{ follower_id: "u2", followee_id: "someone-else" }]);
      const saved = await db.selectFrom("saved_recipes").select("recipe_id").where("user_id", "=", "u2").execute();
      expect(saved).toEqual([{ recipe_id: "r1" }]);
      expect(await db.selectFrom("posts").select("id").where("id", "=", "p9").executeTakeFirst()).toBeUndefined();
      expect(output.lines.some((line) => line.includes("p9"))).toBe(true);
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
