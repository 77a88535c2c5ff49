import { expect, test } from "@playwright/test";
import yauzl from "yauzl";

import { failOnBrowserErrors, openPage, signInNewUser } from "../support/e2e";

// One's own account (docs/rules.md#own-account), with JavaScript on and off: download the data and
// open the zip; delete the account, then signing in is refused.

failOnBrowserErrors();

function zipEntries(bytes: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const names: string[] = [];
      zip.on("entry", (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        zip.readEntry();
      });
      zip.on("end", () => resolve(names));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

test("download my data, then delete my account", async ({ page }) => {
  test.slow();
  const me = await signInNewUser(page, "leaver", { password: "time to go now" });
  const created = await page.request.post("/api/recipes", {
    data: { name: `Farewell stew ${me.username}`, description: "Last one.", serves: 2, steps: ["Stir."], ingredients_sec: [{ title: "Main", ingredients: ["1 onion"] }] },
  });
  expect(created.status()).toBe(201);
  const { recipe_id: recipeId } = (await created.json()) as { recipe_id: string };

  await openPage(page, `/ReciPals/Account/Profile/${me.id}/Edit`);
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download my data" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`recipals-${me.username}.zip`);
  const path = await file.path();
  const { readFile } = await import("node:fs/promises");
  const names = await zipEntries(await readFile(path));
  expect(names).toEqual(expect.arrayContaining(["profile.json", `recipes/${recipeId}.json`, "comments.json", "saved.json", "followers.json", "following.json"]));

  await page.getByRole("link", { name: "Delete my account" }).click();
  await expect(page.getByRole("heading", { name: "Delete my account" })).toBeVisible();
  await page.getByLabel("Password").fill("not my password");
  await page.getByLabel("I understand my account and everything in it will be deleted.").check();
  await page.getByRole("button", { name: "Delete my account" }).click();
  await expect(page.getByRole("alert")).toHaveText("That is not your password. Nothing was deleted.");
  await page.getByLabel("Password").fill("time to go now");
  await page.getByLabel("I understand my account and everything in it will be deleted.").check();
  await page.getByRole("button", { name: "Delete my account" }).click();
  await expect(page).toHaveURL(/\/ReciPals\/Account\/Delete\?done=1$/);
  await expect(page.getByRole("status")).toHaveText("Your account and everything in it were deleted.");

  await page.goto(`/ReciPals/Recipes/${recipeId}`);
  await expect(page.getByRole("heading", { name: "Recipe not found." }).or(page.getByText("Recipe not found."))).toBeVisible();
  await page.goto("/ReciPals/Account/Login");
  await page.getByLabel("Username").fill(me.username);
  await page.getByLabel("Password").fill("time to go now");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("User not found. Please check your username.")).toBeVisible();
});
