import crypto from "node:crypto";

import { Kysely, Migrator, sql } from "kysely";
import { beforeAll, describe, expect, it, vi } from "vitest";

import { migrationProvider } from "../../migrations/index";
import * as init from "../../migrations/20261121T0000-init";
import { clientLoader as searchClientLoader, loader as searchLoader } from "~/routes/ReciPals.Search";
import { db, engineOf, openDatabase, type DB } from "~/server/db/connection.server";
import { tsQueryText } from "~/server/db/engines/postgres.server";
import { ftsExpression } from "~/server/db/engines/sqlite.server";
import { writeRecipeParts } from "~/server/queries/recipe-writes.server";
import { nextSeq, nowIso } from "~/server/queries/seq.server";
import {
  SEARCH_PAGE_SIZE,
  randomRecipesPage,
  recipeQuery,
  searchRecipes,
  searchTerms,
  searchUsers,
} from "~/server/queries/search.server";
import { parseSearchParams } from "~/server/validation/search-schema.server";

import { getRequest, makeUser, routeArgs } from "../support/app";

// Recipes are written row by row with Kysely, the way the editor, admin and API write them:
// the search index follows through its triggers, with no search code in the writers.

interface RecipeInput {
  id?: string;
  userId?: string | null;
  name: string;
  description?: string;
  tags?: string[];
  sections?: { title: string; lines: string[] }[];
  totalTime?: string;
}

async function createRecipe(input: RecipeInput, database: DB = db): Promise<string> {
  return database.transaction().execute((trx) => writeRecipe(input, trx));
}

async function writeRecipe(input: RecipeInput, trx: DB): Promise<string> {
  const id = input.id ?? crypto.randomUUID();
  await trx
    .insertInto("recipes")
    .values({
      id,
      user_created: input.userId ?? null,
      name: input.name,
      description: input.description ?? "",
      total_time: input.totalTime ?? "",
      serves: 2,
      photo: "/images/noodleDish.png",
      created_at: nowIso(),
      seq: nextSeq(trx, "recipes"),
    })
    .execute();
  await writeRecipeParts(trx, id, {
    tags: input.tags ?? [],
    sections: (input.sections ?? []).map((section, position) => ({ id: `${id}-s${position}`, title: section.title, ingredients: section.lines })),
  });
  return id;
}

const ids = async (q: string, page = 1) => (await searchRecipes({ q, page })).items.map((item) => item.recipe_id);

/** Rows in the recipe index: one per recipe, always. */
// Where each engine keeps its recipe index (migrations/20261121T0100-search.ts).
const onPostgres = engineOf(db).name === "postgres";
const RECIPE_INDEX = onPostgres ? "recipe_search" : "recipes_fts";

