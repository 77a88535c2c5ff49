import { expect, test } from "@playwright/test";

import { readDb } from "./utils";

test.describe("share previews and structured data", () => {
  test("seeded recipe pages carry Recipe JSON-LD matching the recipe, and Open Graph tags", async ({ request, baseURL }) => {
    const ids = readDb((db) => db.prepare("select id from recipes order by seq limit 25").pluck().all() as string[]);
    expect(ids.length).toBe(25);
    for (const id of ids) {
      const html = await (await request.get(`/ReciPals/Recipes/${id}`)).text();
      const json = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html)?.[1];
      expect(json, id).toBeTruthy();
      const ld = JSON.parse(json!);
      const row = readDb((db) => ({
        name: db.prepare("select name from recipes where id = ?").pluck().get(id) as string,
        lines: db
          .prepare("select l.text from ingredient_lines l join ingredient_sections s on s.id = l.section_id where s.recipe_id = ? order by s.position, l.position")
          .pluck()
          .all(id) as string[],
        steps: db.prepare("select text from steps where recipe_id = ? order by position").pluck().all(id) as string[],
      }));
      expect(ld["@type"]).toBe("Recipe");
      expect(ld.name).toBe(row.name);
      expect(ld.recipeIngredient).toEqual(row.lines);
      expect(ld.recipeInstructions.map((s: { text: string }) => s.text)).toEqual(row.steps);
      expect(ld.recipeInstructions.every((s: { "@type": string }) => s["@type"] === "HowToStep")).toBe(true);
      expect(ld.image[0]).toMatch(/^https?:\/\//);
      expect(html).toContain(`<meta property="og:url" content="${baseURL}/ReciPals/Recipes/${id}"`);
      expect(html).toMatch(/<meta property="og:image" content="https?:\/\//);
    }
    const sample = await (await request.get("/ReciPals/Recipes/jd-R1")).text();
    expect(sample).toContain('"totalTime":"PT1H20M"');
    expect(sample).toContain('"recipeYield":"4"');
  });
});

test.describe("servings", () => {
  test("rescales the ingredient quantities", async ({ page, javaScriptEnabled }) => {
    await page.goto("/ReciPals/Recipes/jd-R1");
    const ingredients = page.getByRole("region", { name: "Ingredients" });
    await expect(ingredients.getByText("Eggs (3)")).toBeVisible();
    await expect(ingredients.getByText("4 servings")).toBeVisible();
    for (let i = 0; i < 4; i++) await ingredients.getByRole("link", { name: "More servings" }).click();
    await expect(ingredients.getByText("8 servings")).toBeVisible();
    await expect(ingredients.getByText("Eggs (6)")).toBeVisible();
    await expect(ingredients.getByText("Beef (2 lb.)")).toBeVisible();
    if (!javaScriptEnabled) await expect(page).toHaveURL(/\?serves=8$/);
    await page.goto("/ReciPals/Recipes/jd-R1?serves=2");
    await expect(page.getByRole("region", { name: "Ingredients" }).getByText("Eggs (1½)")).toBeVisible();
  });
});

test("prints the recipe alone", async ({ page }) => {
  await page.goto("/ReciPals/Recipes/jd-R1");
  await page.emulateMedia({ media: "print" });
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
  await expect(page.getByRole("heading", { name: /^Comments/ })).toBeHidden();
  await expect(page.getByRole("heading", { name: "Instructions" })).toBeVisible();
  await expect(page.getByRole("group", { name: "Servings" })).toBeHidden();
});
