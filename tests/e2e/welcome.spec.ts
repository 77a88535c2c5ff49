import { expect, test } from "@playwright/test";

import { failOnBrowserErrors, openPage, signInNewUser } from "../support/e2e";

// A visitor's Home says what ReciPals is, with Sign up and Sign in; a photo that cannot load shows
// its recipe's initial on a tinted tile (docs/rules.md#home-and-post-cards).

failOnBrowserErrors();

test("a visitor is welcomed on Home with Sign up and Sign in; a signed-in person is not", async ({ page }) => {
  await openPage(page, "/ReciPals/Home");
  const welcome = page.getByRole("region", { name: "Welcome" });
  await expect(welcome).toContainText("ReciPals is where home cooks share their recipes");
  await expect(welcome.getByRole("link", { name: "Sign up" })).toHaveAttribute("href", "/ReciPals/Account/Signup");
  await welcome.getByRole("link", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/ReciPals\/Account\/Login\?redirectTo=%2FReciPals%2FHome$/);

  await signInNewUser(page, "welcomed");
  await openPage(page, "/ReciPals/Home");
  await expect(page.getByRole("list", { name: "Posts" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Welcome" })).toHaveCount(0);
});

test("a photo that cannot load shows the recipe's initial on a tinted tile", async ({ page }) => {
  // The sample photos link to a site the tests never reach (tests/support/e2e-server.ts): they fail to load.
  await openPage(page, "/ReciPals/Search?q=fennel");
  const photo = page.locator(".photo-frame img[alt]").first();
  await expect(photo).toBeVisible();
  await expect.poll(() => photo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 0)).toBe(true);
  const alt = (await photo.getAttribute("alt"))!.trim();
  const tile = await photo.evaluate((img) => {
    const style = getComputedStyle(img, "::after");
    return { content: style.content, background: style.backgroundColor, display: style.display };
  });
  expect(tile.content).toBe(`"${alt.charAt(0).toUpperCase()}"`);
  expect(tile.display).toBe("flex");
  expect(tile.background).not.toBe("rgba(0, 0, 0, 0)");

  // A card whose photo is decorative (alt="", its title beside it) takes the initial of its recipe:
  // a saved sample recipe on Saved.
  await signInNewUser(page, "tile");
  await openPage(page, "/ReciPals/Recipes/recipeBot-R112");
  const name = (await page.getByRole("heading", { level: 1 }).innerText()).trim();
  // With JavaScript the button turns at once; the save is stored when its post answers.
  const saved = page.waitForResponse((response) => response.url().includes("/Save") && response.request().method() === "POST");
  await page.getByRole("button", { name: "Save recipe" }).click();
  await expect(page.getByRole("button", { name: "Unsave recipe" })).toBeVisible();
  await saved;
  await openPage(page, "/ReciPals/Saved");
  const cardPhoto = page.locator(".photo-frame img[data-initial]").first();
  await expect(cardPhoto).toHaveAttribute("alt", "");
  await expect.poll(() => cardPhoto.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 0)).toBe(true);
  expect(await cardPhoto.evaluate((img) => getComputedStyle(img, "::after").content)).toBe(`"${name.charAt(0).toUpperCase()}"`);
});
