import { afterAll, beforeAll, describe, expect, test } from "vitest";

import type { DB } from "../app/server/db/connection.server";

import { seedDatabase, type SeedReport } from "./index";
import { captureLog, freshDb, startMealDbStub, type Stub } from "./test-support";

const LETTERS = [..."abcdefghijklmnopqrstuvwxyz"];

describe("importing from TheMealDB (local stub serving seed/fixtures/mealdb)", () => {
  let db: DB;
  let stub: Stub;
  let report: SeedReport;
  const output = captureLog();

  beforeAll(async () => {
    stub = await startMealDbStub();
    db = await freshDb();
    report = await seedDatabase(db, { mealDbBaseUrl: stub.baseUrl, adminPassword: "stub-admin-pass", log: output.log });
  });
  afterAll(async () => {
    await db.destroy();
    await stub.close();
  });

  test("asks for every letter once and reports TheMealDB as the source", () => {
    expect([...stub.calls].sort()).toEqual(LETTERS.map((letter) => `/api/json/v1/1/search.php?f=${letter}`));
    // Three invented meals (one repeated under a second letter) plus the core recipe.
    expect(report).toMatchObject({ source: "mealdb", users: 4, recipes: 4, posts: 4, adminCreated: true });
  });

  test("numbers bot recipes and posts in import order, deduplicated by meal id", async () => {
    const recipes = await db
      .selectFrom("recipes")
      .select(["id", "name", "description", "user_created", "photo", "serves", "total_time"])
      .where("user_created", "=", "recipeBot")
      .orderBy("seq")
      .execute();
    expect(recipes).toEqual([
      { id: "recipeBot-R1", name: "Apricot Oat Crumble", description: "Dessert | Invented", user_created: "recipeBot", photo: "https://example.test/images/apricot-crumble.jpg", serves: null, total_time: "" },
      { id: "recipeBot-R2", name: "Aubergine Lentil Bake", description: "Vegetarian | Fictional", user_created: "recipeBot", photo: "https://example.test/images/aubergine-bake.jpg", serves: null, total_time: "" },
      { id: "recipeBot-R3", name: "Miso Mushroom Broth", description: "Miscellaneous | Nowhere", user_created: "recipeBot", photo: "https://example.test/images/miso-broth.jpg", serves: null, total_time: "" },
    ]);
    const posts = await db.selectFrom("posts").select(["id", "recipe_id", "title", "caption", "created_at", "created_by"]).where("created_by", "=", "recipeBot").orderBy("seq").execute();
    expect(posts[0]).toEqual({ id: "recipeBot-P1", recipe_id: "recipeBot-R1", title: "Apricot Oat Crumble", caption: "Dessert | Invented", created_at: null, created_by: "recipeBot" });
    expect(posts.map((post) => post.id)).toEqual(["recipeBot-P1", "recipeBot-P2", "recipeBot-P3"]);
  });

  test("stores one 'Main Ingredients' section with `ingredient (measure)` lines", async () => {
    const sections = await db.selectFrom("ingredient_sections").select(["id", "title", "position"]).where("recipe_id", "=", "recipeBot-R1").execute();
    expect(sections).toEqual([{ id: "recipe_bot-90001I1", title: "Main Ingredients", position: 0 }]);
    const lines = await db.selectFrom("ingredient_lines").select("text").where("section_id", "=", "recipe_bot-90001I1").orderBy("position").execute();
    // A blank measure leaves the bare ingredient; blank and null ingredients are skipped.
    expect(lines.map((line) => line.text)).toEqual(["Apricots (6)", "Sugar (2 tbsp)", "Oats (100g)", "Butter"]);
  });

  test("splits the instructions into trimmed steps without blank lines", async () => {
    const steps = async (recipeId: string) =>
      (await db.selectFrom("steps").select("text").where("recipe_id", "=", recipeId).orderBy("position").execute()).map((step) => step.text);
    expect(await steps("recipeBot-R1")).toEqual([
      "Heat the oven to 180C.",
      "Toss the apricots with the sugar in a baking dish.",
      "Rub the oats, flour and butter together and scatter over the fruit.",
      "Bake for 35 minutes until golden.",
    ]);
    expect(await steps("recipeBot-R3")).toHaveLength(3);
  });

  test("keeps the first three non-blank tags, trimmed", async () => {
    const tags = async (recipeId: string) =>
      (await db.selectFrom("recipe_tags").select("tag").where("recipe_id", "=", recipeId).orderBy("position").execute()).map((row) => row.tag);
    expect(await tags("recipeBot-R1")).toEqual(["Baking", "Fruity", "Sweet"]);
    expect(await tags("recipeBot-R2")).toEqual([]);
    expect(await tags("recipeBot-R3")).toEqual(["Soup"]);
  });

  test("also seeds the core set and marks both runs", async () => {
    const core = await db.selectFrom("recipes").select(["serves", "total_time"]).where("id", "=", "core-R1").executeTakeFirstOrThrow();
    expect(core).toEqual({ serves: 4, total_time: "80min" });
    const runs = await db.selectFrom("seed_runs").select(["name", "detail"]).orderBy("name").execute();
    expect(runs).toEqual([
      { name: "admin", detail: "" },
      { name: "core", detail: "" },
      { name: "sample-data", detail: "mealdb" },
    ]);
  });

  test("shows progress in at most a few lines per phase", () => {
    const bars = output.lines.filter((line) => line.startsWith("["));
    expect(bars.filter((line) => line.endsWith("letters from TheMealDB")).length).toBeLessThanOrEqual(5);
    expect(bars).toContain("[####################] 26/26 letters from TheMealDB");
    expect(bars).toContain("[####################] 4/4 recipes");
  });
});
