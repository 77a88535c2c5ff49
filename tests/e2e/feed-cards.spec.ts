import { expect, test } from "@playwright/test";

import crypto from "node:crypto";

import { createUser, failOnBrowserErrors, openPage, signInNewUser, uniqueName, writeDb } from "../support/e2e";

// The feed's cards (docs/rules.md#home-and-post-cards): a heart that fills, Save on the card, the
// recipe's cook time and servings. Each test's cook shares one recipe (80min, serves 4), written
// straight into the e2e database; a new user who follows the cook sees it first on Home.

/** A cook with one recipe and its post; returns the recipe's id and name. */
async function cookWithOneRecipe(): Promise<{ cookId: string; recipeId: string; name: string }> {
  const cook = await createUser("cardcook");
  const recipeId = `e2e-card-R-${crypto.randomUUID()}`;
  const name = uniqueName("Card Stew");
  const now = new Date().toISOString();
  writeDb((db) => {
    db.prepare(
      `insert into recipes (id, user_created, name, description, total_time, serves, photo, created_at, seq)
       values (?, ?, ?, 'Made for an end-to-end test.', '80min', 4, '', ?, (select coalesce(max(seq), 0) + 1 from recipes))`,
    ).run(recipeId, cook.id, name, now);
    db.prepare(
      `insert into posts (id, recipe_id, created_by, title, caption, photo, created_at, seq)
       values (?, ?, ?, ?, 'A card to test.', '', ?, (select coalesce(max(seq), 0) + 1 from posts))`,
    ).run(`e2e-card-P-${crypto.randomUUID()}`, recipeId, cook.id, name, now);
  });
  return { cookId: cook.id, recipeId, name };
}

test.describe("feed cards", () => {
  failOnBrowserErrors();

  test("a card shows the recipe's cook time and servings, a heart with no words, and saves from the card", async ({ page, javaScriptEnabled }) => {
    const { cookId, recipeId, name: cardName } = await cookWithOneRecipe();
    const me = await signInNewUser(page, "cards");
    writeDb((db) => db.prepare("insert into follows (follower_id, followee_id, created_at) values (?, ?, ?)").run(me.id, cookId, new Date().toISOString()));
    await openPage(page, "/ReciPals/Home");
    const card = page.getByRole("article", { name: cardName });
    await expect(card).toBeVisible();
    await expect(card.getByText("80min", { exact: true })).toBeVisible();
    await expect(card.getByText("Serves 4", { exact: true })).toBeVisible();

    // The heart: named "Like" for screen readers, its state in aria-pressed, no words on screen.
    const heart = card.getByRole("button", { name: "Like", exact: true });
    await expect(heart).toHaveAttribute("aria-pressed", "false");
    expect(await heart.evaluate((button) => [...button.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => node.textContent?.trim()).join(""))).toBe("");
    await expect(card.getByText("Unlike")).toHaveCount(0);
    expect((await heart.boundingBox())?.width).toBeLessThan(60);
    await expect(heart.locator("svg path")).toHaveAttribute("fill", "none");

    // Save on the card, with JavaScript in place, without it back at the card.
    const save = card.getByRole("button", { name: "Save recipe" });
    await expect(save).toHaveAttribute("aria-pressed", "false");
    await Promise.all([page.waitForResponse((r) => r.url().includes(`/Recipes/${recipeId}/Save`) && r.request().method() === "POST"), save.click()]);
    if (!javaScriptEnabled) await expect(page).toHaveURL(new RegExp(`/ReciPals/Home\\?.*#save-${recipeId}$`));
    await expect(page.getByRole("article", { name: cardName }).getByRole("button", { name: "Save recipe" })).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByRole("article", { name: cardName }).getByRole("button", { name: "Save recipe" }).locator("svg path")).toHaveAttribute("fill", "currentColor");
    await openPage(page, "/ReciPals/Saved");
    await expect(page.getByRole("link", { name: new RegExp(cardName) }).first()).toBeVisible();
  });

  test("a visitor's heart and bookmark lead to Login and back to the feed", async ({ page }) => {
    await openPage(page, "/ReciPals/Home");
    const card = page.getByRole("list", { name: "Posts" }).getByRole("article").first();
    await expect(card.getByRole("link", { name: "Like", exact: true })).toHaveAttribute("href", /\/ReciPals\/Account\/Login\?redirectTo=%2FReciPals%2FHome/);
    await card.getByRole("link", { name: "Save recipe" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Login\?redirectTo=%2FReciPals%2FHome/);
  });
});
