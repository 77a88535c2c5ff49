import { expect, test } from "@playwright/test";

import { SEEDED_USER, signInWithForm, uniqueName } from "../support/e2e";

test.describe("login", () => {
  test("signs in with Enter and lands on Home, signed in", async ({ page }) => {
    await page.goto("/ReciPals/Account/Login");
    await page.getByLabel("Username").fill(SEEDED_USER.username);
    await page.getByLabel("Password").fill(SEEDED_USER.password);
    await page.getByLabel("Password").press("Enter");
    await expect(page).toHaveURL(/\/ReciPals\/Home$/);
    await expect(page.getByRole("link", { name: "Profile" })).toHaveAttribute(
      "href",
      `/ReciPals/Account/Profile/${SEEDED_USER.id}`,
    );
    await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  });

  test("shows SPEC's message for a wrong password and keeps the username", async ({ page }) => {
    await page.goto("/ReciPals/Account/Login");
    await page.getByLabel("Username").fill(SEEDED_USER.username);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert")).toHaveText("Invalid username or password. Please try again.");
    await expect(page.getByLabel("Username")).toHaveValue(SEEDED_USER.username);
    await expect(page.getByLabel("Password")).toHaveValue("");
    await expect(page.getByLabel("Password")).toHaveAttribute("aria-invalid", "true");
  });

  test("shows SPEC's message for an unknown user", async ({ page }) => {
    await page.goto("/ReciPals/Account/Login");
    await page.getByLabel("Username").fill("nobody_by_this_name");
    await page.getByLabel("Password").fill("whatever");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert")).toHaveText("User not found. Please check your username.");
  });

  test("links to Sign up", async ({ page }) => {
    await page.goto("/ReciPals/Account/Login");
    await page.getByRole("main").getByRole("link", { name: "Sign up" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Signup$/);
  });

  test("signs out with a POST and becomes a visitor again", async ({ page }) => {
    await signInWithForm(page, SEEDED_USER);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Home$/);
    await expect(page.getByRole("link", { name: "Profile" })).toHaveAttribute("href", "/ReciPals/Account/Login");
  });
});

test.describe("sign-up", () => {
  test("creates an account in two steps and opens the new profile", async ({ page }) => {
    const username = uniqueName("cook");
    await page.goto("/ReciPals/Account/Signup");
    await page.getByLabel("Name", { exact: true }).fill("New Cook");
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password", { exact: true }).fill("a good password");
    await page.getByLabel("Verify Password").fill("a good password");
    await page.getByRole("button", { name: "Next" }).click();

    await expect(page).toHaveURL(/\/ReciPals\/Account\/SignupTags$/);
    await expect(page.getByRole("heading", { name: "Who Are You :D" })).toBeVisible();
    await expect(page.getByText("Choose up to 3 tags to describe yourself!")).toBeVisible();
    await page.getByLabel("Baker").check({ force: true });
    await page.getByLabel("Vegan").check({ force: true });
    await page.getByRole("button", { name: "Sign up" }).click();

    await expect(page).toHaveURL(/\/ReciPals\/Account\/Profile\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("heading", { name: username })).toBeVisible();
    await expect(page.getByText("New Cook")).toBeVisible();
    const tags = page.getByRole("list", { name: "Tags" });
    await expect(tags.getByRole("listitem")).toHaveText(["Baker", "Vegan"]);
  });

  test("shows 'Please fill in all fields' and \"Passwords don't match\", keeping what was typed", async ({ page }) => {
    await page.goto("/ReciPals/Account/Signup");
    await page.getByLabel("Name", { exact: true }).fill("Half Done");
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page.getByRole("alert").first()).toHaveText("Please fill in all fields");
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Half Done");
    await expect(page.getByLabel("Username")).toHaveAttribute("aria-invalid", "true");

    await page.getByLabel("Username").fill(uniqueName("mismatch"));
    await page.getByLabel("Password", { exact: true }).fill("one");
    await page.getByLabel("Verify Password").fill("two");
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page.getByRole("alert").first()).toHaveText("Passwords don't match");
    await expect(page.getByLabel("Password", { exact: true })).toHaveValue("");
  });

  test("refuses a taken username", async ({ page }) => {
    await page.goto("/ReciPals/Account/Signup");
    await page.getByLabel("Name", { exact: true }).fill("Copycat");
    await page.getByLabel("Username").fill("JasminDuong09");
    await page.getByLabel("Password", { exact: true }).fill("pw");
    await page.getByLabel("Verify Password").fill("pw");
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page.getByRole("alert")).toHaveText("That username is already taken. Please choose another.");
    await expect(page.getByLabel("Username")).toHaveValue("JasminDuong09");
  });

  test("sends the tags step back to Signup without held details", async ({ page }) => {
    await page.goto("/ReciPals/Account/SignupTags");
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Signup$/);
  });

  test("never lets a fourth tag through", async ({ page, javaScriptEnabled }) => {
    await page.goto("/ReciPals/Account/Signup");
    await page.getByLabel("Name", { exact: true }).fill("Greedy");
    await page.getByLabel("Username").fill(uniqueName("greedy"));
    await page.getByLabel("Password", { exact: true }).fill("pw");
    await page.getByLabel("Verify Password").fill("pw");
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page).toHaveURL(/SignupTags$/);
    for (const tag of ["Baker", "Vegan", "Halal"]) await page.getByLabel(tag).check({ force: true });
    await page.getByLabel("Kosher").click({ force: true });
    const limit = "You can only select up to 3 tags. Please deselect a tag before selecting a new one.";
    if (javaScriptEnabled) {
      // The fourth tick is undone at once in the browser.
      await expect(page.getByLabel("Kosher")).not.toBeChecked();
      await expect(page.getByRole("alert")).toHaveText(limit);
    } else {
      // Without JavaScript the server refuses it and keeps the choice for correcting.
      await page.getByRole("button", { name: "Sign up" }).click();
      await expect(page.getByRole("alert")).toHaveText(limit);
      await expect(page).toHaveURL(/SignupTags$/);
      await expect(page.getByLabel("Kosher")).toBeChecked();
    }
  });
});
