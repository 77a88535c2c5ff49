import { expect, test, type Locator, type Page } from "@playwright/test";

import { botPostFor, failOnBrowserErrors, openPage, signInNewUser } from "../support/e2e";

// A form that posts back to its page brings the reader back to the control they used, its status
// beside it, and whatever an anchor points at shows in full below the sticky top bar
// (docs/rules.md#without-javascript). On a phone, where a recipe is a long scroll.

failOnBrowserErrors();
test.use({ viewport: { width: 390, height: 844 } });

/** The target is on screen, entirely below the top bar. */
async function expectBelowTopBar(page: Page, target: Locator) {
  const bar = await page.locator(".topbar").boundingBox();
  await expect(target).toBeInViewport();
  const box = await target.boundingBox();
  expect(bar, "the top bar").not.toBeNull();
  expect(box, "the target").not.toBeNull();
  expect(box!.y, "the target's top is below the top bar").toBeGreaterThanOrEqual(bar!.y + bar!.height);
}

test("Add to shopping list comes back to the button, its status beside it, not at the top of the page", async ({ page, javaScriptEnabled }) => {
  await signInNewUser(page, "keepplace");
  await openPage(page, "/ReciPals/Recipes/jd-R1");
  const form = page.locator("#shopping");
  await form.scrollIntoViewIfNeeded();
  await form.getByRole("button", { name: "Add to shopping list" }).click();
  await expect(form.getByRole("status")).toHaveText("Added to your shopping list.");
  // Said once, beside the button: the page's banner does not repeat it.
  await expect(page.getByRole("status").filter({ hasText: "Added to your shopping list." })).toHaveCount(1);
  if (!javaScriptEnabled) await expect(page).toHaveURL(/\/ReciPals\/Recipes\/jd-R1\?serves=\d+&notice=shopping-added#shopping$/);
  expect(await page.evaluate(() => window.scrollY), "the page did not go back to its top").toBeGreaterThan(200);
  await expectBelowTopBar(page, form.getByRole("button", { name: "Update shopping list" }));
});

test("a Like on a recipe comes back to the Like", async ({ page, javaScriptEnabled }, testInfo) => {
  const { postId, recipeId } = botPostFor(testInfo.project.name, 72);
  await signInNewUser(page, "keepplacelike");
  await openPage(page, `/ReciPals/Recipes/${recipeId}`);
  const like = page.locator(`#like-${postId}`);
  await like.getByRole("button", { name: "Like", exact: true }).click();
  await expect(like.getByRole("button", { name: "Like", exact: true, pressed: true })).toBeVisible();
  if (!javaScriptEnabled) await expect(page).toHaveURL(new RegExp(`/ReciPals/Recipes/${recipeId}#like-${postId}$`));
  await expectBelowTopBar(page, like);
  await like.getByRole("button", { name: "Like", exact: true, pressed: true }).click();
  await expect(like.getByRole("button", { name: "Like", exact: true })).toBeVisible();
});

test("headings jumped to show in full below the top bar", async ({ page }) => {
  await openPage(page, "/ReciPals/Recipes/recipeBot-R298#cooked");
  await expectBelowTopBar(page, page.getByRole("heading", { name: "Cooked it" }));
  await openPage(page, "/ReciPals/Recipes/jd-R1#steps-heading");
  await expectBelowTopBar(page, page.getByRole("heading", { name: "Instructions" }));
  // Metric, a plain form without JavaScript, comes back at the ingredients.
  await openPage(page, "/ReciPals/Recipes/jd-R1");
  await page.getByRole("group", { name: "Units" }).getByRole("button", { name: "Metric" }).click();
  await expect(page.getByRole("group", { name: "Units" }).getByRole("button", { name: "Metric" })).toHaveAttribute("aria-pressed", "true");
  await page.evaluate(() => document.getElementById("ingredients-heading")?.scrollIntoView());
  await expectBelowTopBar(page, page.getByRole("heading", { name: "Ingredients" }));
});
