import { expect, test } from "@playwright/test";

import { ADMIN, SEEDED_USER, botPostFor, signInAs, signInNewUser } from "../support/e2e";

test.describe("admin guard", () => {
  test("visitors go to Login and USERs go Home", async ({ page }) => {
    await page.goto("/ReciPals/Account/Admin/Users");
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Login/);
    await signInAs(page, SEEDED_USER);
    await page.goto("/ReciPals/Account/Admin/Recipes");
    await expect(page).toHaveURL(/\/ReciPals\/Home$/);
  });
});

test.describe("admin users", () => {
  test("add a user, see the password once, change the role, delete after confirming", async ({ page, javaScriptEnabled }) => {
    await signInAs(page, ADMIN);
    await page.goto("/ReciPals/Account/Admin");
    await expect(page).toHaveURL(/\/Admin\/Users$/);
    await expect(page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Users" })).toHaveAttribute("aria-current", "page");
    await page.getByRole("button", { name: "Add User" }).click();
    const notice = page.getByRole("status").filter({ hasText: "Initial password" });
    await expect(notice).toBeVisible();
    const username = (await notice.getByRole("link").textContent())!;
    expect(username).toMatch(/^user\d+$/);

    await page.getByRole("searchbox", { name: "Search users" }).fill(username);
    await page.getByRole("button", { name: "Search" }).click();
    const rows = page.getByRole("table").getByRole("row");
    await expect(rows).toHaveCount(2);
    await rows.nth(1).getByRole("link").click();
    const detail = page.getByRole("complementary", { name: `User ${username}` });
    await expect(detail.getByText("No tags")).toBeVisible();
    await expect(detail.getByText("No posts yet")).toBeVisible();
    await detail.getByLabel("Role").selectOption("ADMIN");
    await detail.getByRole("button", { name: "Save" }).click();
    await expect(page).toHaveURL(/\/Admin\/Users$/);
    await page.getByRole("searchbox", { name: "Search users" }).fill(username);
    await page.getByRole("button", { name: "Search" }).click();
    await expect(page.getByRole("table").getByRole("row").nth(1)).toContainText("ADMIN");

    await page.getByRole("table").getByRole("row").nth(1).getByRole("link").click();
    if (javaScriptEnabled) {
      page.once("dialog", (dialog) => {
        expect(dialog.message()).toBe("Are you sure you want to delete this user?");
        void dialog.accept();
      });
      await page.getByRole("complementary").getByRole("button", { name: "Delete" }).click();
    } else {
      await page.getByRole("complementary").getByRole("button", { name: "Delete" }).first().click();
      const confirm = page.getByRole("alertdialog");
      await expect(confirm).toContainText("Are you sure you want to delete this user?");
      await confirm.getByRole("button", { name: "Delete" }).click();
    }
    await expect(page).toHaveURL(/\/Admin\/Users$/);
    await page.getByRole("searchbox", { name: "Search users" }).fill(username);
    await page.getByRole("button", { name: "Search" }).click();
    await expect(page.getByText(`No users match "${username}".`)).toBeVisible();
  });

  test("Copy ID offers the post id", async ({ page, javaScriptEnabled }) => {
    await signInAs(page, ADMIN);
    await page.goto(`/ReciPals/Account/Admin/Users/${SEEDED_USER.id}`);
    await expect(page.getByRole("textbox", { name: "Post ID jd-P1" })).toHaveValue("jd-P1");
    await expect(page.getByRole("button", { name: "Copy ID" })).toHaveCount(javaScriptEnabled ? 1 : 0);
  });
});

test.describe("admin recipes", () => {
  test("edit ingredients and instructions as text", async ({ page }, testInfo) => {
    const { recipeId } = botPostFor(testInfo.project.name, 10);
    await signInAs(page, ADMIN);
    await page.goto("/ReciPals/Account/Admin/Recipes");
    await page.getByRole("searchbox", { name: "Search recipes by name, id, creator..." }).fill(recipeId);
    await page.getByRole("button", { name: "Search" }).click();
    // Wait for the results: clicking a row of the unfiltered table would cancel the search.
    await expect(page).toHaveURL(new RegExp(`[?&]q=${recipeId}(&|$)`));
    await page.getByRole("table").getByRole("row").nth(1).getByRole("link").click();
    await expect(page).toHaveURL(new RegExp(`/Admin/Recipes/${recipeId}$`));

    await page.getByRole("link", { name: "Edit Ingredients" }).click();
    const box = page.getByRole("textbox", { name: "Ingredients" });
    await expect(box).toHaveValue(/^Main Ingredients:\n/);
    await box.fill("Base:\nRice (200g)\nWater\n\nTopping:\nSesame");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("heading", { name: "Topping" })).toBeVisible();
    await expect(page.getByText("Rice (200g)")).toBeVisible();

    await page.getByRole("link", { name: "Edit Instructions" }).click();
    await page.getByRole("textbox", { name: "Instructions" }).fill("\n\n");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("alert")).toHaveText("Please add at least one instruction step.");
    await page.getByRole("textbox", { name: "Instructions" }).fill("Rinse the rice\nCook it");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("Rinse the rice")).toBeVisible();

    await page.goto(`/ReciPals/Recipes/${recipeId}`);
    await expect(page.getByRole("heading", { name: "For the Topping" })).toBeVisible();
    await expect(page.getByRole("listitem").filter({ hasText: "Cook it" })).toBeVisible();
  });

  test("remove a comment and delete a recipe", async ({ page, javaScriptEnabled }, testInfo) => {
    const { recipeId } = botPostFor(testInfo.project.name, 11);
    await signInNewUser(page, "spammer");
    await page.goto(`/ReciPals/Recipes/${recipeId}`);
    await page.getByPlaceholder("Add a comment...").fill("Buy cheap pans!");
    // Sign out only once the server has answered the post: with JavaScript the comment shows at
    // once (optimistic), and signing out then could cancel the request before it is stored.
    const stored = page.waitForResponse((response) => response.request().method() === "POST" && response.url().includes(recipeId));
    await page.getByRole("button", { name: "Post" }).click();
    await expect(page.getByText("Buy cheap pans!")).toBeVisible();
    await stored;
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page.getByRole("link", { name: "Profile" })).toHaveAttribute("href", "/ReciPals/Account/Login");

    await signInAs(page, ADMIN);
    await page.goto(`/ReciPals/Account/Admin/Recipes/${recipeId}/Post`);
    await expect(page.getByRole("link", { name: "Post" })).toHaveAttribute("aria-current", "page");
    const confirmWith = async (message: string, button: string) => {
      if (javaScriptEnabled) {
        page.once("dialog", (dialog) => {
          expect(dialog.message()).toBe(message);
          void dialog.accept();
        });
        await page.getByRole("button", { name: button }).first().click();
      } else {
        await page.getByRole("button", { name: button }).first().click();
        await expect(page.getByRole("alertdialog")).toContainText(message);
        await page.getByRole("alertdialog").getByRole("button", { name: button }).click();
      }
    };
    await confirmWith("Are you sure you want to delete this comment?", "Remove");
    await expect(page.getByText("Buy cheap pans!")).toHaveCount(0);
    await expect(page.getByText("No comments yet")).toBeVisible();

    await confirmWith("Are you sure you want to delete this recipe?", "Delete");
    await expect(page).toHaveURL(/\/Admin\/Recipes$/);
    const gone = await page.goto(`/ReciPals/Recipes/${recipeId}`);
    expect(gone?.status()).toBe(404);
  });
});
