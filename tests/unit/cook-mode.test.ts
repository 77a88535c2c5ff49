import { createRequestHandler } from "@remix-run/node";
import { beforeAll, describe, expect, it } from "vitest";

import {
  contentVersion,
  cookAmounts,
  cookPath,
  durationLabel,
  findDurations,
  formatClock,
  ingredientName,
  ingredientsInStep,
  readStep,
  recipePathWith,
} from "~/lib/cook-mode";
import * as entry from "~/entry.server";
import * as rootRoute from "~/root";
import * as layoutRoute from "~/routes/ReciPals";
import * as cookRoute from "~/routes/ReciPals_.Recipes.$rid_.Cook";
import { loader as cookLoader } from "~/routes/ReciPals_.Recipes.$rid_.Cook";
import { db } from "~/server/db/connection.server";
import { writeRecipeParts } from "~/server/queries/recipe-writes.server";
import { setBlock } from "~/server/services/people-service.server";

import { makeRecipeWithPost } from "../support/factories";
import { serverBuildOf } from "../support/server-build";
import { expectRedirect, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

// Cook mode (docs/rules.md#cook-mode): the pure rules first, then the page's loader against the
// real test database.

/** The durations of a text, as "what it says → timer label". */
const timers = (text: string) => findDurations(text).map((d) => `${text.slice(d.start, d.end)} → ${d.label}`);

describe("durations in a step", () => {
  it("reads the examples of the rules, a range as its lower end", () => {
    expect(timers("Cover and simmer for 15 mins.")).toEqual(["15 mins → 15 min"]);
    expect(timers("Leave to rest for 1 hour")).toEqual(["1 hour → 1 hr"]);
    expect(timers("cook for a 2-3 minutes further")).toEqual(["2-3 minutes → 2 min"]);
    expect(timers("Roast 1 hr 30 min, basting once")).toEqual(["1 hr 30 min → 1 hr 30 min"]);
    expect(timers("Whisk for 45 seconds")).toEqual(["45 seconds → 45 sec"]);
    expect(timers("Bake 10–12 minutes until golden")).toEqual(["10–12 minutes → 10 min"]);
  });

  it("reads the ways the sample recipes write them", () => {
    expect(timers("Cover the pan for 30-60 seconds until small air bubbles appear")).toEqual(["30-60 seconds → 30 sec"]);
    expect(timers("allow to proof for 1 1/2 hours")).toEqual(["1 1/2 hours → 1 hr 30 min"]);
    expect(timers("cook for 30 to 45 seconds on each side")).toEqual(["30 to 45 seconds → 30 sec"]);
    expect(timers("simmer for 1 to 1 1/2 hours or until tender")).toEqual(["1 to 1 1/2 hours → 1 hr"]);
    expect(timers("add water and cook for 15mins")).toEqual(["15mins → 15 min"]);
    expect(timers("Bake at 180ºC/160ºC fan/gas 4 for about 40 minutes")).toEqual(["40 minutes → 40 min"]);
    expect(timers("grill for 3 minutes per side, then rest 2 hours and 15 minutes")).toEqual(["3 minutes → 3 min", "2 hours and 15 minutes → 2 hr 15 min"]);
    expect(timers("Leave for half an hour, then stir for a minute")).toEqual(["half an hour → 30 min", "a minute → 1 min"]);
    expect(timers("a 15-minute rest")).toEqual(["15-minute → 15 min"]);
    expect(timers("Simmer 1½ hours")).toEqual(["1½ hours → 1 hr 30 min"]);
    expect(timers("30 seconds to 1 minute")).toEqual(["30 seconds to 1 minute → 30 sec"]);
    expect(timers("Boil 5 mins, then 2 hrs")).toEqual(["5 mins → 5 min", "2 hrs → 2 hr"]);
  });

  it("leaves amounts of anything else alone", () => {
    for (const text of [
      "Add 2 cups of flour",
      "Preheat the oven to 350F",
      "Heat to 180C / gas 4",
      "Beat 3 eggs with 1/2 tsp salt",
      "Serves 2 hungry people",
      "Cut into 2 inch pieces, 15 minced cloves",
      "Keep 10 secret ingredients",
      "Cook for a few minutes",
      "Cook for 0 minutes",
      "Turn the chicken a second time",
    ]) {
      expect(findDurations(text), text).toEqual([]);
    }
  });

  it("gives where each duration is written and how long its timer runs", () => {
    const text = "Simmer for 15 mins, then rest 1 hr 30 min.";
    expect(findDurations(text)).toEqual([
      { start: 11, end: 18, seconds: 900, label: "15 min" },
      { start: 30, end: 41, seconds: 5400, label: "1 hr 30 min" },
    ]);
  });

  it("names timers and writes what is left as a clock", () => {
    expect(durationLabel(900)).toBe("15 min");
    expect(durationLabel(5400)).toBe("1 hr 30 min");
    expect(durationLabel(90)).toBe("1 min 30 sec");
    expect(durationLabel(45)).toBe("45 sec");
    expect(durationLabel(3600)).toBe("1 hr");
    expect(formatClock(15 * 60 * 1000)).toBe("15:00");
    expect(formatClock(899_001)).toBe("15:00");
    expect(formatClock(899_000)).toBe("14:59");
    expect(formatClock(5_000)).toBe("00:05");
    expect(formatClock(-20)).toBe("00:00");
    expect(formatClock((3600 + 62) * 1000)).toBe("1:01:02");
  });
});

describe("ingredients a step mentions", () => {
  const noodles = ["Rice Noodles", "Spinach", "Beef (1 lb.)", "Eggs (3)", "Bell Pepper (1)", "Mushrooms", "Soy sauce", "Sugar", "Sesame oil", "Starch", "Garlic"];
  const mentioned = (step: string, lines = noodles) => ingredientsInStep(step, lines).map((index) => lines[index]);

  it("reads the name part of a line", () => {
    expect(ingredientName("Eggs (3)")).toBe("Eggs");
    expect(ingredientName("Beef (1 lb.)")).toBe("Beef");
    expect(ingredientName("2 cloves garlic, crushed")).toBe("garlic");
    expect(ingredientName("100g grated parmesan")).toMatch(/parmesan$/);
    expect(ingredientName("Rice Noodles")).toBe("Rice Noodles");
    expect(ingredientName("Salt, to taste")).toBe("Salt");
  });

  it("matches names case-insensitively, singular or plural", () => {
    expect(mentioned("Scramble and cook 3 eggs (like a pancake), then set aside.")).toEqual(["Eggs (3)"]);
    expect(mentioned("Slice bell peppers into strips, then sauté until slightly soft.")).toEqual(["Bell Pepper (1)"]);
    expect(mentioned("Slice MUSHROOM and cook until golden.")).toEqual(["Mushrooms"]);
    expect(mentioned("Add the egg")).toEqual(["Eggs (3)"]);
    expect(mentioned("Add 3 tomatoes", ["Tomato (1)", "Chillies (2)"])).toEqual(["Tomato (1)"]);
    expect(mentioned("Chop the chilli and the berries", ["Chillies (2)", "Berry (100g)"])).toEqual(["Chillies (2)", "Berry (100g)"]);
  });

  it("gives the lines in recipe order, each once", () => {
    expect(mentioned("Once everything is cooked, combine noodles, veggies, beef, and eggs in a pan.")).toEqual(["Rice Noodles", "Beef (1 lb.)", "Eggs (3)"]);
    expect(mentioned("Boil water and cook rice noodles according to package.")).toEqual(["Rice Noodles"]);
  });

  it("needs every word of a name, or a last word no other line ends in", () => {
    // "noodles" alone names Rice Noodles (the only line ending in it); "sauce" the Soy sauce.
    expect(mentioned("While noodles cook, mix up the sauce.")).toEqual(["Rice Noodles", "Soy sauce"]);
    // "oil" could be either oil: neither.
    expect(mentioned("Heat the oil", ["Olive oil", "Sesame oil"])).toEqual([]);
    expect(mentioned("Drizzle with olive oil", ["Olive oil", "Sesame oil"])).toEqual(["Olive oil"]);
    // "rice" is not the last word of "Rice Noodles": plain rice is something else.
    expect(mentioned("Rinse the rice")).toEqual([]);
    // Describing words do not have to be said: "Fresh basil" is basil.
    expect(mentioned("Tear in the basil", ["Fresh basil", "Ground beef (500g)"])).toEqual(["Fresh basil"]);
    expect(mentioned("Brown the beef", ["Fresh basil", "Ground beef (500g)"])).toEqual(["Ground beef (500g)"]);
  });

  it("does not match inside other words or from nothing", () => {
    expect(mentioned("Add the eggplant", ["Eggs (2)"])).toEqual([]);
    expect(mentioned("Stir well.")).toEqual([]);
    expect(mentioned("Stir in the salt", ["(2 tbsp)", ""])).toEqual([]);
  });
});

describe("step numbers and addresses", () => {
  it("reads ?step=, sending anything but a step of the recipe to the nearest one", () => {
    expect(readStep([], 5)).toEqual({ step: 1, redirect: false });
    expect(readStep(["3"], 5)).toEqual({ step: 3, redirect: false });
    expect(readStep(["5"], 5)).toEqual({ step: 5, redirect: false });
    expect(readStep(["6"], 5)).toEqual({ step: 5, redirect: true });
    expect(readStep(["999999999999999999999"], 5)).toEqual({ step: 5, redirect: true });
    expect(readStep(["0"], 5)).toEqual({ step: 1, redirect: true });
    expect(readStep(["-2"], 5)).toEqual({ step: 1, redirect: true });
    expect(readStep(["03"], 5)).toEqual({ step: 3, redirect: true });
    expect(readStep(["2.6"], 5)).toEqual({ step: 3, redirect: true });
    for (const garbage of ["", "two", "1e3", "0x2", "Infinity", "NaN", "3abc"]) expect(readStep([garbage], 5), garbage).toEqual({ step: 1, redirect: true });
    expect(readStep(["2", "4"], 5)).toEqual({ step: 2, redirect: true });
    expect(readStep(["7"], 0)).toEqual({ step: 0, redirect: false });
  });

  it("reads the amounts as the recipe page does, dropping what it cannot read", () => {
    const params = (search: string) => new URLSearchParams(search);
    expect(cookAmounts(4, params("serves=8"))).toEqual({ serves: 8, scale: null, factor: 2 });
    expect(cookAmounts(4, params("serves=0"))).toEqual({ serves: null, scale: null, factor: 1 });
    expect(cookAmounts(4, params("scale=2"))).toEqual({ serves: null, scale: null, factor: 1 });
    expect(cookAmounts(null, params("scale=1/2"))).toEqual({ serves: null, scale: "1/2", factor: 0.5 });
    expect(cookAmounts(null, params("scale=lots"))).toEqual({ serves: null, scale: null, factor: 1 });
    expect(cookAmounts(null, params("serves=3"))).toEqual({ serves: null, scale: null, factor: 1 });
  });

  it("builds the cook and recipe addresses with the amounts", () => {
    expect(cookPath("jd-R1")).toBe("/ReciPals/Recipes/jd-R1/Cook");
    expect(cookPath("jd-R1", { serves: 8, scale: null }, 2)).toBe("/ReciPals/Recipes/jd-R1/Cook?step=2&serves=8");
    expect(cookPath("a b", { serves: null, scale: "1/2" }, 1)).toBe("/ReciPals/Recipes/a%20b/Cook?step=1&scale=1%2F2");
    expect(recipePathWith("jd-R1", { serves: 8, scale: null })).toBe("/ReciPals/Recipes/jd-R1?serves=8");
    expect(recipePathWith("jd-R1", { serves: null, scale: null })).toBe("/ReciPals/Recipes/jd-R1");
  });

  it("fingerprints content: the same for the same, different for a change", () => {
    expect(contentVersion(["a", ["b"]])).toBe(contentVersion(["a", ["b"]]));
    expect(contentVersion(["a", ["b"]])).not.toBe(contentVersion(["a", ["c"]]));
    expect(contentVersion("x")).toMatch(/^[0-9a-f]{8}$/);
  });
});

// ---------------------------------------------------------------------------------------------
// The page's loader

type CookPage = Exclude<Awaited<ReturnType<typeof cookLoader>>, Response>;
type U = Awaited<ReturnType<typeof makeUser>>;
let chef: U;
let reader: U;
let recipeId: string;
let emptyId: string;

const STEPS = ["Boil the pasta for 10-12 minutes.", "Fry the garlic in the butter for 1 min.", "Toss the pasta with the garlic and eggs."];

beforeAll(async () => {
  chef = await makeUser();
  reader = await makeUser();
  recipeId = (await makeRecipeWithPost({ userId: chef.id, name: "Garlic Pasta" })).recipeId;
  await db.transaction().execute((trx) =>
    writeRecipeParts(trx, recipeId, {
      sections: [
        { title: "Pasta", ingredients: ["Spaghetti (200g)", "Eggs (2)"] },
        { title: "Sauce", ingredients: ["Garlic (2 cloves)", "Butter (30g)"] },
      ],
      steps: STEPS,
    }),
  );
  emptyId = (await makeRecipeWithPost({ userId: chef.id, name: "Nothing Yet" })).recipeId;
  await db.transaction().execute((trx) => writeRecipeParts(trx, emptyId, { steps: [] }));
});

const load = (rid: string, search = "", cookie?: string) =>
  settle(() => cookLoader(routeArgs(getRequest(`/ReciPals/Recipes/${rid}/Cook${search}`, cookie), { rid })));

describe("the cook page", () => {
  it("shows one step of the recipe with its count, its timers and the ingredients it mentions", async () => {
    const page = (await load(recipeId)) as CookPage;
    expect(page.recipe).toEqual({ id: recipeId, name: "Garlic Pasta" });
    expect(page.step).toBe(1);
    expect(page.total).toBe(3);
    expect(page.text).toBe(STEPS[0]);
    expect(page.durations.map((d) => d.label)).toEqual(["10 min"]);
    expect(page.mentioned).toEqual([]); // "pasta" names no line here
    expect(page.sections).toMatchObject([
      { title: "Pasta", lines: ["Spaghetti (200g)", "Eggs (2)"] },
      { title: "Sauce", lines: ["Garlic (2 cloves)", "Butter (30g)"] },
    ]);
    expect(page.links).toEqual({ previous: null, next: `/ReciPals/Recipes/${recipeId}/Cook?step=2`, back: `/ReciPals/Recipes/${recipeId}` });
    expect(page.offline).toMatchObject({ recipe: `/ReciPals/Recipes/${recipeId}`, steps: 3 });
  });

  it("pages through the steps: Previous and Next only where there is a step", async () => {
    const middle = (await load(recipeId, "?step=2")) as CookPage;
    expect(middle.text).toBe(STEPS[1]);
    expect(middle.mentioned).toEqual(["Garlic (2 cloves)", "Butter (30g)"]);
    expect(middle.durations.map((d) => d.label)).toEqual(["1 min"]);
    expect(middle.links.previous).toBe(`/ReciPals/Recipes/${recipeId}/Cook?step=1`);
    expect(middle.links.next).toBe(`/ReciPals/Recipes/${recipeId}/Cook?step=3`);
    const last = (await load(recipeId, "?step=3")) as CookPage;
    expect(last.mentioned).toEqual(["Eggs (2)", "Garlic (2 cloves)"]);
    expect(last.links.next).toBeNull();
    expect(last.links.previous).toBe(`/ReciPals/Recipes/${recipeId}/Cook?step=2`);
    // The version of what the pages show is the same on every step.
    expect(last.offline).toEqual(middle.offline);
  });

  it("redirects a step out of range, zero, negative or not a number to the nearest step, keeping the amounts", async () => {
    const cook = `/ReciPals/Recipes/${recipeId}/Cook`;
    expectRedirect(await load(recipeId, "?step=4"), `${cook}?step=3`);
    expectRedirect(await load(recipeId, "?step=99&serves=6"), `${cook}?step=3&serves=6`);
    expectRedirect(await load(recipeId, "?step=0"), `${cook}?step=1`);
    expectRedirect(await load(recipeId, "?step=-1&serves=4"), `${cook}?step=1&serves=4`);
    expectRedirect(await load(recipeId, "?step=abc"), `${cook}?step=1`);
    expectRedirect(await load(recipeId, "?step="), `${cook}?step=1`);
    expectRedirect(await load(recipeId, "?step=02"), `${cook}?step=2`);
    // Amounts it cannot read are dropped on the way.
    expectRedirect(await load(recipeId, "?step=9&serves=lots"), `${cook}?step=3`);
  });

  it("shows the ingredients at the servings chosen on the recipe page and carries them in every link", async () => {
    // The factory's recipe serves 2: ?serves=4 doubles every line.
    const page = (await load(recipeId, "?step=2&serves=4")) as CookPage;
    expect(page.sections.map((s) => s.lines)).toEqual([
      ["Spaghetti (400g)", "Eggs (4)"],
      ["Garlic (4 cloves)", "Butter (60g)"],
    ]);
    expect(page.mentioned).toEqual(["Garlic (4 cloves)", "Butter (60g)"]);
    expect(page.amountsNote).toBe("For 4 servings");
    expect(page.links).toEqual({
      previous: `/ReciPals/Recipes/${recipeId}/Cook?step=1&serves=4`,
      next: `/ReciPals/Recipes/${recipeId}/Cook?step=3&serves=4`,
      back: `/ReciPals/Recipes/${recipeId}?serves=4`,
    });
    const plain = (await load(recipeId, "?step=2")) as CookPage;
    expect(plain.amountsNote).toBe("For 2 servings");
  });

  it("takes a multiplier for a recipe without servings", async () => {
    await db.updateTable("recipes").set({ serves: null }).where("id", "=", recipeId).execute();
    try {
      const page = (await load(recipeId, "?step=1&scale=3")) as CookPage;
      expect(page.sections[0]!.lines).toEqual(["Spaghetti (600g)", "Eggs (6)"]);
      expect(page.amountsNote).toBe("At 3×");
      expect(page.links.next).toBe(`/ReciPals/Recipes/${recipeId}/Cook?step=2&scale=3`);
      expect(page.links.back).toBe(`/ReciPals/Recipes/${recipeId}?scale=3`);
      const unread = (await load(recipeId, "?scale=lots")) as CookPage;
      expect(unread.sections[0]!.lines).toEqual(["Spaghetti (200g)", "Eggs (2)"]);
      expect(unread.amountsNote).toBeNull();
    } finally {
      await db.updateTable("recipes").set({ serves: 2 }).where("id", "=", recipeId).execute();
    }
  });

  it("shows step temperatures and amounts in the reader's unit system when a valid one is chosen", async () => {
    const oven = (await makeRecipeWithPost({ userId: chef.id, name: "Oven Test" })).recipeId;
    await db.transaction().execute((trx) =>
      writeRecipeParts(trx, oven, { sections: [{ title: "Main", ingredients: ["Flour (200g)"] }], steps: ["Bake at 180C for 20 mins."] }),
    );
    const us = (await load(oven, "", "recipals_units=us")) as CookPage;
    // The conversion itself is app/lib/units.ts's (tested there): here, that it is applied.
    expect(us.text).toMatch(/^Bake at \d{3}°F for 20 mins\.$/);
    expect(us.durations.map((d) => d.label)).toEqual(["20 min"]);
    expect(us.sections[0]!.lines[0]).not.toBe("Flour (200g)");
    for (const cookie of ["recipals_units=imperial", "recipals_units=", "recipals_units=metric"]) {
      const page = (await load(oven, "", cookie)) as CookPage;
      expect(page.text, cookie).toBe("Bake at 180C for 20 mins.");
      expect(page.sections[0]!.lines[0], cookie).toBe("Flour (200g)");
    }
  });

  it("says a recipe without steps has none, and never redirects it", async () => {
    const page = (await load(emptyId, "?step=5")) as CookPage;
    expect(page.total).toBe(0);
    expect(page.step).toBe(0);
    expect(page.text).toBe("");
    expect(page.links).toEqual({ previous: null, next: null, back: `/ReciPals/Recipes/${emptyId}` });
  });

  it("answers 404 for an unknown recipe", async () => {
    const result = (await load("no-such-recipe")) as Response;
    expect(result.status).toBe(404);
    expect(await result.text()).toBe("Recipe not found.");
  });

  it("answers 404 as the recipe page does when the creator blocked the viewer (before reading the step)", async () => {
    const blockedReader = await makeUser();
    const outcome = await setBlock({ actor: chef, targetId: blockedReader.id, blocked: true });
    expect(outcome.ok).toBe(true);
    const cookie = await signedInCookie(blockedReader.id);
    for (const search of ["", "?step=2", "?step=99"]) {
      const result = (await load(recipeId, search, cookie)) as Response;
      expect(result.status, search).toBe(404);
      expect(await result.text()).toBe("This recipe is not available.");
    }
    // Someone else still cooks it.
    expect(((await load(recipeId, "", await signedInCookie(reader.id))) as CookPage).total).toBe(3);
  });

  it("answers 404 for a suspended creator's recipe", async () => {
    const gone = await makeUser();
    const theirs = (await makeRecipeWithPost({ userId: gone.id, name: "Suspended Stew" })).recipeId;
    await db.updateTable("users").set({ suspended_at: new Date().toISOString() }).where("id", "=", gone.id).execute();
    const result = (await load(theirs, "?step=1", await signedInCookie(reader.id))) as Response;
    expect(result.status).toBe(404);
    expect(await result.text()).toBe("This recipe is not available.");
    expect(((await load(theirs)) as Response).status).toBe(404);
  });
});

describe("the cook page as served", () => {
  // The real request handler over the real route modules: what a browser without JavaScript gets.
  const handle = createRequestHandler(
    serverBuildOf(entry, {
      root: { path: "", module: rootRoute },
      "routes/ReciPals": { parentId: "root", path: "ReciPals", module: layoutRoute },
      "routes/ReciPals_.Recipes.$rid_.Cook": { parentId: "root", path: "ReciPals/Recipes/:rid/Cook", module: cookRoute },
    }),
    "production",
  );

  it("is a whole page: the step in words with its durations marked, plain links, no timer buttons before JavaScript", async () => {
    const response = await handle(getRequest(`/ReciPals/Recipes/${recipeId}/Cook?step=2&serves=4`));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<title>Cook: Garlic Pasta</title>");
    expect(html).toMatch(/<h2[^>]*>Step <!-- -->2<!-- --> of <!-- -->3<\/h2>/);
    expect(html).toContain('Fry the garlic in the butter for <strong class="cook__duration">1 min</strong>.');
    expect(html).toContain(`href="/ReciPals/Recipes/${recipeId}/Cook?step=1&amp;serves=4"`);
    expect(html).toContain(`href="/ReciPals/Recipes/${recipeId}/Cook?step=3&amp;serves=4"`);
    expect(html).toContain(`href="/ReciPals/Recipes/${recipeId}?serves=4"`);
    expect(html).toMatch(/>Back to recipe</);
    expect(html).toContain("Garlic (4 cloves)");
    expect(html).toContain('data-cook-steps="3"');
    expect(html).toMatch(/data-cook-version="[0-9a-f]{8}"/);
    expect(html).not.toContain("Start timer");
    expect(html).not.toContain("Keep screen on");
  });

  it("redirects a step out of range, and says when a recipe has no steps", async () => {
    const moved = await handle(getRequest(`/ReciPals/Recipes/${recipeId}/Cook?step=7`));
    expect([302, 303]).toContain(moved.status);
    expect(moved.headers.get("Location")).toBe(`/ReciPals/Recipes/${recipeId}/Cook?step=3`);
    const empty = await (await handle(getRequest(`/ReciPals/Recipes/${emptyId}/Cook`))).text();
    expect(empty).toContain("This recipe has no steps yet.");
    expect(empty).toContain(`href="/ReciPals/Recipes/${emptyId}"`);
    expect(empty).not.toContain("Next step");
  });
});
