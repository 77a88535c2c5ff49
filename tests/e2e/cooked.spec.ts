import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";

import { botPostFor, failOnBrowserErrors, openPage, pickedFile, signInNewUser } from "../support/e2e";

// "I made this" and Metric / US on a recipe page (docs/rules.md#i-made-this, docs/rules.md#units),
// with JavaScript on and off: the same clicks, the same results.

failOnBrowserErrors();

/** A photo as a phone takes it: 3000×2000, smooth shapes with sensor grain, a JPEG of a few MB. */
async function cameraPhoto(): Promise<Buffer> {
  const width = 3000;
  const height = 2000;
  const pixels = Buffer.alloc(width * height * 3);
  let seed = 11;
  for (let i = 0; i < pixels.length; i += 3) {
    const x = (i / 3) % width;
    const y = Math.floor(i / 3 / width);
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const grain = (seed % 41) - 20;
    pixels[i] = Math.max(0, Math.min(255, 190 - y / 25 + 40 * Math.sin(x / 120) + grain));
    pixels[i + 1] = Math.max(0, Math.min(255, 110 + 60 * Math.cos(y / 150) + grain));
    pixels[i + 2] = Math.max(0, Math.min(255, 50 + x / 30 + grain));
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
}

const cooked = (page: Page) => page.getByRole("region", { name: "Cooked it" });

test.describe("I made this", () => {
  test("rate, note, servings and a phone photo; then change it and delete it", async ({ page, javaScriptEnabled }, testInfo) => {
    test.setTimeout(60_000);
    const { recipeId } = botPostFor(testInfo.project.name, 25);
    const me = await signInNewUser(page, "cook");
    await openPage(page, `/ReciPals/Recipes/${recipeId}`);
    await expect(cooked(page)).toContainText("No one has said they made this yet.");

    await cooked(page).getByRole("link", { name: "I made this" }).click();
    const form = cooked(page).locator("#cook-form");
    await expect(form.getByRole("heading", { name: "I made this" })).toBeVisible();
    // Nothing chosen: the server says what is missing, and nothing is saved.
    await form.getByLabel("Note").fill("Too salty for me");
    await form.getByRole("button", { name: "Share" }).click();
    await expect(form.getByText("Choose a rating from 1 to 5 stars.")).toBeVisible();
    // With JavaScript the first star takes the focus, described by the message.
    if (javaScriptEnabled) await expect(form.getByLabel("1 star")).toBeFocused();
    await expect(form.getByLabel("Note")).toHaveValue("Too salty for me");

    await form.getByLabel("4 stars").check();
    await form.getByLabel("Note").fill("Lovely, with extra lemon.");
    await form.getByLabel("Servings made").fill("3");
    const photo = await cameraPhoto();
    expect(photo.byteLength).toBeGreaterThan(2_000_000);
    await form.getByLabel("Photo").setInputFiles(pickedFile("IMG_4521.jpg", photo));
    await form.getByRole("button", { name: "Share" }).click();

    await expect(page).toHaveURL(new RegExp(`/ReciPals/Recipes/${recipeId}#cooked$`));
    await expect(cooked(page).getByText("★ 4.0 · 1 cook")).toBeVisible();
    const entry = cooked(page).getByRole("listitem").filter({ hasText: me.username });
    await expect(entry).toContainText("Lovely, with extra lemon.");
    await expect(entry).toContainText("Made for 3");
    await expect(entry.getByRole("img", { name: "Rated 4 out of 5" })).toBeVisible();
    const dish = entry.getByRole("img", { name: `${me.username}'s photo of the dish` });
    await expect(dish).toHaveAttribute("src", /^\/uploads\/.+\.webp$/);
    await expect.poll(() => dish.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);

    await cooked(page).getByRole("link", { name: "Edit your entry" }).click();
    await expect(form.getByLabel("4 stars")).toBeChecked();
    await form.getByLabel("5 stars").check();
    await form.getByRole("button", { name: "Save changes" }).click();
    await expect(cooked(page).getByText("★ 5.0 · 1 cook")).toBeVisible();

    await cooked(page).getByRole("link", { name: "Edit your entry" }).click();
    // Deleting asks first: a dialog with JavaScript, a confirmation step without.
    const question = "Delete your entry? This cannot be undone.";
    if (javaScriptEnabled) {
      page.once("dialog", (dialog) => {
        expect(dialog.message()).toBe(question);
        void dialog.accept();
      });
      await form.getByRole("button", { name: "Delete my entry" }).click();
    } else {
      await form.getByRole("button", { name: "Delete my entry" }).click();
      await expect(page.getByRole("alertdialog")).toContainText(question);
      await page.getByRole("alertdialog").getByRole("button", { name: "Delete my entry" }).click();
    }
    await expect(cooked(page)).toContainText("No one has said they made this yet.");
    await expect(cooked(page).getByRole("link", { name: "I made this" })).toBeVisible();
    if (javaScriptEnabled) await expect(page.locator("html[data-hydrated]")).toBeAttached();
  });

  test("a visitor is asked to log in; the recipe's creator has no form", async ({ page }) => {
    await openPage(page, "/ReciPals/Recipes/jd-R1");
    await expect(cooked(page).getByRole("link", { name: "Log in to say you made this." })).toBeVisible();
    await expect(cooked(page).getByRole("link", { name: "I made this" })).toHaveCount(0);
  });
});

test.describe("Metric / US", () => {
  test("converts what it can read, leaves the rest, and remembers the choice", async ({ page }) => {
    // "Keleya Zaara" (recipeBot-R150): Lamb (750g), Olive Oil (4 tbs), Lemon (1).
    await openPage(page, "/ReciPals/Recipes/recipeBot-R150");
    const ingredients = page.getByRole("region", { name: "Ingredients" });
    await expect(ingredients.getByText("Lamb (750g)")).toBeVisible();
    await ingredients.getByRole("button", { name: "US" }).click();
    await expect(ingredients.getByRole("button", { name: "US" })).toHaveAttribute("aria-pressed", "true");
    await expect(ingredients.getByText("Lamb (1¾ lb)")).toBeVisible();
    await expect(ingredients.getByText("Lemon (1)")).toBeVisible();
    // Another recipe: the choice stays; an oven temperature in a step follows it, a line already
    // giving both systems stays as written.
    await openPage(page, "/ReciPals/Recipes/recipeBot-R1");
    await expect(page.getByRole("region", { name: "Instructions" }).getByText("Preheat the oven to 400°F/350°F Fan/Gas 6")).toBeVisible();
    await expect(page.getByText("butter (75g/3oz)", { exact: true })).toBeVisible();
    await page.getByRole("region", { name: "Ingredients" }).getByRole("button", { name: "Metric" }).click();
    await expect(page.getByRole("region", { name: "Instructions" }).getByText("Preheat the oven to 200C/180C Fan/Gas 6")).toBeVisible();
  });
});
