import { expect, test, type Page } from "@playwright/test";

import { failOnBrowserErrors, openPage, postRecipeWithPhoto, SEEDED_USER, serviceWorkerActive, signInAs, signInNewUser } from "../support/e2e";
import { cameraPhoto } from "../support/photos";

// No stylesheet request before the first paint (docs/rules.md#first-paint): a page writes the
// site-wide stylesheet and its routes' own into <head>; a page reached later by a client
// navigation links its own, and is styled when it shows. With JavaScript on and off.

failOnBrowserErrors();

/** What a rule of each page's own stylesheet does to its layout. */
const OWN_STYLES: [string, string, string, string][] = [
  ["/ReciPals/Home", ".feed", "display", "flex"], // app/styles/feed.css
  ["/ReciPals/Recipes/recipeBot-R12", ".recipe__photo-frame", "border-top-left-radius", "12px"], // recipe.css
  [`/ReciPals/Account/Profile/recipeBot`, ".profile-grid", "display", "grid"], // profile.css
  ["/ReciPals/Search?q=chicken", ".search-form", "display", "flex"], // search.css
];

const styleOf = (page: Page, selector: string, property: string) =>
  page.locator(selector).first().evaluate((element, name) => getComputedStyle(element).getPropertyValue(name), property);

test("Home, a recipe, a profile and Search are styled without a stylesheet request", async ({ page }) => {
  await signInAs(page, SEEDED_USER);
  const stylesheets: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "stylesheet") stylesheets.push(request.url());
  });
  for (const [path, selector, property, value] of OWN_STYLES) {
    await openPage(page, path);
    expect(await styleOf(page, selector, property), `${path}: ${selector}`).toBe(value);
    // The site-wide stylesheet first, then the page's own, and nothing linked.
    const inline = await page.locator("head style[data-href]").evaluateAll((styles) => styles.map((style) => style.getAttribute("data-href")));
    expect(inline[0], path).toMatch(/^\/build\/_assets\/global-[A-Z0-9]+\.css$/);
    expect(inline.length, path).toBe(2);
    await expect(page.locator('head link[rel="stylesheet"]'), path).toHaveCount(0);
  }
  expect(stylesheets).toEqual([]);
});

test("a page reached from another is styled when it shows, and so is the first page on the way back", async ({ page, javaScriptEnabled }) => {
  await signInAs(page, SEEDED_USER);
  await openPage(page, "/ReciPals/Home");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Search" }).click();
  await expect(page).toHaveURL(/\/ReciPals\/Search$/);
  // With JavaScript the page came by a client navigation: its stylesheet was linked and loaded first.
  expect(await styleOf(page, ".search-form", "display")).toBe("flex");
  if (javaScriptEnabled) await expect(page.locator('head link[rel="stylesheet"][href*="/search-"]')).toHaveCount(1);
  await page.goBack();
  await expect(page).toHaveURL(/\/ReciPals\/Home$/);
  expect(await styleOf(page, ".feed", "display")).toBe("flex");
  expect(await styleOf(page, ".photo-frame", "overflow")).toBe("hidden"); // the site-wide stylesheet
});

