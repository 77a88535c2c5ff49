import crypto from "node:crypto";

import { describe, expect, it } from "vitest";

import { RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";
import { db } from "~/server/db/connection.server";
import { nowIso } from "~/server/queries/seq.server";
import { isOnShoppingList } from "~/server/queries/shopping-list.server";
import type { Outcome } from "~/server/services/outcome-service.server";
import { createRecipe, deleteRecipe, updateRecipe } from "~/server/services/recipes-service.server";
import {
  addRecipeToList,
  clearChecked,
  clearList,
  getShoppingList,
  removeRecipeFromList,
  setItemsChecked,
  SHOPPING_LIMITS,
  SHOPPING_MESSAGES,
} from "~/server/services/shopping-service.server";
import { deleteUser } from "~/server/services/users-service.server";

import { makeUser } from "../support/app";

// The shopping list (docs/rules.md#shopping-list) against the real database: recipes added at the
// servings chosen, their lines scaled and checked off, only ever the actor's own list.

type Person = Awaited<ReturnType<typeof makeUser>>;

function ok<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`refused ${outcome.status}: ${outcome.message}`);
  return outcome.value;
}

let made = 0;
/** A recipe made the way the editor makes it: sections of ingredient lines, serving `serves`. */
async function recipe({
  owner,
  serves = 4,
  sections = [["Eggs (3)", "Flour (200g)"]],
  name = `Shopping recipe ${++made}`,
  recipeId = crypto.randomUUID(),
}: {
  owner: Person;
  serves?: number;
  sections?: string[][];
  name?: string;
  recipeId?: string;
}) {
  const input = {
    name,
    description: "For the shopping list",
    totalTime: "20min",
    serves,
    tags: [],
    sections: sections.map((ingredients, i) => ({ id: "", title: `Part ${i + 1}`, ingredients })),
    steps: ["Cook."],
  };
  const created = ok(await createRecipe({ actor: owner, recipeId, input, photo: { kind: "keep" }, fallbackPhoto: RECIPE_PLACEHOLDER_IMAGE }));
  return { id: created.recipeId, name };
}

/** What a person sees: recipe by recipe, each line with its check mark. */
async function listOf(userId: string) {
  const list = await getShoppingList(userId);
  return list.recipes.map((r) => ({ name: r.name, serves: r.serves, items: r.items.map((item) => `${item.checked ? "[x]" : "[ ]"} ${item.text}`) }));
}

/** The rows stored for a person, to prove a refusal wrote nothing. */
async function storedOf(userId: string) {
  const [recipes, items] = await Promise.all([
    db.selectFrom("shopping_recipes").select(["recipe_id", "serves", "seq"]).where("user_id", "=", userId).orderBy("recipe_id").execute(),
    db.selectFrom("shopping_items").select(["id", "recipe_id", "position", "text", "checked"]).where("user_id", "=", userId).orderBy("id").execute(),
  ]);
  return { recipes, items: items.map((item) => ({ ...item, checked: Number(item.checked) })) };
}

const itemIdsOf = async (userId: string) => (await getShoppingList(userId)).recipes.flatMap((r) => r.items.map((item) => item.id));

/** Recipes with no lines, made directly in bulk (for the limits). */
async function bareRecipes(owner: Person, count: number): Promise<string[]> {
  const top = await db.selectFrom("recipes").select((eb) => eb.fn.max("seq").as("m")).executeTakeFirstOrThrow();
  const base = Number(top.m ?? 0);
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `bare-${crypto.randomUUID()}`,
    user_created: owner.id,
    name: `Bare ${i}`,
    description: "",
    total_time: "",
    serves: 2,
    photo: RECIPE_PLACEHOLDER_IMAGE,
    created_at: nowIso().slice(0, 10),
    seq: base + i + 1,
  }));
  await db.insertInto("recipes").values(rows).execute();
  return rows.map((row) => row.id);
}

