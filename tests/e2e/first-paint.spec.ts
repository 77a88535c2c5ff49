import { expect, test, type Page } from "@playwright/test";

import { failOnBrowserErrors, openPage, SEEDED_USER, signInAs } from "../support/e2e";

// No stylesheet request before the first paint (docs/rules.md#first-paint): a page writes the
// site-wide stylesheet and its routes' own into <head>; a page reached later by a client
// navigation links its own, and is styled when it shows. With JavaScript on and off.

failOnBrowserErrors();

/** What a rule of each page's own stylesheet does to its layout. */
const OWN_STYLES: [string, string, string, string][] = [
  ["/ReciPals/Home", ".feed", "display", "flex"], // app/styles/feed.css
  ["/ReciPals/Recipes/recipeBot-R12", ".recipe__photo-frame", "border-top-left-radius", "12px"], // recipe.css
  [`/ReciPals/Account/Profile/recipeBot`, ".profile-grid", "display", "grid"], // profile.css
  ["/ReciPals/Search?q=chicken", ".search-form", "display", "flex"], // search.css
];

const styleOf = (page: Page, selector: string, property: string) =>
  page.locator(selector).first().evaluate((element, name) => getComputedStyle(element).getPropertyValue(name), property);

test("Home, a recipe, a profile and Search are styled without a stylesheet request", async ({ page }) => {
  await signInAs(page, SEEDED_USER);
  const stylesheets: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "stylesheet") stylesheets.push(request.url());
  });
  for (const [path, selector, property, value] of OWN_STYLES) {
    await openPage(page, path);
    expect(await styleOf(page, selector, property), `${path}: ${selector}`).toBe(value);
    // The site-wide stylesheet first, then the page's own, and nothing linked.
    const inline = await page.locator("head style[data-href]").evaluateAll((styles) => styles.map((style) => style.getAttribute("data-href")));
    expect(inline[0], path).toMatch(/^\/build\/_assets\/global-[A-Z0-9]+\.css$/);
    expect(inline.length, path).toBe(2);
    await expect(page.locator('head link[rel="stylesheet"]'), path).toHaveCount(0);
  }
  expect(stylesheets).toEqual([]);
});

test("a page reached from another is styled when it shows, and so is the first page on the way back", async ({ page, javaScriptEnabled }) => {
  await signInAs(page, SEEDED_USER);
  await openPage(page, "/ReciPals/Home");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Search" }).click();
  await expect(page).toHaveURL(/\/ReciPals\/Search$/);
  // With JavaScript the page came by a client navigation: its stylesheet was linked and loaded first.
  expect(await styleOf(page, ".search-form", "display")).toBe("flex");
  if (javaScriptEnabled) await expect(page.locator('head link[rel="stylesheet"][href*="/search-"]')).toHaveCount(1);
  await page.goBack();
  await expect(page).toHaveURL(/\/ReciPals\/Home$/);
  expect(await styleOf(page, ".feed", "display")).toBe("flex");
  expect(await styleOf(page, ".photo-frame", "overflow")).toBe("hidden"); // the site-wide stylesheet
});
