import crypto from "node:crypto";

import { beforeAll, describe, expect, it } from "vitest";

import { action as recipeAction, loader as recipeLoader } from "~/routes/ReciPals.Recipes.$rid";
import { db } from "~/server/db/connection.server";
import { writeRecipeParts } from "~/server/queries/recipe-writes.server";
import { nextSeq, nowIso } from "~/server/queries/seq.server";

import { cookiesFrom, dataOf, expectRedirect, formRequest, getRequest, makeUser, routeArgs, settle } from "../support/app";

// The recipe page's Metric / US choice (docs/rules.md#units): a cookie set by a plain form, the
// lines and the steps' temperatures written by the server, composed with the servings.

let recipeId: string;

beforeAll(async () => {
  const chef = await makeUser();
  recipeId = crypto.randomUUID();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("recipes")
      .values({ id: recipeId, user_created: chef.id, name: "Units Cake", description: "", total_time: "", serves: 4, photo: "", created_at: nowIso(), seq: nextSeq(trx, "recipes") })
      .execute();
    await writeRecipeParts(trx, recipeId, {
      tags: [],
      sections: [{ title: "Main Ingredients", ingredients: ["Butter (250 g)", "Milk (1 cup)", "Eggs (3)", "A pinch of salt"] }],
      steps: ["Preheat the oven to 180C.", "Bake for 30 minutes."],
    });
  });
});

type Page = { shown: { sections: string[][]; steps: string[] }; units: string | null };
const page = async (query = "", cookie?: string) => (await settle(() => recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipeId}${query}`, cookie), { rid: recipeId })))) as Page;
const choose = (fields: Record<string, string>) => settle(() => recipeAction(routeArgs(formRequest(`/ReciPals/Recipes/${recipeId}`, { intent: "units", ...fields }), { rid: recipeId })));

describe("Metric / US on the recipe page", () => {
  it("shows amounts as written until a visitor chooses", async () => {
    const plain = await page();
    expect(plain.units).toBeNull();
    expect(plain.shown.sections[0]).toEqual(["Butter (250 g)", "Milk (1 cup)", "Eggs (3)", "A pinch of salt"]);
    expect(plain.shown.steps[0]).toBe("Preheat the oven to 180C.");
  });

  it("US: remembered in a cookie, back on the same servings; lines and oven temperature converted, the rest as written", async () => {
    const answer = expectRedirect(await choose({ units: "us", serves: "8" }), `/ReciPals/Recipes/${recipeId}?serves=8#ingredients-heading`);
    expect(answer.headers.get("Set-Cookie")).toMatch(/^recipals_units=us;.*Max-Age=31536000/);
    const cookie = cookiesFrom(answer);
    const us = await page("?serves=8", cookie);
    expect(us.units).toBe("us");
    // Twice the recipe's 4 servings: 500 g of butter in pounds, 2 cups of milk, 6 eggs (the pinch scales as a word).
    expect(us.shown.sections[0]).toEqual(["Butter (1 lb)", "Milk (2 cups)", "Eggs (6)", "2 pinches of salt"]);
    expect(us.shown.steps).toEqual(["Preheat the oven to 350°F.", "Bake for 30 minutes."]);
  });

  it("Metric: cups become millilitres", async () => {
    const cookie = cookiesFrom(expectRedirect(await choose({ units: "metric" }), `/ReciPals/Recipes/${recipeId}#ingredients-heading`));
    const metric = await page("", cookie);
    expect(metric.shown.sections[0]).toEqual(["Butter (250 g)", "Milk (240 ml)", "Eggs (3)", "A pinch of salt"]);
    expect(metric.shown.steps[0]).toBe("Preheat the oven to 180C.");
  });

  it("anything but Metric or US: 400 'Choose Metric or US.', no cookie", async () => {
    for (const units of ["imperial", "", "US", "metric "]) {
      const refused = await choose({ units });
      expect(dataOf(refused)).toEqual({ status: 400, data: { unitsError: "Choose Metric or US." } });
      expect(refused instanceof Response ? refused.headers.get("Set-Cookie") : null).toBeNull();
    }
    // A cookie holding something we never set reads as no choice.
    expect((await page("", "recipals_units=kelvin")).units).toBeNull();
  });
});