/** Puts recipes on a person's list directly, in bulk, after what is there. */
async function putOnList(userId: string, recipeIds: string[]) {
  const top = await db.selectFrom("shopping_recipes").select((eb) => eb.fn.max("seq").as("m")).executeTakeFirstOrThrow();
  const base = Number(top.m ?? 0);
  await db
    .insertInto("shopping_recipes")
    .values(recipeIds.map((recipeId, i) => ({ user_id: userId, recipe_id: recipeId, serves: 2, added_at: nowIso(), seq: base + i + 1 })))
    .execute();
}

describe("adding a recipe", () => {
  it("adds every line of every section, scaled to the servings chosen", async () => {
    const me = await makeUser();
    const r = await recipe({ owner: me, serves: 4, sections: [["Eggs (3)", "Flour (200g)"], ["Milk (300ml)", "Salt"]] });
    expect(ok(await addRecipeToList({ actor: me, recipeId: r.id, serves: 8 }))).toEqual({ items: 4 });
    expect(await listOf(me.id)).toEqual([
      { name: r.name, serves: 8, items: ["[ ] Eggs (6)", "[ ] Flour (400g)", "[ ] Milk (600ml)", "[ ] Salt"] },
    ]);
    expect(await isOnShoppingList(me.id, r.id)).toBe(true);
    const other = await makeUser();
    expect(await isOnShoppingList(other.id, r.id)).toBe(false);
    expect(await listOf(other.id)).toEqual([]);
  });

  it("takes the recipe's own servings when none is chosen, and servings typed in a form", async () => {
    const me = await makeUser();
    const own = await recipe({ owner: me, serves: 4 });
    const typed = await recipe({ owner: me, serves: 4 });
    ok(await addRecipeToList({ actor: me, recipeId: own.id }));
    ok(await addRecipeToList({ actor: me, recipeId: typed.id, serves: " 8" }));
    expect(await listOf(me.id)).toEqual([
      { name: own.name, serves: 4, items: ["[ ] Eggs (3)", "[ ] Flour (200g)"] },
      { name: typed.name, serves: 8, items: ["[ ] Eggs (6)", "[ ] Flour (400g)"] },
    ]);
  });

  it("adding again replaces it at the new servings, with no duplicates, keeping the check marks of unchanged lines", async () => {
    const me = await makeUser();
    const r = await recipe({ owner: me, serves: 4, sections: [["Eggs (3)", "Salt", "Flour (200g)"]] });
    ok(await addRecipeToList({ actor: me, recipeId: r.id, serves: 4 }));
    const [eggs, salt] = (await getShoppingList(me.id)).recipes[0]!.items;
    ok(await setItemsChecked({ actor: me, itemIds: [eggs!.id, salt!.id], checked: true }));

    expect(ok(await addRecipeToList({ actor: me, recipeId: r.id, serves: 8 }))).toEqual({ items: 3 });
    expect(await listOf(me.id)).toEqual([{ name: r.name, serves: 8, items: ["[ ] Eggs (6)", "[x] Salt", "[ ] Flour (400g)"] }]);
    const list = await getShoppingList(me.id);
    expect(list).toMatchObject({ itemCount: 3, checkedCount: 1 });
    expect((await storedOf(me.id)).recipes).toHaveLength(1);
  });

  // Fails today: shopping.server.ts keeps a check mark only for a line at the same position with
  // the same text, so a line that reads the same but moved (a line added above it) loses its mark.
  it("adding again after the recipe gained a line keeps the check marks of lines that read the same", async () => {
    const me = await makeUser();
    const r = await recipe({ owner: me, serves: 4, sections: [["Eggs (3)", "Salt"]] });
    ok(await addRecipeToList({ actor: me, recipeId: r.id }));
    const [, salt] = await itemIdsOf(me.id);
    ok(await setItemsChecked({ actor: me, itemIds: [salt!], checked: true }));
    const input = { name: r.name, description: "For the shopping list", totalTime: "20min", serves: 4, tags: [], sections: [{ id: "", title: "Part 1", ingredients: ["Pepper", "Eggs (3)", "Salt"] }], steps: ["Cook."] };
    ok(await updateRecipe({ actor: me, recipeId: r.id, input, photo: { kind: "keep" } }));

    ok(await addRecipeToList({ actor: me, recipeId: r.id }));
    expect(await listOf(me.id)).toEqual([{ name: r.name, serves: 4, items: ["[ ] Pepper", "[ ] Eggs (3)", "[x] Salt"] }]);
  });

  it("answers 404 for a recipe that does not exist, writing nothing", async () => {
    const me = await makeUser();
    const r = await recipe({ owner: me });
    ok(await addRecipeToList({ actor: me, recipeId: r.id }));
    const before = await storedOf(me.id);
    expect(await addRecipeToList({ actor: me, recipeId: "no-such-recipe", serves: 2 })).toEqual({
      ok: false,
      status: 404,
      message: SHOPPING_MESSAGES.recipeMissing,
    });
    expect(await storedOf(me.id)).toEqual(before);
  });

  it.each([0, 101, "abc", 2.5, -1, "1.5", "12abc"])("refuses servings %j with 400, changing nothing (a recipe already on the list stays as it was)", async (serves) => {
    const me = await makeUser();
    const onList = await recipe({ owner: me, serves: 4 });
    const fresh = await recipe({ owner: me, serves: 4 });
    ok(await addRecipeToList({ actor: me, recipeId: onList.id, serves: 6 }));
    const before = await storedOf(me.id);
    for (const recipeId of [onList.id, fresh.id]) {
      expect(await addRecipeToList({ actor: me, recipeId, serves })).toMatchObject({ ok: false, status: 400, message: SHOPPING_MESSAGES.badServes });
    }
    expect(await storedOf(me.id)).toEqual(before);
    expect(await isOnShoppingList(me.id, fresh.id)).toBe(false);
  });

  it("takes servings from 1 to 100", async () => {
    const me = await makeUser();
    const r = await recipe({ owner: me, serves: 4, sections: [["Eggs (4)"]] });
    ok(await addRecipeToList({ actor: me, recipeId: r.id, serves: 1 }));
    expect(await listOf(me.id)).toEqual([{ name: r.name, serves: 1, items: ["[ ] Eggs (1)"] }]);
    ok(await addRecipeToList({ actor: me, recipeId: r.id, serves: 100 }));
    expect(await listOf(me.id)).toEqual([{ name: r.name, serves: 100, items: ["[ ] Eggs (100)"] }]);
  });
});

