import { expect, test } from "@playwright/test";

import { openPage, readDb, signInNewUser } from "../support/e2e";

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
    await openPage(page, "/ReciPals/Recipes/jd-R1");
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

test.describe("multiplier for a recipe without servings", () => {
  // "Escovitch Fish" (recipeBot-R100): a sample recipe with no stated servings.
  const RECIPE = "/ReciPals/Recipes/recipeBot-R100";

  test("½× 2× 3× and any other number scale the lines; a number it cannot read is said", async ({ page, javaScriptEnabled }) => {
    await page.goto(RECIPE);
    if (javaScriptEnabled) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    const ingredients = page.getByRole("region", { name: "Ingredients" });
    await expect(ingredients.getByText("Red Snapper (2 Pounds)")).toBeVisible();
    await expect(ingredients.getByRole("group", { name: "Servings" })).toHaveCount(0);
    const multiplier = ingredients.getByRole("group", { name: "Multiplier" });
    // With JavaScript it rescales at once, without asking the server again.
    const asked: string[] = [];
    page.on("request", (request) => asked.push(request.url()));
    await multiplier.getByRole("link", { name: "2×" }).click();
    await expect(ingredients.getByText("Red Snapper (4 Pounds)")).toBeVisible();
    await expect(ingredients.getByText("Garlic (2 cloves peeled crushed)")).toBeVisible();
    await expect(multiplier.getByRole("link", { name: "2×" })).toHaveAttribute("aria-current", "true");
    await expect(page).toHaveURL(`${RECIPE}?scale=2`);
    if (javaScriptEnabled) expect(asked.filter((url) => url.includes("/ReciPals/"))).toEqual([]);
    await multiplier.getByRole("link", { name: "½×" }).click();
    await expect(ingredients.getByText("Red Snapper (1 Pound)")).toBeVisible();
    await ingredients.getByLabel("Other").fill("1.5");
    await ingredients.getByRole("button", { name: "Apply" }).click();
    await expect(ingredients.getByText("Red Snapper (3 Pounds)")).toBeVisible();
    await expect(page).toHaveURL(`${RECIPE}?scale=1.5`);
    await ingredients.getByLabel("Other").fill("lots");
    await ingredients.getByRole("button", { name: "Apply" }).click();
    await expect(ingredients.getByRole("alert")).toHaveText("The multiplier must be a number from ¼ to 20, such as 1.5 or 1/2.");
    await expect(ingredients.getByText("Red Snapper (2 Pounds)")).toBeVisible();
  });

  test("the shopping list takes the scaled amounts and says the multiplier", async ({ page, javaScriptEnabled }) => {
    await signInNewUser(page, "scaler");
    await page.goto(`${RECIPE}?scale=3`);
    if (javaScriptEnabled) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    await page.getByRole("button", { name: "Add to shopping list" }).click();
    await expect(page.getByText("Added to your")).toBeVisible();
    await page.goto("/ReciPals/ShoppingList");
    await expect(page.getByRole("heading", { name: "Escovitch Fish · 3×" })).toBeVisible();
    await expect(page.getByText("Red Snapper (6 Pounds)")).toBeVisible();
    await expect(page.getByText("Thyme (6 sprigs)")).toBeVisible();
  });
});

test("quantities written quantity first scale and add up on the shopping list like the sample data's", async ({ page, javaScriptEnabled }) => {
  await signInNewUser(page, "writer");
  // Two recipes as people type them (through the JSON API, as the original client does).
  const create = async (name: string, serves: number, lines: string[]) => {
    const answer = await page.request.post("/api/recipes", {
      data: { name, description: "Written quantity first.", serves, steps: ["Cook."], ingredients_sec: [{ title: "Main", ingredients: lines }] },
    });
    expect(answer.status()).toBe(201);
    return ((await answer.json()) as { recipe_id: string }).recipe_id;
  };
  const omelette = await create("Two-way omelette", 2, ["2 eggs", "100 g cheese", "Eggs (2)", "Cheese (100g)", "2-3 cloves garlic, crushed", "a 400g tin of tomatoes"]);
  const frittata = await create("Quick frittata", 1, ["3 eggs", "Tomatoes (1 x 400g tin)"]);

  // On a slow phone the quantity reader (loaded on the first change) is still on its way when
  // + is pressed again: both presses count. (The reader is the module `~/lib/rescale` the recipe
  // page imports on its first change.)
  let heldBack = 0;
  await page.route("**/build/_shared/rescale-*.js", async (route) => {
    heldBack += 1;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await route.continue();
  });
  await page.goto(`/ReciPals/Recipes/${omelette}`);
  if (javaScriptEnabled) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  const ingredients = page.getByRole("region", { name: "Ingredients" });
  for (let i = 0; i < 2; i++) await ingredients.getByRole("link", { name: "More servings" }).click();
  await expect(ingredients.getByText("4 servings")).toBeVisible();
  if (javaScriptEnabled) await expect(page).toHaveURL(/\?serves=4$/);
  expect(heldBack).toBe(javaScriptEnabled ? 1 : 0);
  await expect(ingredients.getByRole("listitem")).toHaveText([
    "4 eggs",
    "200 g cheese",
    "Eggs (4)",
    "Cheese (200g)",
    "4-6 cloves garlic, crushed",
    "2 x 400g tins of tomatoes",
  ]);
  await page.getByRole("button", { name: "Add to shopping list" }).click();
  await expect(page.getByText("Added to your")).toBeVisible();
  await page.goto(`/ReciPals/Recipes/${frittata}`);
  if (javaScriptEnabled) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await page.getByRole("button", { name: "Add to shopping list" }).click();
  await expect(page.getByText("Added to your")).toBeVisible();

  await page.goto("/ReciPals/ShoppingList?view=item");
  await expect(page.getByRole("list", { name: "Items" }).getByRole("listitem")).toHaveText(["Cheese (400 g)", "Eggs (11)", "Tomatoes (3 x 400g tin)"]);
  // A range is never guessed at: shown as written, under its recipe.
  await expect(page.getByRole("region", { name: "As written" }).getByText("4-6 cloves garlic, crushed")).toBeVisible();
});

test("prints the recipe alone", async ({ page }) => {
  await page.goto("/ReciPals/Recipes/jd-R1");
  await page.emulateMedia({ media: "print" });
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
  await expect(page.getByRole("heading", { name: /^Comments/ })).toBeHidden();
  await expect(page.getByRole("heading", { name: "Instructions" })).toBeVisible();
  await expect(page.getByRole("group", { name: "Servings" })).toBeHidden();
});
