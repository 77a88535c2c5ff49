import http from "node:http";
import type { AddressInfo } from "node:net";

import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";

import { openPage, postRecipeWithPhoto, readDb, SEEDED_USER, signInAs, signInNewUser } from "../support/e2e";
import { cameraPhoto } from "../support/photos";

// What we add beyond the original (docs/rules.md), past the recipe page: import by link, saved recipes offline (service worker and
// manifest), profile Atom feeds, share tags on the profile and post viewer. The import reads a
// stub page served here on 127.0.0.1; the e2e server runs with IMPORT_ALLOW_PRIVATE=1 for it.

const RECIPE_NAME = "Stub Shakshuka";

let stub: http.Server;
let stubBase: string;

test.beforeAll(async () => {
  const photo = await sharp({ create: { width: 900, height: 600, channels: 3, background: "#b91c1c" } }).jpeg().toBuffer();
  const jsonLd = {
    "@context": "https://schema.org",
    "@graph": [
      { "@type": "WebSite", name: "Stub kitchen" },
      {
        "@type": "Recipe",
        name: RECIPE_NAME,
        description: "Eggs poached in a spiced tomato & pepper sauce.",
        image: { "@type": "ImageObject", url: "/shakshuka.jpg" },
        recipeIngredient: ["Eggs (4)", "Tomatoes (400g)", "Red pepper (1)"],
        recipeInstructions: [
          { "@type": "HowToSection", name: "Sauce", itemListElement: [{ "@type": "HowToStep", text: "Soften the pepper." }, { "@type": "HowToStep", text: "Add the tomatoes." }] },
          { "@type": "HowToStep", text: "Poach the eggs in the sauce." },
        ],
        totalTime: "PT1H20M",
        recipeYield: "4 servings",
        keywords: "eggs, brunch, spicy, one-pan",
      },
    ],
  };
  stub = http.createServer((request, response) => {
    if (request.url === "/recipe") {
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end(`<!doctype html><title>Shakshuka</title><script type="application/ld+json">${JSON.stringify(jsonLd)}</script><h1>Shakshuka</h1>`);
    } else if (request.url === "/shakshuka.jpg") {
      response.writeHead(200, { "Content-Type": "image/jpeg" }).end(photo);
    } else if (request.url === "/plain") {
      response.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>Blog</title><p>Just words.</p>");
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve));
  stubBase = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  stub.closeAllConnections();
  await new Promise((resolve) => stub.close(resolve));
});

async function openNewEditor(page: Page): Promise<string> {
  await page.goto("/ReciPals/Create");
  await expect(page).toHaveURL(/\/ReciPals\/Editor\/[0-9a-f-]{36}$/);
  return decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
}

test.describe("import a recipe by link", () => {
  test("fills the editor from the page's Recipe JSON-LD, saving nothing until Save", async ({ page, javaScriptEnabled }) => {
    const user = await signInNewUser(page, "importer");
    const rid = await openNewEditor(page);
    const link = page.getByLabel("Import from link");
    await link.fill(`${stubBase}/recipe`);
    if (javaScriptEnabled) await link.press("Enter"); // Enter in the link field imports, it does not save
    else await page.getByRole("button", { name: "Import", exact: true }).click();

    await expect(page.getByLabel("Recipe Name")).toHaveValue(RECIPE_NAME);
    await expect(page.getByLabel("Description (Caption)")).toHaveValue("Eggs poached in a spiced tomato & pepper sauce.");
    await expect(page.getByLabel("Section Title")).toHaveValue("Main Ingredients");
    await expect(page.getByLabel("Ingredient", { exact: true })).toHaveCount(3);
    await expect(page.getByLabel("Ingredient", { exact: true }).first()).toHaveValue("Eggs (4)");
    await expect(page.getByLabel("Step 1")).toHaveValue("Soften the pepper.");
    await expect(page.getByLabel("Step 3")).toHaveValue("Poach the eggs in the sauce.");
    await expect(page.getByLabel("Total Time")).toHaveValue("1 hr 20 min");
    await expect(page.getByLabel("Serves")).toHaveValue("4");
    await expect(page.getByLabel("Tags")).toHaveValue("eggs, brunch, spicy");
    await expect(page.getByRole("status").filter({ hasText: `Imported “${RECIPE_NAME}” from 127.0.0.1` })).toBeVisible();
    await expect(page.getByLabel("Import from link")).toHaveValue(`${stubBase}/recipe`);
    await expect(page.getByText("Your new photo is ready and will be saved with the recipe.")).toBeVisible();
    await expect(page.getByRole("img", { name: "Recipe photo preview" })).toHaveAttribute("src", /^\/uploads\/[0-9a-f]{64}\.webp$/);
    expect(readDb((db) => db.prepare("select id from recipes where id = ?").get(rid))).toBeUndefined();

    await page.getByRole("button", { name: "Save" }).click();
    await expect(page).toHaveURL(new RegExp(`/ReciPals/Account/Profile/${user.id}/Posts/[0-9a-f-]{36}$`));
    const row = readDb(
      (db) => db.prepare("select name, total_time, serves, photo from recipes where id = ?").get(rid) as { name: string; total_time: string; serves: number; photo: string },
    );
    expect(row).toMatchObject({ name: RECIPE_NAME, total_time: "1 hr 20 min", serves: 4 });
    expect(row.photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    // The recipe page reads the imported time back as ISO 8601.
    await page.goto(`/ReciPals/Recipes/${rid}`);
    expect(await page.content()).toContain('"totalTime":"PT1H20M"');
  });

  test("says why when a page has no recipe or the link is not http(s), keeping what was typed", async ({ page }) => {
    await signInAs(page, SEEDED_USER);
    await openNewEditor(page);
    await page.getByLabel("Recipe Name").fill("My own dal");
    const link = page.getByLabel("Import from link");
    await link.fill(`${stubBase}/plain`);
    await page.getByRole("button", { name: "Import", exact: true }).click();
    await expect(page.getByRole("alert").filter({ hasText: "No recipe was found on that page" })).toBeVisible();
    await expect(page.getByLabel("Import from link")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Recipe Name")).toHaveValue("My own dal");

    await page.getByLabel("Import from link").fill("ftp://example.com/recipe");
    await page.getByRole("button", { name: "Import", exact: true }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Only http:// and https:// links can be imported." })).toBeVisible();
    await expect(page.getByLabel("Recipe Name")).toHaveValue("My own dal");
  });
});

test.describe("saved recipes offline", () => {
  test("the service worker keeps a saved recipe readable with the network cut, and shows the offline page otherwise", async ({
    page,
    context,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "A service worker needs JavaScript; without it pages simply load from the network.");
    await signInNewUser(page, "offline");
    await openPage(page, "/ReciPals/Recipes/jd-R1");
    // The button turns at once (optimistic); leaving before the server has answered could cancel
    // the save, and the Saved list would not hold the recipe.
    const saved = page.waitForResponse((response) => response.request().method() === "POST" && /\/Recipes\/jd-R1\/Save/.test(response.url()));
    await page.getByRole("button", { name: "Save recipe" }).click();
    await expect(page.getByRole("button", { name: "Unsave recipe" })).toBeVisible();
    expect((await saved).ok()).toBe(true);

    await page.goto("/ReciPals/Saved");
    await expect(page.getByRole("link", { name: "Beef Rice Noodles Stir Fry" }).first()).toBeVisible();
    await expect(page.getByRole("heading", { name: "Saved Recipes" })).toBeVisible();
    const cached = (url: string) => page.evaluate(async (key) => Boolean(await caches.match(key, { ignoreVary: true })), url);
    await expect.poll(() => cached("/ReciPals/Recipes/jd-R1"), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => cached("/images/noodleDish.png"), { timeout: 15_000 }).toBe(true);
    // Account pages, the API and unsaved recipes are never kept.
    expect(await cached(`/ReciPals/Recipes/recipeBot-R5`)).toBe(false);
    expect(await page.evaluate(async () => (await Promise.all((await caches.keys()).map(async (name) => (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname)))).flat())).not.toContainEqual(
      expect.stringMatching(/^\/(?:api\/|ReciPals\/Account\/)/),
    );

    await context.setOffline(true);
    try {
      await page.goto("/ReciPals/Recipes/jd-R1");
      await expect(page.getByRole("heading", { level: 1, name: "Beef Rice Noodles Stir Fry" })).toBeVisible();
      await expect(page.getByText("Eggs (3)")).toBeVisible();
      await expect
        .poll(() => page.locator("img.recipe__photo").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
        .toBe(true);

      await page.goto("/ReciPals/Recipes/recipeBot-R5");
      await expect(page.getByRole("heading", { name: "You are offline" })).toBeVisible();
      await page.goto("/ReciPals/No/Such/Page");
      await expect(page.getByRole("heading", { name: "You are offline" })).toBeVisible();
      await expect(page.getByRole("link", { name: "Saved Recipes" })).toHaveAttribute("href", "/ReciPals/Saved");
    } finally {
      await context.setOffline(false);
    }

    // Signing out drops everything the worker kept for this user.
    await page.goto("/ReciPals/Home");
    await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
    await expect(page.getByRole("banner").getByRole("link", { name: "Sign in" })).toBeVisible();
    await expect.poll(() => cached("/ReciPals/Recipes/jd-R1"), { timeout: 10_000 }).toBe(false);
    await expect.poll(() => cached("/ReciPals/Saved")).toBe(false);
    // Clear-Site-Data also removed the worker; the next page registers it again, and the offline
    // page (nobody's data) is back for whoever uses the device next.
    await expect.poll(() => cached("/offline.html"), { timeout: 15_000 }).toBe(true);
  });

  test("a saved recipe's photo is kept offline in the one format the browser shows (AVIF), not in both", async ({ page, baseURL, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "A service worker needs JavaScript.");
    await signInNewUser(page, "offlinephoto");
    const photo = await cameraPhoto({ width: 1800, height: 1200, quality: 88, seed: 21 });
    const recipeId = await postRecipeWithPhoto(page, { name: "Offline photo stew", photo, origin: baseURL! });
    await openPage(page, `/ReciPals/Recipes/${recipeId}`);
    // The AVIF copies the recipe's <picture> offers (the main file and the widths in its srcset).
    const offered = ((await page.locator('picture source[type="image/avif"]').first().getAttribute("srcset")) ?? "")
      .split(",")
      .map((candidate) => candidate.trim().split(/\s+/)[0]!)
      .filter(Boolean);
    expect(offered.length).toBeGreaterThanOrEqual(3);
    const saved = page.waitForResponse((response) => response.request().method() === "POST" && response.url().includes("/Save"));
    await page.getByRole("button", { name: "Save recipe" }).click();
    expect((await saved).ok()).toBe(true);

    await page.goto("/ReciPals/Saved");
    const keptPhotos = () =>
      page.evaluate(async () => {
        const keys = (await Promise.all((await caches.keys()).map(async (name) => (await caches.open(name)).keys()))).flat();
        return keys.map((request) => new URL(request.url).pathname).filter((path) => path.startsWith("/uploads/"));
      });
    // Every copy it offers is kept (the worker stores them one by one)...
    await expect
      .poll(async () => {
        const kept = await keptPhotos();
        return offered.filter((path) => !kept.includes(path));
      }, { timeout: 15_000 })
      .toEqual([]);
    // ...and nothing but AVIF: Chromium never asks for the WebP copies.
    expect((await keptPhotos()).filter((path) => !path.endsWith(".avif"))).toEqual([]);
    // The Saved page shows the same photo, and the worker keeps it first: the recipe page itself
    // may come a moment later.
    const pageKept = () => page.evaluate(async (key) => Boolean(await caches.match(key, { ignoreVary: true })), `/ReciPals/Recipes/${recipeId}`);
    await expect.poll(pageKept, { timeout: 15_000 }).toBe(true);

    await page.context().setOffline(true);
    try {
      await page.goto(`/ReciPals/Recipes/${recipeId}`);
      await expect(page.getByRole("heading", { level: 1, name: "Offline photo stew" })).toBeVisible();
      await expect.poll(() => page.locator("img.recipe__photo").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    } finally {
      await page.context().setOffline(false);
    }
  });

  test("the app links an installable web manifest with 192 and 512 px icons", async ({ page, request }) => {
    await page.goto("/ReciPals/Home");
    await expect(page.locator('head link[rel="manifest"]')).toHaveAttribute("href", "/manifest.webmanifest");
    const response = await request.get("/manifest.webmanifest");
    expect(response.status()).toBe(200);
    const manifest = (await response.json()) as { name: string; short_name: string; start_url: string; display: string; theme_color: string; icons: { src: string; sizes: string }[] };
    expect(manifest).toMatchObject({ name: "ReciPals", short_name: "ReciPals", start_url: "/ReciPals/Home", display: "standalone", theme_color: "#c2410c" });
    for (const size of [192, 512]) {
      const icon = manifest.icons.find((entry) => entry.sizes === `${size}x${size}`)!;
      const image = await request.get(icon.src);
      expect(image.headers()["content-type"]).toBe("image/png");
      const meta = await sharp(await image.body()).metadata();
      expect([meta.width, meta.height]).toEqual([size, size]);
    }
    const offline = await request.get("/offline.html");
    expect(await offline.text()).toContain("You are offline");
  });
});

test.describe("profile feeds and share tags", () => {
  test("the profile links its public Atom feed: the latest 50 recipes, newest first", async ({ page, request, baseURL, javaScriptEnabled }) => {
    await signInAs(page, SEEDED_USER);
    await page.goto("/ReciPals/Account/Profile/recipeBot");
    const feedLink = page.locator('head link[rel="alternate"][type="application/atom+xml"]');
    await expect(feedLink).toHaveAttribute("href", `${baseURL}/ReciPals/Users/recipeBot/recipes.atom`);
    await expect(page.locator('head meta[property="og:url"]')).toHaveAttribute("content", `${baseURL}/ReciPals/Account/Profile/recipeBot`);
    await expect(page.locator('head meta[property="og:image"]')).toHaveAttribute("content", `${baseURL}/images/recipeBot.png`);

    // Feed readers do not sign in: the request fixture carries no session.
    const response = await request.get("/ReciPals/Users/recipeBot/recipes.atom");
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toBe("application/atom+xml; charset=utf-8");
    const xml = await response.text();
    const recipes = readDb((db) => db.prepare("select name from recipes where user_created = 'recipeBot' order by seq desc limit 50").pluck().all() as string[]);
    expect(recipes).toHaveLength(50); // the bot has 302: the feed holds the latest 50
    expect(xml.match(/<entry>/g)).toHaveLength(recipes.length);
    if (javaScriptEnabled) {
      // The browser's own XML parser: well-formed, Atom's namespace, titles as the recipes' names.
      const parsed = await page.evaluate((text) => {
        const doc = new DOMParser().parseFromString(text, "application/xml");
        const atom = "http://www.w3.org/2005/Atom";
        return {
          errors: doc.getElementsByTagName("parsererror").length,
          namespace: doc.documentElement.namespaceURI,
          titles: [...doc.getElementsByTagNameNS(atom, "entry")].map((entry) => entry.getElementsByTagNameNS(atom, "title")[0]?.textContent),
        };
      }, xml);
      expect(parsed).toEqual({ errors: 0, namespace: "http://www.w3.org/2005/Atom", titles: recipes });
    }
  });

  test("the post viewer carries the post's share tags", async ({ page, baseURL }) => {
    await signInAs(page, SEEDED_USER);
    await page.goto("/ReciPals/Account/Profile/123/Posts/jd-P1");
    await expect(page.locator('head meta[property="og:title"]')).toHaveAttribute("content", "Beef Rice Noodles Stir Fry");
    await expect(page.locator('head meta[property="og:image"]')).toHaveAttribute("content", `${baseURL}/images/noodleDish.png`);
    await expect(page.locator('head meta[name="twitter:card"]')).toHaveAttribute("content", "summary_large_image");
    await expect(page.locator('head link[rel="canonical"]')).toHaveAttribute("href", `${baseURL}/ReciPals/Account/Profile/123/Posts/jd-P1`);
    await expect(page.locator('head link[rel="alternate"][type="application/atom+xml"]')).toHaveAttribute("href", `${baseURL}/ReciPals/Users/123/recipes.atom`);
  });
});