describe("a recipe without stated servings, at a multiplier", () => {
  async function withoutServes(owner: Person, lines: string[]) {
    const r = await recipe({ owner, sections: [lines] });
    await db.updateTable("recipes").set({ serves: null }).where("id", "=", r.id).execute();
    return r;
  }
  const scaleOf = async (userId: string) => (await getShoppingList(userId)).recipes.map((r) => r.scale);

  it("scales the lines by the multiplier (both ways of writing them) and remembers it", async () => {
    const me = await makeUser();
    const r = await withoutServes(me, ["Eggs (3)", "100 g cheese", "1 clove garlic", "Salt"]);
    ok(await addRecipeToList({ actor: me, recipeId: r.id, scale: "2" }));
    expect(await listOf(me.id)).toEqual([{ name: r.name, serves: null, items: ["[ ] Eggs (6)", "[ ] 200 g cheese", "[ ] 2 cloves garlic", "[ ] Salt"] }]);
    expect(await scaleOf(me.id)).toEqual([2]);
    // Again at ½ (as a form may type it): replaced, the multiplier with it; 1× means none.
    ok(await addRecipeToList({ actor: me, recipeId: r.id, scale: "1/2" }));
    expect((await listOf(me.id))[0]!.items).toEqual(["[ ] Eggs (1½)", "[ ] 50 g cheese", "[ ] ½ clove garlic", "[ ] Salt"]);
    expect(await scaleOf(me.id)).toEqual([0.5]);
    ok(await addRecipeToList({ actor: me, recipeId: r.id, scale: "1" }));
    expect(await scaleOf(me.id)).toEqual([null]);
  });

  it("refuses a multiplier it cannot read or out of ¼…20 with 400 and the message, writing nothing", async () => {
    const me = await makeUser();
    const r = await withoutServes(me, ["Eggs (3)"]);
    ok(await addRecipeToList({ actor: me, recipeId: r.id, scale: 3 }));
    const before = await storedOf(me.id);
    for (const scale of ["lots", "0", "0.1", "21", "-2", "2/0", "1e3", "NaN"]) {
      const outcome = await addRecipeToList({ actor: me, recipeId: r.id, scale });
      expect(outcome, scale).toMatchObject({ ok: false, status: 400, message: SHOPPING_MESSAGES.badScale, errors: { scale: SHOPPING_MESSAGES.badScale } });
    }
    expect(await storedOf(me.id)).toEqual(before);
    expect(await scaleOf(me.id)).toEqual([3]);
  });

  it("ignores a multiplier for a recipe with servings (its servings scale it)", async () => {
    const me = await makeUser();
    const r = await recipe({ owner: me, serves: 4, sections: [["Eggs (4)"]] });
    ok(await addRecipeToList({ actor: me, recipeId: r.id, serves: 2, scale: "3" }));
    expect(await listOf(me.id)).toEqual([{ name: r.name, serves: 2, items: ["[ ] Eggs (2)"] }]);
    expect(await scaleOf(me.id)).toEqual([null]);
  });
});

