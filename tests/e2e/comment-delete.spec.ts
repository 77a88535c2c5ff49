import { expect, test, type Page } from "@playwright/test";

import { failOnBrowserErrors, openPage, signInNewUser } from "../support/e2e";

// Deleting a comment (docs/rules.md#deleting-a-comment): its author deletes their own, the recipe's
// creator deletes anyone's on their recipe, with a confirmation either way (a dialog with
// JavaScript, a page without); nobody else is offered the button.

failOnBrowserErrors();

async function comment(page: Page, text: string) {
  await page.getByPlaceholder("Add a comment...").fill(text);
  await page.getByRole("button", { name: "Post" }).click();
  await expect(page.getByRole("listitem").filter({ hasText: text })).toBeVisible();
}

/** Presses the comment's "Delete comment" and confirms, as the browser asks. */
async function deleteComment(page: Page, text: string, javaScriptEnabled: boolean) {
  const item = page.getByRole("listitem").filter({ hasText: text });
  if (javaScriptEnabled) {
    page.once("dialog", async (dialog) => {
      expect(dialog.message()).toBe("Delete this comment? This cannot be undone.");
      await dialog.accept();
    });
    await item.getByRole("button", { name: "Delete comment" }).click();
  } else {
    await item.getByRole("button", { name: "Delete comment" }).click();
    // The question on a page of its own, with the comment quoted.
    await expect(page.getByRole("heading", { name: "Delete comment" })).toBeVisible();
    await expect(page.getByRole("alertdialog")).toContainText("Delete this comment? This cannot be undone.");
    await expect(page.getByText(text)).toBeVisible();
    await page.getByRole("alertdialog").getByRole("button", { name: "Delete comment" }).click();
  }
}

test("a comment's author and the recipe's creator delete comments; nobody else is offered to", async ({ page, browser, javaScriptEnabled }) => {
  // Two people in two browsers, four posts and three page loads: more than the default 30 s on two busy cores.
  test.slow();
  const owner = await signInNewUser(page, "cdowner");
  const created = await page.request.post("/api/recipes", {
    data: { name: "Comment-delete soup", description: "For comments.", serves: 2, steps: ["Stir."], ingredients_sec: [{ title: "Main", ingredients: ["1 onion"] }] },
  });
  expect(created.status()).toBe(201);
  const { recipe_id: recipeId } = (await created.json()) as { recipe_id: string };
  const recipeUrl = `/ReciPals/Recipes/${recipeId}`;

  const guestContext = await browser.newContext({ javaScriptEnabled });
  const guestPage = await guestContext.newPage();
  try {
    await signInNewUser(guestPage, "cdguest");
    await openPage(guestPage, recipeUrl);
    await comment(guestPage, "Lovely soup");
    await comment(guestPage, "Posted twice by mistake");
    // Deleted at once, without reloading the page the comment was just posted on: it stays gone.
    await deleteComment(guestPage, "Posted twice by mistake", javaScriptEnabled);
    await expect(guestPage).toHaveURL(new RegExp(`${recipeUrl}(#comments)?$`));
    await expect(guestPage.getByRole("heading", { name: "Comments (1)" })).toBeVisible();
    await expect(guestPage.getByText("Posted twice by mistake")).toHaveCount(0);
    await openPage(guestPage, recipeUrl);
    await expect(guestPage.getByText("Posted twice by mistake")).toHaveCount(0);
    // Their own comment only: the owner's recipe is not theirs to clear.
    await expect(guestPage.getByRole("button", { name: "Delete comment" })).toHaveCount(1);
  } finally {
    await guestContext.close();
  }

  // The recipe's creator clears the guest's comment on their recipe.
  await openPage(page, recipeUrl);
  await expect(page.getByText(owner.username, { exact: false }).first()).toBeVisible();
  await deleteComment(page, "Lovely soup", javaScriptEnabled);
  await expect(page.getByRole("heading", { name: "Comments (0)" })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("heading", { name: "Comments (0)" })).toBeVisible();

  // A visitor is offered nothing.
  await page.context().clearCookies();
  await page.goto(recipeUrl);
  await expect(page.getByRole("button", { name: "Delete comment" })).toHaveCount(0);
});
