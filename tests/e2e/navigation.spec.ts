import { expect, test, type Page } from "@playwright/test";

import { ADMIN, SEEDED_USER, readDb, signInAs, signInWithForm } from "../support/e2e";

const mainNav = (page: Page) => page.getByRole("navigation", { name: "Main" });

test.describe("navigation", () => {
  test("a visitor sees every entry but Admin; Profile and Create lead to Login", async ({ page }) => {
    await page.goto("/ReciPals/Home");
    const nav = mainNav(page);
    for (const name of ["Home", "Search", "Create", "Saved", "Profile", "Info"]) {
      await expect(nav.getByRole("link", { name, exact: true })).toBeVisible();
    }
    await expect(nav.getByRole("link", { name: "Admin" })).toHaveCount(0);
    await expect(nav.getByRole("link", { name: "Home" })).toHaveAttribute("aria-current", "page");
    await nav.getByRole("link", { name: "Create" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Login\?/);
    await nav.getByRole("link", { name: "Profile" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Login$/);
  });

  test("a USER gets Create to a fresh editor id and Profile to their own page, no Admin", async ({ page }) => {
    await signInAs(page, SEEDED_USER);
    await page.goto("/ReciPals/Home");
    const nav = mainNav(page);
    await expect(nav.getByRole("link", { name: "Admin" })).toHaveCount(0);
    await nav.getByRole("link", { name: "Profile" }).click();
    await expect(page).toHaveURL(`/ReciPals/Account/Profile/${SEEDED_USER.id}`);
    await expect(nav.getByRole("link", { name: "Profile" })).toHaveAttribute("aria-current", "page");
    const create = await page.request.get("/ReciPals/Create", { maxRedirects: 0 });
    expect(create.status()).toBe(302);
    expect(create.headers()["location"]).toMatch(/^\/ReciPals\/Editor\/[0-9a-f-]{36}$/);
  });

  test("an ADMIN also gets Admin", async ({ page }) => {
    await signInAs(page, ADMIN);
    await page.goto("/ReciPals/Home");
    await expect(mainNav(page).getByRole("link", { name: "Admin" })).toHaveAttribute("href", "/ReciPals/Account/Admin");
  });

  test("the bar sits at the bottom on a phone and on the left on a wide screen", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto("/ReciPals/Info");
    let box = await mainNav(page).boundingBox();
    expect(box!.y + box!.height).toBeGreaterThanOrEqual(799);
    expect(box!.width).toBeGreaterThanOrEqual(389);
    await page.setViewportSize({ width: 1280, height: 800 });
    box = await mainNav(page).boundingBox();
    expect(box!.x).toBe(0);
    expect(box!.width).toBeLessThan(400);
  });
});

test.describe("redirects and pages", () => {
  test("/ and /ReciPals go Home; Account goes to Login for visitors", async ({ page }) => {
    await page.goto("/");
    await expect(page).toHaveURL(/\/ReciPals\/Home$/);
    await page.goto("/ReciPals");
    await expect(page).toHaveURL(/\/ReciPals\/Home$/);
    await page.goto("/ReciPals/Account");
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Login$/);
  });

  test("Account goes to the own profile when signed in", async ({ page }) => {
    await signInAs(page, SEEDED_USER);
    await page.goto("/ReciPals/Account");
    await expect(page).toHaveURL(`/ReciPals/Account/Profile/${SEEDED_USER.id}`);
  });

  test("a profile needs sign-in and returns there afterwards", async ({ page }) => {
    await page.goto(`/ReciPals/Account/Profile/${SEEDED_USER.id}`);
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Login\?redirectTo=/);
    await page.getByLabel("Username").fill(SEEDED_USER.username);
    await page.getByLabel("Password").fill(SEEDED_USER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`/ReciPals/Account/Profile/${SEEDED_USER.id}`);
  });

  test("an unknown path is a real 404 page", async ({ page }) => {
    const response = await page.goto("/ReciPals/NoSuchPage");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  });

  test("Info credits the creators and links both original repositories", async ({ page }) => {
    await page.goto("/ReciPals/Info");
    await expect(page.getByRole("link", { name: "https://github.com/jasminduong/recipals", exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: "https://github.com/jasminduong/recipals-node-server-app" })).toBeVisible();
    for (const feature of ["Home", "Login and Signup", "Profile", "Search", "Recipe and Post", "Admin Management"]) {
      await expect(page.getByRole("term").filter({ hasText: new RegExp(`^${feature}$`) })).toBeVisible();
    }
  });
});

test("no page ever carries a password or its hash", async ({ page }) => {
  const hashes = readDb((db) => db.prepare("select password_hash from users").pluck().all() as string[]);
  expect(hashes.length).toBeGreaterThan(3);
  const bodies: string[] = [];
  page.on("response", async (response) => {
    const type = response.headers()["content-type"] ?? "";
    if (type.includes("text/html") || type.includes("json") || type.includes("x-script")) {
      bodies.push(await response.text().catch(() => ""));
    }
  });
  // Through the form on purpose: the password is typed here, and the sign-in's own answers are checked too.
  await signInWithForm(page, ADMIN);
  for (const path of ["/ReciPals/Home", "/ReciPals/Info", `/ReciPals/Account/Profile/${SEEDED_USER.id}`, "/ReciPals/Account/Login"]) {
    await page.goto(path);
    bodies.push(await page.content());
  }
  expect(bodies.length).toBeGreaterThan(4);
  for (const body of bodies) {
    expect(body).not.toContain("scrypt$");
    expect(body).not.toContain(ADMIN.password);
    for (const hash of hashes) expect(body).not.toContain(hash.split("$").at(-1)!);
  }
});