describe("limits", () => {
  it(`holds at most ${SHOPPING_LIMITS.recipes} recipes: the next is refused with 409 and nothing changes`, async () => {
    const me = await makeUser();
    const first = await recipe({ owner: me, serves: 4 });
    ok(await addRecipeToList({ actor: me, recipeId: first.id, serves: 4 }));
    await putOnList(me.id, await bareRecipes(me, SHOPPING_LIMITS.recipes - 1));
    const extra = await recipe({ owner: me });
    const before = await storedOf(me.id);
    expect(before.recipes).toHaveLength(SHOPPING_LIMITS.recipes);

    expect(await addRecipeToList({ actor: me, recipeId: extra.id })).toEqual({ ok: false, status: 409, message: SHOPPING_MESSAGES.tooManyRecipes });
    expect(await storedOf(me.id)).toEqual(before);
    expect(await isOnShoppingList(me.id, extra.id)).toBe(false);

    // A recipe already on the list can still be changed; another person's list is not limited by mine.
    ok(await addRecipeToList({ actor: me, recipeId: first.id, serves: 8 }));
    expect((await listOf(me.id))[0]).toEqual({ name: first.name, serves: 8, items: ["[ ] Eggs (6)", "[ ] Flour (400g)"] });
    const other = await makeUser();
    ok(await addRecipeToList({ actor: other, recipeId: extra.id }));
  });

  it(`holds at most ${SHOPPING_LIMITS.items.toLocaleString("en-US")} items: up to it is fine, past it is refused with 409 and nothing changes`, async () => {
    const me = await makeUser();
    const [bulk] = await bareRecipes(me, 1);
    await putOnList(me.id, [bulk!]);
    const filler = Array.from({ length: SHOPPING_LIMITS.items - 3 }, (_, position) => ({
      id: crypto.randomUUID(),
      user_id: me.id,
      recipe_id: bulk!,
      position,
      text: `Thing ${position} (1)`,
      checked: 0,
    }));
    for (let i = 0; i < filler.length; i += 250) await db.insertInto("shopping_items").values(filler.slice(i, i + 250)).execute();

    const two = await recipe({ owner: me, sections: [["Eggs (3)", "Flour (200g)"]] });
    const one = await recipe({ owner: me, sections: [["Salt"]] });
    ok(await addRecipeToList({ actor: me, recipeId: two.id }));
    expect((await getShoppingList(me.id)).itemCount).toBe(SHOPPING_LIMITS.items - 1);
    ok(await addRecipeToList({ actor: me, recipeId: one.id }));
    expect((await getShoppingList(me.id)).itemCount).toBe(SHOPPING_LIMITS.items);

    const more = await recipe({ owner: me, sections: [["Pepper"]] });
    const before = await storedOf(me.id);
    expect(await addRecipeToList({ actor: me, recipeId: more.id })).toEqual({ ok: false, status: 409, message: SHOPPING_MESSAGES.tooManyItems });
    expect(await storedOf(me.id)).toEqual(before);
    // Re-adding a recipe already counted, with the same number of lines, is still fine.
    ok(await addRecipeToList({ actor: me, recipeId: two.id, serves: 8 }));
    expect((await getShoppingList(me.id)).itemCount).toBe(SHOPPING_LIMITS.items);
  });
});