async function indexedRecipeCount(database: DB = db): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(RECIPE_INDEX)}`.execute(database);
  return Number(rows[0]!.n);
}

let author: Awaited<ReturnType<typeof makeUser>>;
const recipe: Record<string, string> = {};

beforeAll(async () => {
  author = await makeUser({ username: "noodle_fan", name: "Nora Noodle" });
  recipe.yaki = await createRecipe({
    userId: author.id,
    name: "Yaki Udon",
    description: "Noodles | Japanese",
    tags: ["Savory"],
    sections: [{ title: "Main Ingredients", lines: ["udon noodles (2 packs)", "soy sauce (2 tbsp)"] }],
    totalTime: "20min",
  });
  recipe.yakiDeluxe = await createRecipe({
    userId: author.id,
    name: "Yaki Udon Deluxe with Extra Udon",
    description: "Like yaki udon, with more udon. Yaki udon forever.",
    sections: [{ title: "Main Ingredients", lines: ["udon (3 packs)", "yaki sauce"] }],
  });
  recipe.crumble = await createRecipe({
    userId: author.id,
    name: "Rhubarb Crumble",
    description: "Dessert | British",
    tags: ["Baking", "Pudding"],
    sections: [{ title: "Main Ingredients", lines: ["rhubarb (500g)", "caster sugar (100g)", "plain flour (150g)"] }],
  });
  recipe.tofuBowl = await createRecipe({
    userId: author.id,
    name: "Crispy Tofu Bowl",
    description: "Vegan | Fusion",
    sections: [{ title: "Bowl", lines: ["firm tofu (1 block)", "rice (200g)"] }],
  });
  recipe.tofuHeavy = await createRecipe({
    userId: null,
    name: "Vegetable Stir Fry",
    description: "tofu tofu tofu, a lot of tofu",
    tags: ["Tofu"],
    sections: [
      { title: "Main", lines: ["smoked tofu (200g)", "silken tofu (100g)", "tofu puffs (50g)"] },
      { title: "Sauce", lines: ["hoisin sauce (3 tbsp)"] },
    ],
  });
  recipe.pho = await createRecipe({
    userId: author.id,
    name: "Phở Bò",
    description: "Beef noodle soup | Vietnamese",
    tags: ["Soup"],
    sections: [{ title: "Main Ingredients", lines: ["rice noodles (400g)", "star anise (3)"] }],
  });
  recipe.sushi = await createRecipe({ userId: author.id, name: "寿司 Platter", description: "Japanese | 寿司" });
});

describe("recipe search", () => {
  it("matches on the name", async () => {
    expect(await ids("crumble")).toEqual([recipe.crumble]);
    expect(await ids("RHUBARB")).toEqual([recipe.crumble]);
  });

  it("matches ingredient lines", async () => {
    expect(await ids("caster sugar")).toEqual([recipe.crumble]);
    expect(await ids("star anise")).toEqual([recipe.pho]);
  });

  it("matches tags and the description", async () => {
    expect(await ids("pudding")).toEqual([recipe.crumble]);
    expect(await ids("vietnamese")).toEqual([recipe.pho]);
  });

  it("needs every word, in any field", async () => {
    expect(await ids("rhubarb baking")).toEqual([recipe.crumble]);
    expect(await ids("rhubarb tofu")).toEqual([]);
  });

  it("matches plurals, accents and a word still being typed", async () => {
    expect(await ids("crumbles")).toEqual([recipe.crumble]);
    expect(await ids("pho bo")).toEqual([recipe.pho]);
    expect(await ids("rhuba")).toEqual([recipe.crumble]);
    // A finished word (followed by a space) is not a prefix any more.
    expect(await ids("rhuba ")).toEqual([]);
  });

  it("ranks an exact name match first, even against a name that repeats the words", async () => {
    const found = await ids("yaki udon");
    expect(found[0]).toBe(recipe.yaki);
    expect(found).toContain(recipe.yakiDeluxe);
    expect((await ids("Yaki-Udon"))[0]).toBe(recipe.yaki);
    expect(await ids("udon yaki")).toContain(recipe.yaki);
  });

  it("ranks name matches before recipes that only mention the word elsewhere", async () => {
    const found = await ids("tofu");
    expect(found).toEqual([recipe.tofuBowl, recipe.tofuHeavy]);
  });

  it("returns cards with the author, total time and description", async () => {
    const [card] = (await searchRecipes({ q: "yaki udon" })).items;
    expect(card).toEqual({
      recipe_id: recipe.yaki,
      name: "Yaki Udon",
      description: "Noodles | Japanese",
      total_time: "20min",
      photo: "/images/noodleDish.png",
      author: { id: author.id, username: "noodle_fan" },
    });
    const [orphan] = (await searchRecipes({ q: "stir fry" })).items;
    expect(orphan?.author).toBeNull();
  });

  it("finds non-Latin words", async () => {
    expect(await ids("寿司")).toEqual([recipe.sushi]);
  });

  const awkward = [
    '"',
    '""',
    '"yaki',
    'udon"',
    "*",
    "yaki*",
    "-",
    "-udon",
    "NEAR",
    "NEAR(yaki udon)",
    "yaki NEAR udon",
    "(",
    ")",
    "(yaki",
    "AND",
    "OR",
    "NOT",
    "yaki OR",
    "name:yaki",
    "{name}: yaki",
    "^yaki",
    "yaki + udon",
    "'; drop table recipes; --",
    "%_\\",
    "   ",
    "\t\n",
    "🍜",
    "🍜 udon 🍜",
    "寿司",
    "ラーメン",
    "مرحبا",
    "ż́ółć",
    "a".repeat(1000),
    "yaki ".repeat(200),
    "x ".repeat(500),
    "\u0000",
  ];

  it.each(awkward.map((q) => [JSON.stringify(q.length > 40 ? `${q.slice(0, 37)}…` : q), q]))(
    "never errors on %s",
    async (_label, q) => {
      const result = await searchRecipes({ q: q as string });
      expect(Array.isArray(result.items)).toBe(true);
      expect(Array.isArray(await searchUsers({ q: q as string }))).toBe(true);
    },
  );

  it("treats FTS syntax as plain words", async () => {
    expect(await ids('"yaki udon"')).toContain(recipe.yaki);
    expect(await ids("-udon")).toContain(recipe.yaki);
    expect(await ids("NEAR(yaki udon)")).toEqual([]); // the word "near" is in no recipe
    expect(await ids("yaki*")).toContain(recipe.yaki);
    expect(await ids("🍜 udon 🍜")).toContain(recipe.yaki);
    expect(await ids("🍜")).toEqual([]);
    expect(await ids("yaki ".repeat(200))).toContain(recipe.yaki);
  });

  it("lists every recipe for a query of only whitespace", async () => {
    const page = await searchRecipes({ q: "   ", seed: 7 });
    expect(page.items.length).toBeGreaterThan(0);
  });

  it("turns user text into quoted words of each engine's query syntax", () => {
    expect(ftsExpression(recipeQuery('say "hi" now')!)).toBe('"say" """hi""" "now"*');
    expect(ftsExpression(recipeQuery("NEAR(a b) ")!)).toBe('"NEAR(a" "b)"');
    expect(tsQueryText(recipeQuery("it's Yaki-Udon a\\b & !c")!)).toBe("('it' <-> 's') & ('Yaki' <-> 'Udon') & ('a' <-> 'b') & 'c':*");
    expect(recipeQuery("🍜 * -")).toBeNull();
    expect(searchTerms("Udon udon UDON soba")).toEqual(["Udon", "soba"]);
    expect(searchTerms("w ".repeat(50) + "a b c d e f g h i j k l m n")).toHaveLength(12);
  });
});

describe("paging", () => {
  let all: string[];
  let hiddenAuthor: string;
  let hiddenRecipes: string[];

  beforeAll(async () => {
    hiddenAuthor = (await makeUser()).id;
    hiddenRecipes = [];
    for (let i = 0; i < 9; i++) hiddenRecipes.push(await createRecipe({ userId: hiddenAuthor, name: `Hidden Tart ${i}` }));
    for (let i = 0; i < 40; i++) {
      await createRecipe({
        userId: author.id,
        name: `Paging Pie ${i}`,
        description: "Pie | Test",
        sections: [{ title: "Main", lines: [`pastry (${i} sheets)`] }],
      });
    }
    all = (await db.selectFrom("recipes").select("id").execute()).map((row) => row.id);
  });

  async function walk(seed: number, without: string[] = []): Promise<string[]> {
    const seen: string[] = [];
    for (let page = 1; page < 100; page++) {
      const result = await randomRecipesPage(seed, page, db, without);
      expect(result.items.length).toBeLessThanOrEqual(SEARCH_PAGE_SIZE);
      seen.push(...result.items.map((item) => item.recipe_id));
      if (!result.hasMore) break;
      expect(result.items).toHaveLength(SEARCH_PAGE_SIZE);
    }
    return seen;
  }

  it("an empty query pages through every recipe exactly once for a seed", async () => {
    for (const seed of [1, 2, 12345, 2_147_483_646, 987654321]) {
      const seen = await walk(seed);
      expect(seen).toHaveLength(all.length);
      expect(new Set(seen)).toEqual(new Set(all));
    }
  });

  it("a viewer who hides someone gets full pages of everyone else's recipes, each once", async () => {
    const shown = all.filter((id) => !hiddenRecipes.includes(id));
    for (const seed of [3, 77, 2_147_483_646]) {
      // walk() checks that every page but the last holds a whole page of cards.
      const seen = await walk(seed, [hiddenAuthor]);
      expect(seen).toHaveLength(shown.length);
      expect(new Set(seen)).toEqual(new Set(shown));
    }
  });

  it("the same seed gives the same order; other seeds give other orders", async () => {
    expect(await walk(42)).toEqual(await walk(42));
    const firstPages = new Set<string>();
    for (let seed = 1; seed <= 8; seed++) firstPages.add((await walk(seed)).slice(0, SEARCH_PAGE_SIZE).join(","));
    expect(firstPages.size).toBeGreaterThan(4);
  });

  it("searchRecipes with an empty query is the random listing", async () => {
    const viaSearch = await searchRecipes({ q: "", page: 2, seed: 99 });
    expect(viaSearch).toEqual(await randomRecipesPage(99, 2));
  });

  it("a page past the end is empty", async () => {
    const result = await randomRecipesPage(5, 50);
    expect(result).toEqual({ items: [], page: 50, hasMore: false });
  });

  it("pages search results without repeats", async () => {
    const first = await searchRecipes({ q: "pie", page: 1 });
    const second = await searchRecipes({ q: "pie", page: 2 });
    const third = await searchRecipes({ q: "pie", page: 3 });
    const fourth = await searchRecipes({ q: "pie", page: 4 });
    expect(first.hasMore && second.hasMore && third.hasMore).toBe(true);
    expect(fourth.hasMore).toBe(false);
    const seen = [first, second, third, fourth].flatMap((page) => page.items.map((item) => item.recipe_id));
    expect(seen).toHaveLength(40);
    expect(new Set(seen).size).toBe(40);
  });

  it("keeps exact name matches first across pages", async () => {
    const exact = await createRecipe({ name: "Paging Pie", description: "The plain one" });
    const first = await searchRecipes({ q: "paging pie" });
    expect(first.items[0]?.recipe_id).toBe(exact);
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) seen.push(...(await ids("paging pie", page)));
    expect(seen).toHaveLength(41);
    expect(new Set(seen).size).toBe(41);
  });
});

describe("people search", () => {
  let jasmine: Awaited<ReturnType<typeof makeUser>>;
  let jasper: Awaited<ReturnType<typeof makeUser>>;
  let other: Awaited<ReturnType<typeof makeUser>>;

  beforeAll(async () => {
    jasmine = await makeUser({ username: "jasmin_d09", name: "Jasmine Duong" });
    jasper = await makeUser({ username: "cook.jasper", name: "Jasper Quinn" });
    other = await makeUser({ username: "bakerella", name: "Ella Baker" });
  });

  const usernames = async (q: string) => (await searchUsers({ q })).map((user) => user.username);

  it("finds people by part of their name or username", async () => {
    expect(await usernames("smine")).toEqual(["jasmin_d09"]);
    expect(await usernames("duong")).toEqual(["jasmin_d09"]);
    expect(await usernames("quinn")).toEqual(["cook.jasper"]);
    expect(await usernames("DUO")).toEqual(["jasmin_d09"]);
    expect(await usernames("jasmine duong")).toEqual(["jasmin_d09"]);
  });

  it("puts username prefixes before other matches", async () => {
    expect(await usernames("jas")).toEqual(["jasmin_d09", "cook.jasper"]);
    expect(await usernames("baker")).toEqual(["bakerella"]);
  });

  it("matches one or two letters as a prefix of the username or of a word of the name", async () => {
    expect(await usernames("ja")).toEqual(["jasmin_d09", "cook.jasper"]);
    expect(await usernames("qu")).toEqual(["cook.jasper"]);
    expect(await usernames("z")).toEqual([]);
  });

  it("returns cards without any password field", async () => {
    const [card] = await searchUsers({ q: "bakerella" });
    expect(card).toEqual({ id: other.id, username: "bakerella", name: "Ella Baker", profile: "/images/profile.png" });
  });

  it("follows renames and deletions", async () => {
    await db.updateTable("users").set({ name: "Jasper Zebulon" }).where("id", "=", jasper.id).execute();
    expect(await usernames("zebulon")).toEqual(["cook.jasper"]);
    expect(await usernames("quinn")).toEqual([]);
    await db.deleteFrom("users").where("id", "=", jasmine.id).execute();
    expect(await usernames("duong")).toEqual([]);
  });

  it("treats LIKE wildcards as text", async () => {
    expect(await usernames("%")).toEqual([]);
    expect(await usernames("_")).toEqual([]);
    expect(await usernames("a%")).toEqual([]);
  });
});

describe("the index follows every write", () => {
  it("finds a recipe as soon as it is created", async () => {
    const id = await createRecipe({
      name: "Quokka Quiche",
      tags: ["Brunch"],
      sections: [{ title: "Main", lines: ["gruyere (100g)"] }],
    });
    expect(await ids("quokka")).toEqual([id]);
    expect(await ids("gruyere")).toEqual([id]);
  });

  it("follows a rename, a new description and new tags", async () => {
    const id = await createRecipe({ name: "Wombat Waffles", description: "Breakfast", tags: ["Sweet"] });
    await db
      .updateTable("recipes")
      .set({ name: "Numbat Noodles", description: "Dinner" })
      .where("id", "=", id)
      .execute();
    expect(await ids("wombat")).toEqual([]);
    expect(await ids("numbat")).toEqual([id]);
    expect(await ids("breakfast")).not.toContain(id);
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom("recipe_tags").where("recipe_id", "=", id).execute();
      await trx.insertInto("recipe_tags").values({ recipe_id: id, position: 0, tag: "Umami" }).execute();
    });
    expect(await ids("umami")).toEqual([id]);
    await db.updateTable("recipe_tags").set({ tag: "Savoury" }).where("recipe_id", "=", id).execute();
    expect(await ids("umami")).toEqual([]);
    expect(await ids("savoury")).toEqual([id]);
  });

  it("follows replaced, edited and deleted ingredient lines and sections", async () => {
    const id = await createRecipe({
      name: "Kiwi Kebab",
      sections: [
        { title: "Main", lines: ["lamb mince (500g)", "sumac (1 tsp)"] },
        { title: "Sauce", lines: ["tahini (2 tbsp)"] },
      ],
    });
    expect(await ids("sumac")).toEqual([id]);
    // Rows changed directly (not through the app's writer): the index follows them too.
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom("ingredient_lines").where("section_id", "=", `${id}-s0`).execute();
      await trx
        .insertInto("ingredient_lines")
        .values([
          { section_id: `${id}-s0`, position: 0, text: "beef mince (500g)" },
          { section_id: `${id}-s0`, position: 1, text: "za'atar (1 tsp)" },
        ])
        .execute();
    });
    expect(await ids("sumac")).toEqual([]);
    expect(await ids("za'atar")).toEqual([id]);
    await db
      .updateTable("ingredient_lines")
      .set({ text: "harissa (1 tsp)" })
      .where("section_id", "=", `${id}-s0`)
      .where("position", "=", 1)
      .execute();
    expect(await ids("harissa")).toEqual([id]);
    await db.deleteFrom("ingredient_sections").where("id", "=", `${id}-s1`).execute();
    expect(await ids("tahini")).toEqual([]);
    expect(await ids("harissa")).toEqual([id]);
  });

  it("forgets a deleted recipe, children and all", async () => {
    const before = await indexedRecipeCount();
    const id = await createRecipe({
      name: "Ephemeral Eclair",
      tags: ["Sweet"],
      sections: [{ title: "Main", lines: ["choux pastry (1 batch)"] }],
    });
    expect(await indexedRecipeCount()).toBe(before + 1);
    await db.deleteFrom("recipes").where("id", "=", id).execute();
    expect(await ids("ephemeral")).toEqual([]);
    expect(await ids("choux")).toEqual([]);
    expect(await indexedRecipeCount()).toBe(before);
    const { rows } = await sql<{ n: number }>`select count(*) as n from recipe_shuffle`.execute(db);
    expect(Number(rows[0]!.n)).toBe((await db.selectFrom("recipes").select("id").execute()).length);
  });

  it("rolls back with the writer's transaction", async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await writeRecipe({ name: "Phantom Pavlova", sections: [{ title: "Main", lines: ["meringue (1)"] }] }, trx);
        expect((await searchRecipes({ q: "phantom" }, trx)).items).toHaveLength(1);
        throw new Error("editor failed half way");
      }),
    ).rejects.toThrow("editor failed half way");
    expect(await ids("phantom")).toEqual([]);
    expect(await ids("meringue")).toEqual([]);
  });
});

describe("index health", () => {
  it.skipIf(onPostgres)("passes FTS5's integrity check after all the writes above", async () => {
    await sql`insert into recipes_fts (recipes_fts) values ('integrity-check')`.execute(db);
    await sql`insert into users_fts (users_fts) values ('integrity-check')`.execute(db);
    const counts = await sql<{ recipes: number; indexed: number; shuffled: number; users: number; people: number }>`
      select (select count(*) from recipes) as recipes, (select count(*) from recipes_fts) as indexed,
             (select count(*) from recipe_shuffle) as shuffled,
             (select count(*) from users) as users, (select count(*) from users_fts) as people`.execute(db);
    const row = counts.rows[0]!;
    expect(row.indexed).toBe(row.recipes);
    expect(row.shuffled).toBe(row.recipes);
    expect(row.people).toBe(row.users);
  });

  it.runIf(onPostgres)("holds one document and one shuffle key per recipe after all the writes above", async () => {
    const counts = await sql<{ recipes: number; indexed: number; shuffled: number; stale: number }>`
      select (select count(*) from recipes) as recipes, (select count(*) from recipe_search) as indexed,
             (select count(*) from recipe_shuffle) as shuffled,
             (select count(*) from recipe_search s join recipes r on r.id = s.recipe_id where s.seq <> r.seq) as stale`.execute(db);
    const row = counts.rows[0]!;
    expect(row.indexed).toBe(row.recipes);
    expect(row.shuffled).toBe(row.recipes);
    expect(row.stale).toBe(0);
  });
});

describe("migration", () => {
  it("indexes recipes and users that existed before it ran", async () => {
    const old: DB = openDatabase(":memory:");
    try {
      const initOnly = new Migrator({
        db: old,
        provider: { getMigrations: async () => ({ "20261121T0000-init": init }) },
      });
      expect((await initOnly.migrateToLatest()).error).toBeUndefined();
      await old
        .insertInto("users")
        .values({
          id: "u1",
          username: "legacy_lou",
          name: "Lou Legacy",
          password_hash: "x",
          role: "USER",
          created_at: nowIso(),
          seq: 1,
        })
        .execute();
      await createRecipe(
        {
          id: "r-old",
          userId: "u1",
          name: "Heritage Hotpot",
          tags: ["Comfort"],
          sections: [{ title: "Main", lines: ["lamb neck (1kg)"] }],
        },
        old,
      );

      const full = new Migrator({ db: old as Kysely<unknown>, provider: migrationProvider });
      expect((await full.migrateToLatest()).error).toBeUndefined();
      expect((await searchRecipes({ q: "lamb neck" }, old)).items.map((item) => item.recipe_id)).toEqual(["r-old"]);
      expect((await searchRecipes({ q: "comfort" }, old)).items.map((item) => item.recipe_id)).toEqual(["r-old"]);
      expect((await searchUsers({ q: "legacy" }, old)).map((user) => user.id)).toEqual(["u1"]);
      expect((await randomRecipesPage(3, 1, old)).items.map((item) => item.recipe_id)).toEqual(["r-old"]);
    } finally {
      await old.destroy();
    }
  });
});

describe("search page loader", () => {
  it("answers recipes and people for a query", async () => {
    const result = await searchLoader(routeArgs(getRequest("/ReciPals/Search?q=noodle")));
    expect(result.q).toBe("noodle");
    expect(result.error).toBeNull();
    expect(result.people.map((person) => person.username)).toEqual(["noodle_fan"]);
    expect(result.recipes.items.map((item) => item.recipe_id)).toEqual(
      expect.arrayContaining([recipe.yaki, recipe.pho]),
    );
    expect(JSON.stringify(result)).not.toMatch(/password/);
  });

  it("lists random recipes and no people for an empty query, keeping the seed for Load more", async () => {
    const result = await searchLoader(routeArgs(getRequest("/ReciPals/Search?q=%20%20&page=2&seed=77")));
    expect(result).toMatchObject({ q: "", page: 2, seed: 77, people: [], error: null });
    const page = await randomRecipesPage(77, 2);
    // Each card with its photo's inline placeholder: none for these, whose photos are not stored ones.
    expect(result.recipes).toEqual({ ...page, items: page.items.map((item) => ({ ...item, placeholder: null })) });
  });

  it("falls back to sensible values for odd parameters", () => {
    const odd = parseSearchParams(new URLSearchParams({ q: "  x".padEnd(3000, "y"), page: "-3", seed: "abc" }));
    expect(odd.q).toHaveLength(1000);
    expect(odd.page).toBe(1);
    expect(odd.seed).toBeGreaterThan(0);
    expect(parseSearchParams(new URLSearchParams("page=2.5&seed=99999999999")).page).toBe(1);
    expect(parseSearchParams(new URLSearchParams("page=3&seed=5"))).toEqual({ q: "", page: 3, seed: 5 });
  });

  it("a handle (`@name@host`) searches people only: the page has no recipe half for it", async () => {
    const q = "@noodle@example.org";
    const result = await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(q)}`)));
    expect(result).toMatchObject({ q, handle: true, error: null, recipes: { items: [], hasMore: false } });
    expect((await searchLoader(routeArgs(getRequest("/ReciPals/Search?q=noodle")))).handle).toBe(false);
  });

  it("a new visit gets a new random order", async () => {
    const seeds = new Set<number>();
    for (let i = 0; i < 5; i++) seeds.add((await searchLoader(routeArgs(getRequest("/ReciPals/Search")))).seed);
    expect(seeds.size).toBeGreaterThan(1);
  });
});

