import { expect, test, type Page } from "@playwright/test";

import { failOnBrowserErrors, openMoreMenu, openPage, signInNewUser } from "../support/e2e";

// Blocking and muting (docs/rules.md#blocking-and-muting) as people do it, with JavaScript on and
// off: mute and unmute on a profile, block with its question (a dialog, or a page without
// JavaScript), then neither sees the other; the blocker unblocks from the profile editor's list.

failOnBrowserErrors();

const BLOCK_QUESTION = /^Block .+\? You will stop following each other, and neither of you will see the other's profile, recipes or comments until you unblock\.$/;

async function block(page: Page, javaScriptEnabled: boolean) {
  if (javaScriptEnabled) {
    page.once("dialog", async (dialog) => {
      expect(dialog.message()).toMatch(BLOCK_QUESTION);
      await dialog.accept();
    });
    await openMoreMenu(page);
    await page.getByRole("button", { name: "Block", exact: true }).click();
  } else {
    await openMoreMenu(page);
    await page.getByRole("button", { name: "Block", exact: true }).click();
    await expect(page.locator("#confirm-step-text")).toHaveText(BLOCK_QUESTION);
    await page.getByRole("alertdialog").getByRole("button", { name: "Block", exact: true }).click();
  }
}

test("mute, block and unblock someone: after a block neither sees the other", async ({ page, browser, javaScriptEnabled }) => {
  // Two people in two browsers and a dozen page loads: more than the default 30 s on two busy cores.
  test.slow();
  const me = await signInNewUser(page, "blocker");
  const otherContext = await browser.newContext({ javaScriptEnabled });
  const otherPage = await otherContext.newPage();
  try {
    const them = await signInNewUser(otherPage, "blockee");
    const dish = `Blockable broth ${them.username}`;
    const created = await otherPage.request.post("/api/recipes", {
      data: { name: dish, description: "Mine.", serves: 2, steps: ["Stir."], ingredients_sec: [{ title: "Main", ingredients: ["1 onion"] }] },
    });
    expect(created.status()).toBe(201);

    // Mute and unmute: no question, the button turns over. Both are plain form posts (a whole page
    // each): with JavaScript, Block below is pressed once the page it lands on runs its script (before
    // that it is the plain form too, and its question comes as a page).
    await openPage(page, `/ReciPals/Account/Profile/${them.id}`);
    await openMoreMenu(page);
    await page.getByRole("button", { name: "Mute", exact: true }).click();
    await openMoreMenu(page);
    await expect(page.getByRole("button", { name: "Unmute" })).toBeVisible();
    await page.getByRole("button", { name: "Unmute" }).click();
    await openMoreMenu(page);
    await expect(page.getByRole("button", { name: "Mute", exact: true })).toBeVisible();
    if (javaScriptEnabled) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });

    // Block, answering the question; back on their profile, nothing of them is left.
    await block(page, javaScriptEnabled);
    await expect(page).toHaveURL(new RegExp(`/ReciPals/Account/Profile/${them.id}$`));
    await expect(page.getByRole("heading", { name: "This account is not available." })).toBeVisible();
    await expect(page.getByText("You blocked this account.")).toBeVisible();
    await expect(page.getByText(them.username)).toHaveCount(0);

    // Search finds neither them nor their recipe.
    await openPage(page, `/ReciPals/Search?q=${encodeURIComponent(dish)}`);
    await expect(page.getByRole("link", { name: dish })).toHaveCount(0);
    await openPage(page, `/ReciPals/Search?q=${encodeURIComponent(them.username)}`);
    await expect(page.locator(`a[href$="/Account/Profile/${them.id}"]`)).toHaveCount(0);

    // The other side: my profile is not available to them, with no Unblock.
    await openPage(otherPage, `/ReciPals/Account/Profile/${me.id}`);
    await expect(otherPage.getByRole("heading", { name: "This account is not available." })).toBeVisible();
    await expect(otherPage.getByRole("button", { name: "Unblock" })).toHaveCount(0);

    // Unblock from the profile editor's list; their profile is back.
    await openPage(page, `/ReciPals/Account/Profile/${me.id}/Edit`);
    const list = page.getByRole("region", { name: "Blocked accounts" });
    await expect(list.getByText(them.username, { exact: true })).toBeVisible();
    await list.getByRole("button", { name: `Unblock ${them.username}` }).click();
    await expect(list.getByText("You have not blocked anyone.")).toBeVisible();
    await openPage(page, `/ReciPals/Account/Profile/${them.id}`);
    await expect(page.getByRole("heading", { name: them.username })).toBeVisible();
    await expect(page.getByRole("button", { name: "Follow" })).toBeVisible();
  } finally {
    await otherContext.close();
  }
});