describe("check marks", () => {
  it("checks and unchecks the actor's own items", async () => {
    const me = await makeUser();
    const r = await recipe({ owner: me, sections: [["Eggs (3)", "Flour (200g)", "Salt"]] });
    ok(await addRecipeToList({ actor: me, recipeId: r.id }));
    const [eggs, flour, salt] = await itemIdsOf(me.id);
    ok(await setItemsChecked({ actor: me, itemIds: [eggs!, salt!, salt!], checked: true }));
    expect((await listOf(me.id))[0]!.items).toEqual(["[x] Eggs (3)", "[ ] Flour (200g)", "[x] Salt"]);
    expect(await getShoppingList(me.id)).toMatchObject({ itemCount: 3, checkedCount: 2 });
    ok(await setItemsChecked({ actor: me, itemIds: [eggs!, flour!], checked: false }));
    expect((await listOf(me.id))[0]!.items).toEqual(["[ ] Eggs (3)", "[ ] Flour (200g)", "[x] Salt"]);
  });

  it("refuses with 404 any id not on the actor's list, changing no item at all, not even the actor's own", async () => {
    const me = await makeUser();
    const other = await makeUser();
    const r = await recipe({ owner: me });
    ok(await addRecipeToList({ actor: me, recipeId: r.id }));
    ok(await addRecipeToList({ actor: other, recipeId: r.id }));
    const mine = await itemIdsOf(me.id);
    const theirs = await itemIdsOf(other.id);
    const before = [await storedOf(me.id), await storedOf(other.id)];

    for (const itemIds of [[mine[0]!, theirs[0]!], [theirs[1]!], [mine[1]!, "forged-item-id"], [crypto.randomUUID()]]) {
      expect(await setItemsChecked({ actor: me, itemIds, checked: true })).toEqual({ ok: false, status: 404, message: SHOPPING_MESSAGES.itemMissing });
    }
    expect([await storedOf(me.id), await storedOf(other.id)]).toEqual(before);
    expect((await getShoppingList(me.id)).checkedCount).toBe(0);
    expect((await getShoppingList(other.id)).checkedCount).toBe(0);
  });

  it.each([
    ["an empty list", []],
    ["a single id, not a list", "an-id"],
    ["null", null],
    ["numbers", [1, 2]],
    ["an empty id", [""]],
    ["an overlong id", ["x".repeat(101)]],
    ["more ids than a list holds", "too-many"],
  ])("refuses %s with 400, changing nothing", async (_label, given) => {
    const me = await makeUser();
    const r = await recipe({ owner: me });
    ok(await addRecipeToList({ actor: me, recipeId: r.id }));
    const [first] = await itemIdsOf(me.id);
    const itemIds = given === "too-many" ? [first!, ...Array.from({ length: SHOPPING_LIMITS.items }, () => crypto.randomUUID())] : given;
    const before = await storedOf(me.id);
    expect(await setItemsChecked({ actor: me, itemIds, checked: true })).toEqual({ ok: false, status: 400, message: SHOPPING_MESSAGES.badItems });
    expect(await storedOf(me.id)).toEqual(before);
  });
});

