import { expect, test, type Page } from "@playwright/test";

// The e2e server holds the 303 sample recipes: "Yaki Udon" (recipeBot-R302, tag LowCalorie),
// "Battenberg Cake" (the only one with marzipan), and users jasminduong09 (Jasmin), danieljacob
// (Danny) and recipe_bot. Every test runs with JavaScript on (as you type) and off (form submit).

const searchBox = (page: Page) => page.getByPlaceholder("Search recipes, ingredients, users...");
const recipesSection = (page: Page) => page.getByRole("region", { name: "Recipes" });
const peopleSection = (page: Page) => page.getByRole("region", { name: "People" });
const recipeCards = (page: Page) => recipesSection(page).getByRole("listitem");

/** With JavaScript, waits until the page is hydrated: typing earlier searches nothing. */
async function openSearch(page: Page, url: string) {
  await page.goto(url);
  if (test.info().project.name === "js") await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/** Types a query the way each kind of browser searches: as you type with JavaScript, else the button. */
async function search(page: Page, query: string, javaScriptEnabled: boolean) {
  await searchBox(page).fill(query);
  if (!javaScriptEnabled) await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]q=${encodeURIComponent(query).replace(/%20/g, "\\+")}(&|$)`));
  await expect(searchBox(page)).toHaveValue(query);
}

test.describe("search", () => {
  test("finds a recipe by name and opens it", async ({ page, javaScriptEnabled }) => {
    await openSearch(page, "/ReciPals/Search");
    await expect(page.getByRole("heading", { name: "People" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Recipes" })).toBeVisible();
    await search(page, "yaki udon", javaScriptEnabled);
    const first = recipeCards(page).first();
    await expect(first).toContainText("Yaki Udon");
    await expect(first).toContainText("recipe_bot");
    // The bot's recipe has no total time: the card leaves the line out rather than invent "0+ min".
    await expect(first).not.toContainText("Total Time");
    await expect(first).toContainText("Vegetarian | Japanese");
    const photo = first.getByRole("img", { name: "Yaki Udon" });
    await expect(photo).toHaveAttribute("loading", "lazy");
    await expect(photo).toHaveAttribute("width", /\d+/);
    await expect(photo).toHaveAttribute("height", /\d+/);
    await first.getByRole("link").click();
    await expect(page).toHaveURL("/ReciPals/Recipes/recipeBot-R302");
  });

  test("matches ingredients and tags, from a shared link", async ({ page }) => {
    await openSearch(page, "/ReciPals/Search?q=marzipan");
    await expect(recipeCards(page)).toHaveCount(1);
    await expect(recipeCards(page).first()).toContainText("Battenberg Cake");
    await expect(searchBox(page)).toHaveValue("marzipan");
    await openSearch(page, "/ReciPals/Search?q=LowCalorie");
    await expect(recipesSection(page).getByRole("link", { name: /Yaki Udon/ })).toBeVisible();
  });

  test("finds people by part of their username or name", async ({ page, javaScriptEnabled }) => {
    await openSearch(page, "/ReciPals/Search");
    await search(page, "duong", javaScriptEnabled);
    const person = peopleSection(page).getByRole("link", { name: /jasminduong09/ });
    await expect(person).toContainText("Jasmin");
    await expect(person).toHaveAttribute("href", "/ReciPals/Account/Profile/123");
    await expect(person.locator("img")).toHaveAttribute("src", /./);
    await search(page, "dan", javaScriptEnabled);
    await expect(peopleSection(page).getByRole("link", { name: /danieljacob/ })).toContainText("Danny");
    await expect(peopleSection(page).getByRole("link", { name: /jasminduong09/ })).toHaveCount(0);
  });

  test("says so when nothing matches", async ({ page, javaScriptEnabled }) => {
    await openSearch(page, "/ReciPals/Search");
    await search(page, "xylophone", javaScriptEnabled);
    await expect(recipesSection(page)).toContainText('No recipes found matching "xylophone"');
    await expect(recipeCards(page)).toHaveCount(0);
  });

  test("FTS syntax, emoji and very long queries never break the page", async ({ page }) => {
    for (const q of ['"', "NEAR(", "-*", "yaki*", "(udon", "🍜", "寿司", "x".repeat(1000), "   "]) {
      const response = await page.goto(`/ReciPals/Search?q=${encodeURIComponent(q)}`);
      expect(response?.status(), q).toBe(200);
      await expect(page.getByRole("alert")).toHaveCount(0);
      await expect(page.getByRole("heading", { name: "Recipes" })).toBeVisible();
    }
    await page.goto(`/ReciPals/Search?q=${encodeURIComponent('"yaki udon" -(NEAR')}`);
    await expect(recipesSection(page)).toContainText('No recipes found matching ""yaki udon" -(NEAR"');
  });

  test("an empty search lists every recipe in random order, a page at a time", async ({ page, javaScriptEnabled }) => {
    await openSearch(page, "/ReciPals/Search");
    await expect(recipeCards(page)).toHaveCount(12);
    const first = await recipeCards(page).allTextContents();
    await expect(peopleSection(page).getByRole("link")).toHaveCount(0);
    await page.getByRole("link", { name: "Load more" }).click();
    if (javaScriptEnabled) {
      await expect(recipeCards(page)).toHaveCount(24);
      expect(page.url()).not.toContain("page=2");
      expect(new Set(await recipeCards(page).allTextContents()).size).toBe(24);
    } else {
      await expect(page).toHaveURL(/\?page=2&seed=\d+$/);
      await expect(recipeCards(page)).toHaveCount(12);
      const second = await recipeCards(page).allTextContents();
      expect(second.filter((card) => first.includes(card))).toEqual([]);
    }
  });
});

test.describe("search with JavaScript", () => {
  test.beforeEach(({ javaScriptEnabled }) => test.skip(!javaScriptEnabled, "as-you-type needs JavaScript"));

  test("searches as you type, keeps the URL in step, and Back returns to the start", async ({ page }) => {
    await openSearch(page, "/ReciPals/Search");
    await expect(recipeCards(page)).toHaveCount(12);
    await searchBox(page).pressSequentially("teriyaki", { delay: 60 });
    await expect(page).toHaveURL(/\?q=teriyaki$/);
    await expect(recipesSection(page).getByRole("link", { name: /Honey Teriyaki Salmon/ })).toBeVisible();
    await expect(recipesSection(page).getByRole("link", { name: /Teriyaki Chicken Casserole/ })).toBeVisible();
    await expect(searchBox(page)).toBeFocused();
    // One history entry for the whole typed query.
    await page.goBack();
    await expect(page).toHaveURL(/\/ReciPals\/Search$/);
    await expect(searchBox(page)).toHaveValue("");
    await page.goForward();
    await expect(page).toHaveURL(/\?q=teriyaki$/);
    await expect(searchBox(page)).toHaveValue("teriyaki");
  });

  test("a link to Search from the Search page empties the box with the results; the layout is not reloaded while typing", async ({ page }) => {
    await openSearch(page, "/ReciPals/Search");
    const dataAsked: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes(".data")) dataAsked.push(new URL(request.url()).searchParams.get("_routes") ?? "all");
    });
    await searchBox(page).fill("udon");
    await expect(recipeCards(page).first()).toContainText("Yaki Udon");
    // Only the Search page's own data was asked for, not the root's (who is signed in, unread count).
    expect(dataAsked.length).toBeGreaterThan(0);
    for (const routes of dataAsked) expect(routes).toBe("routes/ReciPals.Search");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Search" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Search$/);
    await expect(searchBox(page)).toHaveValue("");
    await expect(recipeCards(page)).toHaveCount(12);
  });

  test("a stale answer never replaces a newer one", async ({ page }) => {
    await openSearch(page, "/ReciPals/Search");
    let first = true;
    await page.route("**/ReciPals/Search.data*", async (route) => {
      // The first search answers slowly; the second one overtakes it.
      if (first && route.request().url().includes("q=marzipan")) {
        first = false;
        await new Promise((resolve) => setTimeout(resolve, 1500));
      }
      await route.continue().catch(() => {});
    });
    await searchBox(page).fill("marzipan");
    await page.waitForTimeout(400);
    await searchBox(page).fill("yaki udon");
    await expect(page).toHaveURL(/\?q=yaki\+udon$/);
    await expect(recipeCards(page).first()).toContainText("Yaki Udon");
    await page.waitForTimeout(1500);
    await expect(page).toHaveURL(/\?q=yaki\+udon$/);
    await expect(recipeCards(page).first()).toContainText("Yaki Udon");
    await expect(recipesSection(page)).not.toContainText("Battenberg");
  });

  test("shows 'Loading users...' only when the people search is slow", async ({ page }) => {
    await openSearch(page, "/ReciPals/Search");
    await searchBox(page).fill("jasmin");
    await expect(peopleSection(page).getByRole("link", { name: /jasminduong09/ })).toBeVisible();
    await expect(page.getByText("Loading users...")).toHaveCount(0);

    await page.route("**/ReciPals/Search.data*", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await route.continue().catch(() => {});
    });
    await searchBox(page).fill("danny");
    await expect(page.getByText("Loading users...")).toBeVisible();
    await expect(peopleSection(page).getByRole("link", { name: /danieljacob/ })).toBeVisible();
    await expect(page.getByText("Loading users...")).toHaveCount(0);
  });

  test("a failed search shows 'Search failed' in an alert and recovers", async ({ page }) => {
    await openSearch(page, "/ReciPals/Search");
    await page.route("**/ReciPals/Search.data*", (route) => route.abort());
    await searchBox(page).fill("udon");
    await expect(page.getByRole("alert")).toHaveText("Search failed");
    await expect(searchBox(page)).toBeVisible();
    await page.unroute("**/ReciPals/Search.data*");
    await searchBox(page).fill("yaki udon");
    await expect(recipeCards(page).first()).toContainText("Yaki Udon");
    await expect(page.getByRole("alert")).toHaveCount(0);
  });
});
