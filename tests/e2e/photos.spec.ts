import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";

import { cameraPhoto } from "../support/photos";
import { failOnBrowserErrors, openPage, postRecipeWithPhoto, signInNewUser } from "../support/e2e";

// Photos sized for their slots (docs/rules.md#images): every stored photo is offered in its
// copies through srcset and sizes, so a phone fetches a copy about as wide as the slot it fills,
// and the first screen's photos come first while the rest wait. With JavaScript on and off: the
// markup alone does it.

failOnBrowserErrors();

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

/** Four recipes with camera photos, posted through the API as the signed-in person on `page`. */
async function fourRecipes(page: Page, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < 4; n++) {
    const photo = await cameraPhoto({ width: 1800, height: 1200, quality: 88, seed: n + 3 });
    ids.push(await postRecipeWithPhoto(page, { name: `${prefix} supper ${n + 1}`, photo, origin: new URL(page.url()).origin }));
  }
  return ids;
}

interface Shown {
  src: string;
  chosen: number;
  /** The copy's format: Chromium reads AVIF, so it takes the AVIF twin a `<picture>` offers first. */
  format: string;
  slot: number;
  dpr: number;
  eager: boolean;
  top: number;
  priority: string | null;
}

/** Every stored photo on the page once loaded: the copy the browser chose (its width), and the slot's. */
async function storedPhotos(page: Page, selector = "img[srcset]"): Promise<Shown[]> {
  const images = page.locator(selector);
  const count = await images.count();
  for (let i = 0; i < count; i++) {
    const image = images.nth(i);
    await image.scrollIntoViewIfNeeded();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return page.$$eval(selector, (imgs) =>
    (imgs as HTMLImageElement[]).map((img) => {
      const chosen = /\.w(\d+)\.(webp|avif)$/.exec(img.currentSrc)?.[1] ?? (/\.card\.(webp|avif)$/.test(img.currentSrc) ? "400" : "800");
      return {
        src: img.currentSrc,
        chosen: Number(chosen),
        format: img.currentSrc.split(".").pop() ?? "",
        slot: img.getBoundingClientRect().width,
        dpr: window.devicePixelRatio,
        eager: img.loading !== "lazy",
        top: img.getBoundingClientRect().top + window.scrollY,
        priority: img.getAttribute("fetchpriority"),
      };
    }),
  );
}

/** The copy is sharp enough for the slot and not more than the next copy up would be, and in AVIF (camera photos are smaller in it). */
function expectFits(photo: Shown) {
  const needed = photo.slot * photo.dpr;
  const copies = [320, 400, 480, 640, 800];
  const best = copies.find((width) => width >= needed) ?? 800;
  expect(photo.chosen, `${photo.src} in a ${Math.round(photo.slot)} px slot`).toBe(best);
  expect(photo.format, photo.src).toBe("avif");
}

for (const viewport of [PHONE, DESKTOP]) {
  test(`the profile grid, a recipe and search fetch copies that fit their slots at ${viewport.width} px`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.setViewportSize(viewport);
    const me = await signInNewUser(page, "photos");
    await openPage(page, "/ReciPals/Info");
    const prefix = me.username;
    const ids = await fourRecipes(page, prefix);

    await openPage(page, `/ReciPals/Account/Profile/${me.id}`);
    const grid = await storedPhotos(page, ".profile-grid img[srcset]");
    expect(grid).toHaveLength(4);
    grid.forEach(expectFits);
    expect(grid.map((photo) => photo.priority)).toEqual(["high", null, null, null]);

    await openPage(page, `/ReciPals/Search?q=${encodeURIComponent(prefix)}`);
    const cards = await storedPhotos(page, ".recipe-result__photo");
    expect(cards.length).toBeGreaterThanOrEqual(4);
    cards.forEach(expectFits);

    // Last: a browser may show a wider copy it already holds, and the recipe page's is the widest.
    await openPage(page, `/ReciPals/Recipes/${ids[3]}`);
    const [hero] = await storedPhotos(page, ".recipe__photo");
    expectFits(hero!);
    expect(hero!.priority).toBe("high");
  });
}

test("on a phone no photo outside the first screen is fetched eagerly", async ({ page }) => {
  await page.setViewportSize(PHONE);
  const me = await signInNewUser(page, "eager");
  await openPage(page, "/ReciPals/Info");
  const ids = await fourRecipes(page, me.username);
  for (const path of ["/ReciPals/Home", `/ReciPals/Account/Profile/${me.id}`, `/ReciPals/Recipes/${ids[0]}`]) {
    await openPage(page, path);
    const eager = await page.$$eval("img", (imgs) =>
      (imgs as HTMLImageElement[]).filter((img) => img.loading !== "lazy").map((img) => ({ src: img.src, top: img.getBoundingClientRect().top + window.scrollY })),
    );
    for (const image of eager) expect(image.top, `${path}: ${image.src}`).toBeLessThan(PHONE.height);
  }
});

test("each photo slot shows the photo's own blurred placeholder, not a flat box, until the photo arrives", async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize(PHONE);
  const me = await signInNewUser(page, "blur");
  await openPage(page, "/ReciPals/Info");
  const ids = await fourRecipes(page, me.username);
  // From here on the photos never arrive (their requests are held): only a placeholder can show.
  await page.route(/\/uploads\/[0-9a-f]{64}(\.card|\.w\d+)?\.(webp|avif)$/, () => {});
  const slots: [string, string][] = [
    [`/ReciPals/Account/Profile/${me.id}`, ".profile-grid__item"],
    [`/ReciPals/Recipes/${ids[0]}`, ".recipe__photo-frame"],
    [`/ReciPals/Search?q=${encodeURIComponent(me.username)}`, ".recipe-result .photo-frame"],
  ];
  for (const [path, selector] of slots) {
    await page.goto(path, { waitUntil: "domcontentloaded" });
    const frame = page.locator(selector).first();
    const blur = frame.locator("img.photo-frame__blur");
    // Inline, a few hundred bytes: no request of its own.
    await expect(blur).toHaveAttribute("src", /^data:image\/webp;base64,[A-Za-z0-9+/=]{40,600}$/);
    await expect.poll(() => blur.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBe(16);
    // A flat box is one colour; the photo's placeholder carries its colours and shapes.
    const { channels } = await sharp(await frame.screenshot()).stats();
    expect(Math.max(...channels.slice(0, 3).map((channel) => channel.stdev)), `${path}: ${selector}`).toBeGreaterThan(8);
  }
});
