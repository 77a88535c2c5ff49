import { expect, test } from "@playwright/test";

import { botPostFor, failOnBrowserErrors, openPage, signInNewUser, userIdOf } from "../support/e2e";

// The recipe page is where people land from search and shared links, so it carries the post's
// social controls (docs/rules.md#recipe-screen): Like with the likes count (opening the Likes
// dialog), Follow of its creator, Share (the system share sheet or a copied link with JavaScript,
// the address to copy without). The post viewer has a comment box of its own.

failOnBrowserErrors();

test.describe("a social recipe page", () => {
  test("likes, shows who liked, follows the creator; all of it still there after a reload", async ({ page }, testInfo) => {
    const { recipeId } = botPostFor(testInfo.project.name, 70);
    const me = await signInNewUser(page, "social");
    const url = `/ReciPals/Recipes/${recipeId}`;
    await openPage(page, url);
    const actions = page.locator(".recipe__actions");
    const countBefore = Number((await actions.locator(".like-controls__count").innerText()).split(" ")[0]);

    await actions.getByRole("button", { name: "Like", exact: true }).click();
    await expect(actions.getByRole("button", { name: "Like", exact: true, pressed: true })).toHaveAttribute("aria-pressed", "true");
    const likes = countBefore + 1;
    await expect(actions.getByRole("link", { name: `${likes} ${likes === 1 ? "like" : "likes"}` })).toBeVisible();
    // Back at the recipe, not at the top of another page.
    await expect(page).toHaveURL(new RegExp(`${url}(#.*)?$`));

    await actions.getByRole("link", { name: `${likes} ${likes === 1 ? "like" : "likes"}` }).click();
    const dialog = page.getByRole("dialog", { name: "Likes" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("link", { name: new RegExp(me.username) })).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`${url}/Likes$`));
    await dialog.getByRole("link", { name: "Close" }).click();
    await expect(page.getByRole("dialog", { name: "Likes" })).toHaveCount(0);
    await expect(page).toHaveURL(new RegExp(`${url}$`));

    const creator = page.locator(".recipe__creator");
    await expect(creator).toContainText("Created by recipe_bot");
    // With JavaScript the button turns at once; the follow is stored when its post answers.
    const followed = page.waitForResponse((response) => response.url().includes("/ReciPals/Account/Follow/") && response.request().method() === "POST");
    await creator.getByRole("button", { name: "Follow" }).click();
    await expect(creator.getByRole("button", { name: "Following" })).toHaveAttribute("aria-pressed", "true");
    await followed;

    await openPage(page, url);
    await expect(actions.getByRole("button", { name: "Like", exact: true, pressed: true })).toBeVisible();
    await expect(creator.getByRole("button", { name: "Following" })).toBeVisible();
    // Unliked again: the count goes back.
    await actions.getByRole("button", { name: "Like", exact: true, pressed: true }).click();
    await expect(actions.getByRole("button", { name: "Like", exact: true })).toHaveAttribute("aria-pressed", "false");
    await expect(actions.locator(".like-controls__count")).toHaveText(`${countBefore} ${countBefore === 1 ? "like" : "likes"}`);
  });

  test("Share gives the recipe's address: copied with JavaScript, shown to copy without", async ({ page, context, javaScriptEnabled, baseURL }) => {
    await signInNewUser(page, "sharer");
    const url = "/ReciPals/Recipes/jd-R1";
    await openPage(page, url);
    await page.locator(".recipe__actions").getByText("Share", { exact: true }).click();
    const address = page.getByRole("textbox", { name: "Link to this recipe" });
    await expect(address).toBeVisible();
    await expect(address).toHaveValue(`${baseURL}${url}`);
    if (javaScriptEnabled) {
      await context.grantPermissions(["clipboard-read", "clipboard-write"]);
      await page.getByRole("button", { name: "Copy link" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Link copied." })).toBeVisible();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${baseURL}${url}`);
    } else {
      // Nothing on the page needs a script to work.
      await expect(page.getByRole("button", { name: "Copy link" })).toHaveCount(0);
    }
  });

  test("a visitor's Like and Follow lead to sign-in and back to the recipe", async ({ page }) => {
    const url = "/ReciPals/Recipes/recipeBot-R12";
    await openPage(page, url);
    await expect(page.locator(".recipe__actions").getByRole("link", { name: "Like" })).toHaveAttribute("href", `/ReciPals/Account/Login?redirectTo=${encodeURIComponent(url)}`);
    await page.locator(".recipe__creator").getByRole("link", { name: "Follow" }).click();
    await expect(page).toHaveURL(`/ReciPals/Account/Login?redirectTo=${encodeURIComponent(url)}`);
  });
});

test("the post viewer has a comment box: a comment lands in the viewer, a blank one is refused", async ({ page }, testInfo) => {
  const { postId } = botPostFor(testInfo.project.name, 71);
  await signInNewUser(page, "viewercomment");
  const viewer = `/ReciPals/Account/Profile/${userIdOf("recipe_bot")}/Posts/${postId}`;
  await openPage(page, viewer);
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("button", { name: "Post" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Please write a comment before posting.");

  // Unique, so a retry on the same post finds its own comment.
  const text = `From the viewer ${testInfo.project.name} ${testInfo.retry}-${testInfo.repeatEachIndex}`;
  await dialog.getByPlaceholder("Add a comment...").fill(text);
  await dialog.getByRole("button", { name: "Post" }).click();
  await expect(dialog.getByRole("region", { name: "Comments" }).getByText(text)).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`${viewer}#comment-`));
  await expect(dialog.getByPlaceholder("Add a comment...")).toHaveValue("");
  await expect(dialog.getByRole("alert")).toHaveCount(0);
  // Its date reads as a feed says it, the exact one on hover and to screen readers.
  const today = new Date().toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });
  const when = dialog.getByRole("listitem").filter({ hasText: text }).locator("time");
  await expect(when.locator("[aria-hidden=true]")).toHaveText("today");
  await expect(when).toHaveAttribute("title", today);
  await expect(when.locator(".visually-hidden")).toHaveText(today);
});