describe("clearing", () => {
  it("clear checked drops the checked items and the recipes left empty, only the actor's", async () => {
    const me = await makeUser();
    const other = await makeUser();
    const done = await recipe({ owner: me, sections: [["Eggs (3)", "Flour (200g)"]] });
    const half = await recipe({ owner: me, sections: [["Milk (300ml)", "Salt"]] });
    for (const who of [me, other]) {
      ok(await addRecipeToList({ actor: who, recipeId: done.id }));
      ok(await addRecipeToList({ actor: who, recipeId: half.id }));
    }
    const [eggs, flour, milk] = await itemIdsOf(me.id);
    ok(await setItemsChecked({ actor: me, itemIds: [eggs!, flour!, milk!], checked: true }));
    ok(await setItemsChecked({ actor: other, itemIds: await itemIdsOf(other.id), checked: true }));

    ok(await clearChecked({ actor: me }));
    expect(await listOf(me.id)).toEqual([{ name: half.name, serves: 4, items: ["[ ] Salt"] }]);
    expect(await isOnShoppingList(me.id, done.id)).toBe(false);
    expect(await getShoppingList(other.id)).toMatchObject({ itemCount: 4, checkedCount: 4 });
  });

  it("removes one recipe with its items; 404 when it is not on the actor's list, even when it is on someone else's", async () => {
    const me = await makeUser();
    const other = await makeUser();
    const keep = await recipe({ owner: me });
    const drop = await recipe({ owner: me, sections: [["Milk (300ml)"]] });
    const theirs = await recipe({ owner: other });
    ok(await addRecipeToList({ actor: me, recipeId: keep.id }));
    ok(await addRecipeToList({ actor: me, recipeId: drop.id }));
    ok(await addRecipeToList({ actor: other, recipeId: drop.id }));
    ok(await addRecipeToList({ actor: other, recipeId: theirs.id }));
    const otherBefore = await storedOf(other.id);

    ok(await removeRecipeFromList({ actor: me, recipeId: drop.id }));
    expect(await listOf(me.id)).toEqual([{ name: keep.name, serves: 4, items: ["[ ] Eggs (3)", "[ ] Flour (200g)"] }]);
    expect((await storedOf(me.id)).items.map((item) => item.recipe_id)).toEqual([keep.id, keep.id]);

    const notOnList = { ok: false, status: 404, message: SHOPPING_MESSAGES.notOnList };
    expect(await removeRecipeFromList({ actor: me, recipeId: drop.id })).toEqual(notOnList);
    expect(await removeRecipeFromList({ actor: me, recipeId: theirs.id })).toEqual(notOnList);
    expect(await removeRecipeFromList({ actor: me, recipeId: "no-such-recipe" })).toEqual(notOnList);
    expect(await storedOf(other.id)).toEqual(otherBefore);
  });

  it("clear list empties the actor's list and nobody else's", async () => {
    const me = await makeUser();
    const other = await makeUser();
    const r = await recipe({ owner: me });
    const s = await recipe({ owner: me, sections: [["Salt"]] });
    for (const who of [me, other]) for (const x of [r, s]) ok(await addRecipeToList({ actor: who, recipeId: x.id }));
    const otherBefore = await storedOf(other.id);
    ok(await clearList({ actor: me }));
    expect(await storedOf(me.id)).toEqual({ recipes: [], items: [] });
    expect(await getShoppingList(me.id)).toEqual({ recipes: [], merged: { byItem: [], unmerged: [] }, itemCount: 0, checkedCount: 0 });
    expect(await storedOf(other.id)).toEqual(otherBefore);
    // An empty list clears again without complaint.
    ok(await clearList({ actor: me }));
  });
});

