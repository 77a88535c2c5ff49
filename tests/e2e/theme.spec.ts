import { expect, test, type Page } from "@playwright/test";

import { failOnBrowserErrors, openPage } from "../support/e2e";

// The colour theme (docs/rules.md#theme), with JavaScript on and off: a choice made on the Theme
// page brings back the page it came from in that theme, rendered so by the server (no script picks
// colours), and stays after a reload; Light wins over a dark device; System follows the device.
// tests/e2e/layout.spec.ts checks every page of its list in both themes (axe, contrast included).

/** The body's background (app/styles/global.css, --color-bg) in each theme. */
const LIGHT_BG = "rgb(255, 250, 245)";
const DARK_BG = "rgb(26, 21, 18)";

const body = (page: Page) => page.locator("body");

/** The chosen theme's cookie in this browser, as the server set it. */
async function themeCookie(page: Page) {
  return (await page.context().cookies()).find((cookie) => cookie.name === "recipals_theme");
}

/** Chooses `name` on the Theme page and saves. */
async function choose(page: Page, name: "System" | "Light" | "Dark") {
  await expect(page.getByRole("heading", { level: 1, name: "Theme" })).toBeVisible();
  await page.getByRole("radio", { name }).check();
  await page.getByRole("button", { name: "Save" }).click();
}

test.describe("choosing a theme", () => {
  failOnBrowserErrors();

  test("Dark, chosen from the top bar: the page it came from comes back dark, and stays dark", async ({ page }) => {
    await openPage(page, "/ReciPals/Recipes/jd-R1");
    await expect(body(page)).toHaveCSS("background-color", LIGHT_BG);
    await page.getByRole("banner").getByRole("link", { name: "Theme" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Theme\?returnTo=%2FReciPals%2FRecipes%2Fjd-R1$/);
    await expect(page.getByRole("radio", { name: "System" })).toBeChecked();
    await choose(page, "Dark");

    await expect(page).toHaveURL(/\/ReciPals\/Recipes\/jd-R1$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    await expect(body(page)).toHaveCSS("background-color", DARK_BG);
    await expect(page.locator("html")).toHaveCSS("color-scheme", "dark");
    expect(await themeCookie(page)).toMatchObject({ value: "dark", httpOnly: true, sameSite: "Lax" });

    await page.reload();
    await expect(body(page)).toHaveCSS("background-color", DARK_BG);
    // Another page, and the Theme page itself, know the choice too.
    await openPage(page, "/ReciPals/Info");
    await expect(body(page)).toHaveCSS("background-color", DARK_BG);
    await page.getByRole("banner").getByRole("link", { name: "Theme" }).click();
    await expect(page.getByRole("radio", { name: "Dark" })).toBeChecked();
  });

  test("Light wins over a device set to dark", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "dark" });
    await openPage(page, "/ReciPals/Info");
    // Nothing chosen yet: the device's setting.
    await expect(body(page)).toHaveCSS("background-color", DARK_BG);
    await openPage(page, `/ReciPals/Theme?returnTo=${encodeURIComponent("/ReciPals/Info")}`);
    await choose(page, "Light");

    await expect(page).toHaveURL(/\/ReciPals\/Info$/);
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    await expect(body(page)).toHaveCSS("background-color", LIGHT_BG);
    await expect(page.locator("html")).toHaveCSS("color-scheme", "light");
    await page.reload();
    await expect(body(page)).toHaveCSS("background-color", LIGHT_BG);
  });

  test("System follows the device's setting, and forgets an earlier choice", async ({ page, baseURL }) => {
    await page.context().addCookies([{ name: "recipals_theme", value: "dark", url: baseURL! }]);
    await page.emulateMedia({ colorScheme: "light" });
    await openPage(page, `/ReciPals/Theme?returnTo=${encodeURIComponent("/ReciPals/Search?q=chicken")}`);
    await expect(page.getByRole("radio", { name: "Dark" })).toBeChecked();
    await expect(body(page)).toHaveCSS("background-color", DARK_BG);
    await choose(page, "System");

    await expect(page).toHaveURL(/\/ReciPals\/Search\?q=chicken/);
    await expect(page.locator("html")).not.toHaveAttribute("data-theme");
    expect(await themeCookie(page)).toBeUndefined();
    await expect(body(page)).toHaveCSS("background-color", LIGHT_BG);
    await page.emulateMedia({ colorScheme: "dark" });
    await expect(body(page)).toHaveCSS("background-color", DARK_BG);
    await expect(page.locator("html")).toHaveCSS("color-scheme", "dark");
    await page.emulateMedia({ colorScheme: "light" });
    await expect(body(page)).toHaveCSS("background-color", LIGHT_BG);
  });

  test("anything but the three choices is refused on the page, and nothing changes", async ({ page, baseURL }) => {
    await page.context().addCookies([{ name: "recipals_theme", value: "dark", url: baseURL! }]);
    await openPage(page, `/ReciPals/Theme?returnTo=${encodeURIComponent("/ReciPals/Info")}`);
    // A value the page never offers, as a hand-made form would send it (set after the click: with
    // JavaScript, React puts a radio group's values back when one is checked).
    await page.getByRole("radio", { name: "Light" }).check();
    await page.locator('input[name="theme"][value="light"]').evaluate((input: HTMLInputElement) => (input.value = "sepia"));
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("alert")).toHaveText("Choose System, Light or Dark.");
    await expect(page.getByRole("radio", { name: "Dark" })).toBeChecked();
    expect(await themeCookie(page)).toMatchObject({ value: "dark" });
    await expect(body(page)).toHaveCSS("background-color", DARK_BG);
  });
});
