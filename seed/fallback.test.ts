import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { afterEach, expect, test } from "vitest";

import type { DB } from "../app/server/db/connection.server";

import { seedDatabase } from "./index";
import { captureLog, countAll, FIXTURES, fixtureAnswer, freshDb, sampleFilePath, startMealDbStub, type Stub } from "./test-support";

const CORE_ONLY = /^Seeded the core set only \(4 users, 1 recipe\)\..*RECIPALS_SEED_FILE=.*MEALDB_BASE_URL.*npm run seed\.$/;

let db: DB | undefined;
let stub: Stub | undefined;
afterEach(async () => {
  await db?.destroy();
  await stub?.close();
  db = undefined;
  stub = undefined;
});

test("with neither a readable file nor TheMealDB, seeds the core set and says how to get the rest", async () => {
  db = await freshDb();
  stub = await startMealDbStub(() => ({ status: 500, body: "Internal Server Error" }));
  const output = captureLog();
  const missing = path.join(FIXTURES, "no-such-file.json");

  const report = await seedDatabase(db, { seedFile: missing, mealDbBaseUrl: stub.baseUrl, adminPassword: "core-admin-pass", log: output.log });

  expect(report).toMatchObject({ source: "core", users: 4, recipes: 1, posts: 1, comments: 0, adminCreated: true });
  expect(stub.calls.length).toBeGreaterThan(0);
  // The bad file is named, then exactly one line explains the core-only result.
  expect(output.lines.filter((line) => line.includes(missing) && line.includes("does not exist"))).toHaveLength(1);
  expect(output.lines.filter((line) => CORE_ONLY.test(line))).toHaveLength(1);
  expect(output.lines.find((line) => CORE_ONLY.test(line))).toContain("HTTP 500");

  const recipe = await db.selectFrom("recipes").selectAll().where("id", "=", "core-R1").executeTakeFirstOrThrow();
  expect(recipe).toMatchObject({ user_created: "123", serves: 4, total_time: "80min", photo: "/images/noodleDish.png" });
  const sections = await db.selectFrom("ingredient_sections").select("title").where("recipe_id", "=", "core-R1").execute();
  expect(sections).toHaveLength(2);
  const post = await db.selectFrom("posts").select(["id", "created_at"]).where("recipe_id", "=", "core-R1").executeTakeFirstOrThrow();
  expect(post.id).toBe("core-P1");
  expect(post.created_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  const users = await db.selectFrom("users").select(["id", "username", "name", "profile"]).orderBy("seq").execute();
  expect(users.map((user) => [user.id, user.username, user.name])).toEqual([
    ["123", "jasminduong09", "Jasmin"],
    ["234", "danieljacob", "Danny"],
    ["recipeBot", "recipe_bot", "Recipe Bot"],
    [expect.any(String), "admin", "Administrator"],
  ]);
  expect(users[2]?.profile).toBe("/images/recipeBot.png");

  // Seeding again without a source changes nothing and says the same thing.
  const before = await countAll(db);
  const again = captureLog();
  expect((await seedDatabase(db, { mealDbBaseUrl: stub.baseUrl, log: again.log })).source).toBe("core");
  expect(await countAll(db)).toEqual(before);
  expect(again.lines.filter((line) => CORE_ONLY.test(line))).toHaveLength(1);

  // A good file later imports the sample data on top of the core set.
  const later = await seedDatabase(db, { seedFile: sampleFilePath(), mealDbBaseUrl: stub.baseUrl, log: () => {} });
  expect(later).toMatchObject({ source: "file", users: 4, recipes: 304, posts: 304 });
  expect(await db.selectFrom("posts").select("id").where("recipe_id", "=", "jd-R1").executeTakeFirstOrThrow()).toEqual({ id: "jd-P1" });
});

test("a closed port counts as TheMealDB being unreachable", async () => {
  db = await freshDb();
  const closed = await startMealDbStub();
  const baseUrl = closed.baseUrl;
  await closed.close();
  const output = captureLog();
  const report = await seedDatabase(db, { mealDbBaseUrl: baseUrl, adminPassword: "x-admin-pass", log: output.log });
  expect(report.source).toBe("core");
  expect(output.lines.find((line) => CORE_ONLY.test(line))).toContain("ECONNREFUSED");
});

test("malformed JSON for one letter rolls the whole TheMealDB import back", async () => {
  db = await freshDb();
  stub = await startMealDbStub((letter) => (letter === "m" ? { status: 200, body: '{"meals": [{"idMeal": ' } : fixtureAnswer(letter)));
  const output = captureLog();

  const report = await seedDatabase(db, { mealDbBaseUrl: stub.baseUrl, adminPassword: "x-admin-pass", log: output.log });

  expect(report.source).toBe("core");
  expect(output.lines.find((line) => CORE_ONLY.test(line))).toContain("did not answer valid JSON");
  const bot = await db.selectFrom("recipes").select("id").where("user_created", "=", "recipeBot").execute();
  expect(bot).toEqual([]);
  expect(await db.selectFrom("recipes").select("id").execute()).toEqual([{ id: "core-R1" }]);
  const runs = await db.selectFrom("seed_runs").select("name").orderBy("name").execute();
  expect(runs.map((run) => run.name)).toEqual(["admin", "core"]);
});

test("a seed file that fails half-way leaves none of its rows behind", async () => {
  db = await freshDb();
  stub = await startMealDbStub(() => ({ status: 503, body: "" }));
  const output = captureLog();
  const broken = path.join(FIXTURES, "broken-seed.json");

  const report = await seedDatabase(db, { seedFile: broken, mealDbBaseUrl: stub.baseUrl, adminPassword: "x-admin-pass", log: output.log });

  expect(report.source).toBe("core");
  const fileLine = output.lines.find((line) => line.startsWith(`Could not import the seed file ${broken}`));
  expect(fileLine).toContain("UNIQUE constraint failed: recipes.id");
  // The first recipe and the fixture user were written before the duplicate id failed.
  expect(await db.selectFrom("users").select("id").where("id", "=", "fx-1").executeTakeFirst()).toBeUndefined();
  expect(await db.selectFrom("recipes").select("id").where("id", "=", "fx-R1").executeTakeFirst()).toBeUndefined();
  expect(await db.selectFrom("steps").select("text").where("recipe_id", "=", "fx-R1").execute()).toEqual([]);
  expect(await db.selectFrom("seed_runs").select("name").where("name", "=", "sample-data").executeTakeFirst()).toBeUndefined();
});

test("a file that is not a seed file is reported with the reason", async () => {
  db = await freshDb();
  stub = await startMealDbStub(() => ({ status: 500, body: "" }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-seed-"));
  try {
    const wrongShape = path.join(dir, "wrong-shape.json");
    fs.writeFileSync(wrongShape, JSON.stringify({ users: 5, recipes: [{ recipe_id: "r1" }] }));
    const notJson = path.join(dir, "not-json.json");
    fs.writeFileSync(notJson, "users: []");
    const noRecipes = path.join(FIXTURES, "mealdb", "a.json"); // valid JSON, but no seed lists

    const lines: string[] = [];
    for (const seedFile of [wrongShape, notJson, noRecipes]) {
      const output = captureLog();
      await seedDatabase(db, { seedFile, mealDbBaseUrl: stub.baseUrl, adminPassword: "x-admin-pass", log: output.log });
      lines.push(output.lines[0] ?? "");
    }

    expect(lines[0]).toMatch(/wrong-shape\.json \(RECIPALS_SEED_FILE\): the file does not have the expected .*users: .*recipes\.0\.name: /);
    expect(lines[1]).toMatch(/not-json\.json \(RECIPALS_SEED_FILE\): the file is not valid JSON/);
    expect(lines[2]).toMatch(/a\.json \(RECIPALS_SEED_FILE\): the file holds no recipes\. Trying TheMealDB instead\.$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
