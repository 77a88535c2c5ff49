import { expect, test } from "@playwright/test";

import { failOnBrowserErrors, openPage, signInNewUser, writeDb } from "../support/e2e";

// The feed's cards (docs/rules.md#home-and-post-cards): a heart that fills, Save on the card, the
// recipe's cook time and servings. The seeded "Beef Rice Noodles Stir Fry" (jd-R1, by
// jasminduong09) takes 80 min and serves 4; a new user who follows its author sees it first.
const NOODLES = "Beef Rice Noodles Stir Fry";

test.describe("feed cards", () => {
  failOnBrowserErrors();

  test("a card shows the recipe's cook time and servings, a heart with no words, and saves from the card", async ({ page, javaScriptEnabled }) => {
    const me = await signInNewUser(page, "cards");
    writeDb((db) => db.prepare("insert into follows (follower_id, followee_id, created_at) values (?, '123', ?)").run(me.id, new Date().toISOString()));
    await openPage(page, "/ReciPals/Home");
    const card = page.getByRole("article", { name: NOODLES });
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
    await Promise.all([page.waitForResponse((r) => r.url().includes("/Recipes/jd-R1/Save") && r.request().method() === "POST"), save.click()]);
    if (!javaScriptEnabled) await expect(page).toHaveURL(/\/ReciPals\/Home\?.*#save-jd-R1$/);
    await expect(page.getByRole("article", { name: NOODLES }).getByRole("button", { name: "Save recipe" })).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByRole("article", { name: NOODLES }).getByRole("button", { name: "Save recipe" }).locator("svg path")).toHaveAttribute("fill", "currentColor");
    await openPage(page, "/ReciPals/Saved");
    await expect(page.getByRole("link", { name: new RegExp(NOODLES) }).first()).toBeVisible();
  });

  test("a visitor's heart and bookmark lead to Login and back to the feed", async ({ page }) => {
    await openPage(page, "/ReciPals/Home");
    const card = page.getByRole("list", { name: "Posts" }).getByRole("article").first();
    await expect(card.getByRole("link", { name: "Like", exact: true })).toHaveAttribute("href", /\/ReciPals\/Account\/Login\?redirectTo=%2FReciPals%2FHome/);
    await card.getByRole("link", { name: "Save recipe" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Login\?redirectTo=%2FReciPals%2FHome/);
  });
});