describe("reading the list", () => {
  it("shows recipes in the order added, lines in recipe order, and merges the same thing across recipes", async () => {
    const me = await makeUser();
    // Ids that sort the other way round from the order they are added in.
    const breakfast = await recipe({ owner: me, serves: 2, recipeId: `zz-${crypto.randomUUID()}`, sections: [["Milk (200ml)", "Eggs (2)"], ["Salt"]] });
    const cake = await recipe({ owner: me, serves: 4, recipeId: `aa-${crypto.randomUUID()}`, sections: [["Flour (200g)", "Eggs (3)"]] });
    ok(await addRecipeToList({ actor: me, recipeId: breakfast.id }));
    ok(await addRecipeToList({ actor: me, recipeId: cake.id }));
    const [, breakfastEggs] = await itemIdsOf(me.id);
    ok(await setItemsChecked({ actor: me, itemIds: [breakfastEggs!], checked: true }));

    const list = await getShoppingList(me.id);
    expect(await listOf(me.id)).toEqual([
      { name: breakfast.name, serves: 2, items: ["[ ] Milk (200ml)", "[x] Eggs (2)", "[ ] Salt"] },
      { name: cake.name, serves: 4, items: ["[ ] Flour (200g)", "[ ] Eggs (3)"] },
    ]);
    expect(list).toMatchObject({ itemCount: 5, checkedCount: 1 });
    // The page by recipe leaves the merge out; the same list is there.
    expect(await getShoppingList(me.id, db, { merge: false })).toEqual({ ...list, merged: null });
    const merged = list.merged!;
    const eggs = merged.byItem.find((item) => item.key === "egg" || /^eggs?\b/i.test(item.name));
    expect(eggs).toMatchObject({ text: "Eggs (5)", amount: 5, checked: false });
    expect(new Set(eggs!.recipeIds)).toEqual(new Set([breakfast.id, cake.id]));
    expect(eggs!.itemIds).toHaveLength(2);
    const shownOnce = [...merged.byItem.flatMap((item) => item.itemIds), ...merged.unmerged.flatMap((group) => group.items.map((item) => item.id))];
    expect(shownOnce.sort()).toEqual(list.recipes.flatMap((r) => r.items.map((item) => item.id)).sort());
  });

  it("a deleted recipe disappears from every list, with its items", async () => {
    const me = await makeUser();
    const other = await makeUser();
    const gone = await recipe({ owner: me });
    const kept = await recipe({ owner: me, sections: [["Salt"]] });
    for (const who of [me, other]) for (const x of [gone, kept]) ok(await addRecipeToList({ actor: who, recipeId: x.id }));
    ok(await deleteRecipe({ actor: me, recipeId: gone.id }));
    for (const who of [me, other]) {
      expect(await listOf(who.id)).toEqual([{ name: kept.name, serves: 4, items: ["[ ] Salt"] }]);
      expect(await isOnShoppingList(who.id, gone.id)).toBe(false);
    }
    expect(await db.selectFrom("shopping_items").select("id").where("recipe_id", "=", gone.id).execute()).toEqual([]);
    // Adding it now is a 404.
    expect(await addRecipeToList({ actor: me, recipeId: gone.id })).toMatchObject({ ok: false, status: 404 });
  });

  it("a deleted person's list goes with them", async () => {
    const me = await makeUser();
    const admin = await makeUser({ role: "ADMIN" });
    const r = await recipe({ owner: admin });
    ok(await addRecipeToList({ actor: me, recipeId: r.id }));
    ok(await deleteUser({ actor: admin, userId: me.id }));
    expect(await storedOf(me.id)).toEqual({ recipes: [], items: [] });
  });
});

describe("two requests at once (a double submit)", () => {
  it("adding the same recipe twice at once leaves it on the list once, each line once", async () => {
    const me = await makeUser();
    const r = await recipe({ owner: me, sections: [["Eggs (3)", "Flour (200g)"]] });
    const outcomes = await Promise.all([addRecipeToList({ actor: me, recipeId: r.id }), addRecipeToList({ actor: me, recipeId: r.id, serves: 4 })]);
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(await listOf(me.id)).toEqual([{ name: r.name, serves: 4, items: ["[ ] Eggs (3)", "[ ] Flour (200g)"] }]);
    expect((await storedOf(me.id)).items).toHaveLength(2);
  });

  it(`two new recipes at once on a list one short of ${SHOPPING_LIMITS.recipes}: one is added, the other refused`, async () => {
    const me = await makeUser();
    await putOnList(me.id, await bareRecipes(me, SHOPPING_LIMITS.recipes - 1));
    const a = await recipe({ owner: me });
    const b = await recipe({ owner: me });
    const outcomes = await Promise.all([addRecipeToList({ actor: me, recipeId: a.id }), addRecipeToList({ actor: me, recipeId: b.id })]);
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([{ ok: false, status: 409, message: SHOPPING_MESSAGES.tooManyRecipes }]);
    expect((await storedOf(me.id)).recipes).toHaveLength(SHOPPING_LIMITS.recipes);
  });
});