test("the page's scripts wait for its first photo: on a slow line the photo comes first, then the page hydrates", async ({ page, javaScriptEnabled, baseURL }) => {
  await signInNewUser(page, "firstphoto");
  const photo = await cameraPhoto({ width: 2400, height: 1600, quality: 90, seed: 11 });
  const recipeId = await postRecipeWithPhoto(page, { name: "First photo supper", photo, origin: baseURL! });
  const scripts: string[] = [];
  await page.addInitScript(() => {
    // What starts a module's fetch, in order, and how many module links each task made live.
    const added: string[] = [];
    const linksPerTask: number[] = [];
    // How many paints the page had shown when its module script went in (none: it ran before the first paint).
    const paintsAtScript: number[] = [];
    Object.assign(window, { addedScripts: added, linksPerTask, paintsAtScript });
    const live = (node: Node) => node instanceof HTMLLinkElement && node.rel === "modulepreload";
    new MutationObserver((records) => {
      let links = 0;
      for (const record of records) {
        for (const node of record.type === "attributes" ? [record.target] : [...record.addedNodes]) {
          if (live(node)) {
            added.push((node as HTMLLinkElement).getAttribute("href")!);
            links += 1;
          } else if (record.type === "childList" && node instanceof HTMLScriptElement && node.type === "module") {
            added.push("module script");
            paintsAtScript.push(performance.getEntriesByType("paint").length);
          }
        }
      }
      if (links > 0) linksPerTask.push(links);
    }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["rel"] });
  });
  page.on("request", (request) => {
    if (/\.js(\?|$)/.test(request.url())) scripts.push(request.url());
  });
  // A slow phone line (Lighthouse's mobile preset): the photo and ~100 KB of script would share it.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 });
  await page.goto(`/ReciPals/Recipes/${recipeId}`, { waitUntil: "commit" });
  const first = page.locator('img[fetchpriority="high"]');
  await expect(first).toHaveJSProperty("complete", true, { timeout: 20_000 });
  expect(await first.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  if (!javaScriptEnabled) {
    // The scripts are in an inert template: nothing is fetched.
    await page.waitForLoadState("load");
    expect(scripts).toEqual([]);
    return;
  }
  await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 20_000 });
  const timing = await page.evaluate(() => {
    const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
    const image = document.querySelector<HTMLImageElement>('img[fetchpriority="high"]')!.currentSrc;
    return {
      photoEnd: entries.find((entry) => entry.name === image)?.responseEnd ?? null,
      firstScript: Math.min(...entries.filter((entry) => /\.js(\?|$)/.test(entry.name)).map((entry) => entry.startTime)),
    };
  });
  expect(timing.photoEnd).not.toBeNull();
  expect(scripts.length).toBeGreaterThan(5);
  expect(timing.firstScript).toBeGreaterThanOrEqual(timing.photoEnd!);
  // Asked for as the photo arrived, not at the 3 s limit.
  expect(timing.firstScript - timing.photoEnd!).toBeLessThan(1500);
  // Hydrated: the page's own JavaScript runs (the comment box's Post is disabled while it is empty).
  await expect(page.getByRole("button", { name: "Post" })).toBeDisabled();
  // The module script went in first, then every module link the server wrote came alive in its
  // order, two at a time: starting twenty fetches at once made one long task.
  const written = await (await page.request.get(`/ReciPals/Recipes/${recipeId}`)).text();
  const links = [...written.matchAll(/<link data-rel="modulepreload" href="([^"]+)"\/>/g)].map((match) => match[1]);
  expect(links.length).toBeGreaterThan(4);
  type Seen = { addedScripts: string[]; linksPerTask: number[]; paintsAtScript: number[] };
  const seenNow = () =>
    page.evaluate((): Seen => {
      const { addedScripts, linksPerTask, paintsAtScript } = window as unknown as Seen;
      return { addedScripts, linksPerTask, paintsAtScript };
    });
  const seen = await seenNow();
  expect(seen.addedScripts).toEqual(["module script", ...links]);
  expect(Math.max(...seen.linksPerTask)).toBeLessThanOrEqual(2);
  expect(seen.paintsAtScript).toEqual([expect.any(Number)]);
  expect(seen.paintsAtScript[0]).toBeGreaterThan(0);
  // Again with the photo in the browser's cache, there before the page is parsed: the scripts
  // still wait until the page has been shown once.
  await page.goto(`/ReciPals/Recipes/${recipeId}`);
  await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 20_000 });
  const again = await seenNow();
  expect(again.paintsAtScript).toEqual([expect.any(Number)]);
  expect(again.paintsAtScript[0]).toBeGreaterThan(0);
  // The framework's script (React DOM among it) asks Chrome to compile all of it while it
  // downloads (scripts/build.js): its functions run as the page hydrates.
  const bodies = await Promise.all([...new Set(scripts)].map(async (url) => (await page.request.get(url)).text()));
  const framework = bodies.filter((body) => body.includes("reactjs.org/docs/error-decoder.html"));
  expect(framework).toHaveLength(1);
  expect(framework[0]!.startsWith("//# allFunctionsCalledOnLoad\n")).toBe(true);
});

test("Home, a recipe, a profile and Search each load a handful of script modules, not one per shared piece", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "without JavaScript a page loads no script");
  // The build merges the compiler's small shared chunks (scripts/rechunk.js): each module costs
  // a slow phone a task of its own as it arrives. Before, these pages loaded 21-27 modules.
  await signInAs(page, SEEDED_USER);
  for (const [path] of OWN_STYLES) {
    await openPage(page, path);
    const modules = await page.evaluate(() =>
      performance
        .getEntriesByType("resource")
        .map((entry) => new URL(entry.name).pathname)
        .filter((pathname) => pathname.startsWith("/build/") && pathname.endsWith(".js")),
    );
    expect(new Set(modules).size, `${path}: ${modules.join(" ")}`).toBeLessThanOrEqual(12);
    // The client entry, the framework, the root's and the page's own modules among them.
    expect(modules.some((module) => /^\/build\/entry\.client-[\w-]+\.js$/.test(module)), path).toBe(true);
    expect(modules.some((module) => /^\/build\/root-[\w-]+\.js$/.test(module)), path).toBe(true);
  }
});

test("the service worker is registered only after the page has hydrated", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "without JavaScript nothing registers a service worker");
  // What the page had done when it asked for the worker: hydrated (the root's marker) or not.
  await page.addInitScript(() => {
    const container = navigator.serviceWorker;
    const register = container.register.bind(container);
    container.register = (...args: Parameters<ServiceWorkerContainer["register"]>) => {
      Object.assign(window, { hydratedAtRegister: document.documentElement.dataset.hydrated ?? "no" });
      return register(...args);
    };
  });
  await openPage(page, "/ReciPals/Home");
  await expect.poll(() => page.evaluate(() => (window as { hydratedAtRegister?: string }).hydratedAtRegister ?? null), { timeout: 15_000 }).toBe("true");
  await expect.poll(() => serviceWorkerActive(page), { timeout: 15_000 }).toBe(true);
});