describe("search errors", () => {
  // What the queries of each kind need, taken out of the way in turn: the recipe index, the
  // shuffle table, and what only people search reads (SQLite's trigram table; on PostgreSQL the
  // users' name column, which recipe cards do not read).
  const PEOPLE_INDEX = onPostgres ? { table: "users", column: "name" } : { table: "users_fts" };

  /** Runs `run` with `table` (or one of its columns) out of the way, so the queries that need it fail for real. */
  async function without<T>(what: string | { table: string; column?: string }, run: () => Promise<T>): Promise<T> {
    const { table, column } = typeof what === "string" ? { table: what, column: undefined } : what;
    const away = (name: string) => `${name}_away`;
    // tests/support/vitest-setup.ts already spies on console.error (and fails a test that calls it): silence
    // that spy here and hand it back afterwards.
    const consoleError = vi.mocked(console.error);
    expect(vi.isMockFunction(consoleError)).toBe(true);
    consoleError.mockImplementation(() => {});
    if (column) await sql`alter table ${sql.table(table)} rename column ${sql.ref(column)} to ${sql.ref(away(column))}`.execute(db);
    else await sql`alter table ${sql.table(table)} rename to ${sql.table(away(table))}`.execute(db);
    try {
      return await run();
    } finally {
      if (column) await sql`alter table ${sql.table(table)} rename column ${sql.ref(away(column))} to ${sql.ref(column)}`.execute(db);
      else await sql`alter table ${sql.table(away(table))} rename to ${sql.table(table)}`.execute(db);
      expect(consoleError).toHaveBeenCalled(); // the cause is logged on the server
      consoleError.mockReset(); // clears the calls and goes back to the real console.error
      expect(vi.isMockFunction(console.error)).toBe(true);
    }
  }

  it("reports a failed recipe search as 'Failed to search recipes', still showing people", async () => {
    const result = await without(RECIPE_INDEX, () => searchLoader(routeArgs(getRequest("/ReciPals/Search?q=noodle"))));
    expect(result.error).toBe("Failed to search recipes");
    expect(result.recipes.items).toEqual([]);
    expect(result.people.map((person) => person.username)).toContain("noodle_fan");
  });

  it("reports a failed listing as 'Failed to fetch recipes'", async () => {
    const result = await without("recipe_shuffle", () => searchLoader(routeArgs(getRequest("/ReciPals/Search"))));
    expect(result.error).toBe("Failed to fetch recipes");
  });

  it("reports a failed people search as 'Search failed', still showing recipes", async () => {
    const result = await without(PEOPLE_INDEX, () =>
      searchLoader(routeArgs(getRequest("/ReciPals/Search?q=yaki%20udon"))),
    );
    expect(result.error).toBe("Search failed");
    expect(result.recipes.items[0]?.recipe_id).toBe(recipe.yaki);
  });

  it("in the browser, turns a dropped connection or a failed answer into the product's message", async () => {
    const args = (url: string, failure: unknown) =>
      ({
        request: new Request(`http://localhost${url}`),
        params: {},
        serverLoader: () => Promise.reject(failure),
      } as unknown as Parameters<typeof searchClientLoader>[0]);
    expect((await searchClientLoader(args("/ReciPals/Search?q=udon", new TypeError("Failed to fetch")))).error).toBe(
      "Search failed",
    );
    expect((await searchClientLoader(args("/ReciPals/Search?q=udon", new Response("", { status: 500 })))).error).toBe(
      "Failed to search recipes",
    );
    expect((await searchClientLoader(args("/ReciPals/Search", new Response("", { status: 502 })))).error).toBe(
      "Failed to fetch recipes",
    );
    const ok = { q: "x", error: null };
    const passed = await searchClientLoader({
      request: new Request("http://localhost/ReciPals/Search?q=x"),
      params: {},
      serverLoader: () => Promise.resolve(ok),
    } as unknown as Parameters<typeof searchClientLoader>[0]);
    expect(passed).toBe(ok);
  });
});
