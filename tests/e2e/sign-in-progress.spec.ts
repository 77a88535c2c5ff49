import { expect, test } from "@playwright/test";

import { failOnBrowserErrors, openPage, SEEDED_USER } from "../support/e2e";

// Checking a password takes a moment (one scrypt hash, docs/developer-guide.md): the Sign in
// button says so while it runs, then the answer replaces it. Without JavaScript the browser's
// own progress shows the page loading.

failOnBrowserErrors();

test("the Sign in button shows progress while the password is checked", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "without JavaScript the browser shows the page loading");
  await openPage(page, "/ReciPals/Account/Login");
  // The answer is held back a moment on its way to the page, as on a slow line or a busy server.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/ReciPals\/Account\/Login(\.data)?(\?.*)?$/, async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    await held;
    await route.continue();
  });
  await page.getByLabel("Username").fill(SEEDED_USER.username);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  const busy = page.getByRole("button", { name: "Signing in..." });
  await expect(busy).toBeDisabled();
  await expect(busy).toHaveAttribute("aria-busy", "true");
  release();
  await expect(page.getByText("Invalid username or password. Please try again.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
});
