import { expect, test, type Page } from "@playwright/test";

import { failOnBrowserErrors, openPage, signInNewUser } from "../support/e2e";

// Cook mode (docs/rules.md#cook-mode). Seeded recipes, only read here:
// - "Beef Rice Noodles Stir Fry" (jd-R1): 10 steps, serves 4; step 1 names the eggs, step 2 the beef.
// - "Beef stroganoff" (recipeBot-R12): step 1 "…so around 15 mins…", step 2 "…cook for a 2-3 mins
//   further…" (a range: its timer is the lower end, 2 min), step 3 "…around 5 mins…".
const NOODLES = "/ReciPals/Recipes/jd-R1";
const STROGANOFF = "/ReciPals/Recipes/recipeBot-R12";

const stepHeading = (page: Page, step: number, of: number) => page.getByRole("heading", { name: `Step ${step} of ${of}` });

/** Swaps Web Audio for a stand-in that counts the beeps (headless browsers may have no sound). */
async function countBeeps(page: Page): Promise<() => Promise<number>> {
  await page.addInitScript(() => {
    const counter = window as unknown as { __tones: number };
    counter.__tones = 0;
    const node = () => ({ connect: (next: unknown) => next, start() {}, stop() {}, type: "", frequency: { value: 0 }, gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} } });
    class StandInAudio {
      state = "running";
      currentTime = 0;
      destination = {};
      resume() {
        return Promise.resolve();
      }
      createOscillator() {
        counter.__tones += 1;
        return node();
      }
      createGain() {
        return node();
      }
    }
    Object.defineProperty(window, "AudioContext", { configurable: true, writable: true, value: StandInAudio });
  });
  return () => page.evaluate(() => (window as unknown as { __tones: number }).__tones);
}

test.describe("cook mode", () => {
  failOnBrowserErrors();

  test("one step at a time: Step N of M, Next and Previous links, none past the ends, Back to recipe", async ({ page, javaScriptEnabled }) => {
    await openPage(page, `${NOODLES}/Cook`);
    await expect(page).toHaveTitle("Cook: Beef Rice Noodles Stir Fry");
    await expect(page.getByRole("heading", { level: 1, name: "Beef Rice Noodles Stir Fry" })).toBeVisible();
    await expect(stepHeading(page, 1, 10)).toBeVisible();
    await expect(page.getByText("Scramble and cook 3 eggs")).toBeVisible();
    const pager = page.getByRole("navigation", { name: "Steps" });
    await expect(pager.getByRole("link", { name: "Previous step" })).toHaveCount(0);

    await pager.getByRole("link", { name: "Next step" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Recipes\/jd-R1\/Cook\?step=2$/);
    await expect(stepHeading(page, 2, 10)).toBeVisible();
    await expect(page.getByText("Slice beef, marinate with sauce")).toBeVisible();
    await pager.getByRole("link", { name: "Previous step" }).click();
    await expect(page).toHaveURL(/\/Cook\?step=1$/);
    await expect(stepHeading(page, 1, 10)).toBeVisible();

    await openPage(page, `${NOODLES}/Cook?step=10`);
    await expect(stepHeading(page, 10, 10)).toBeVisible();
    await expect(pager.getByRole("link", { name: "Next step" })).toHaveCount(0);
    await expect(pager.getByRole("link", { name: "Previous step" })).toHaveAttribute("href", `${NOODLES}/Cook?step=9`);

    if (!javaScriptEnabled) {
      // Without JavaScript: no timers and no screen switch, only what works as plain pages.
      await openPage(page, `${STROGANOFF}/Cook`);
      await expect(page.getByText("15 mins", { exact: true })).toBeVisible();
      await expect(page.getByRole("button", { name: /Start timer/ })).toHaveCount(0);
      await expect(page.getByRole("switch", { name: "Keep screen on" })).toHaveCount(0);
      await expect(page.getByText("This browser cannot keep the screen on.")).toHaveCount(0);
    }

    await openPage(page, `${NOODLES}/Cook?step=10`);
    await page.getByRole("link", { name: "Back to recipe" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Recipes\/jd-R1$/);
    await expect(page.getByRole("heading", { level: 1, name: "Beef Rice Noodles Stir Fry" })).toBeVisible();
  });

  test("a step out of range, zero, negative or not a number goes to the nearest step", async ({ page, request }) => {
    for (const [asked, step] of [
      ["99", 10],
      ["0", 1],
      ["-3", 1],
      ["abc", 1],
    ] as const) {
      await page.goto(`${NOODLES}/Cook?step=${asked}&serves=8`);
      await expect(page).toHaveURL(new RegExp(`/Cook\\?step=${step}&serves=8$`));
      await expect(stepHeading(page, step, 10)).toBeVisible();
    }
    const response = await request.get(`${NOODLES}/Cook?step=11`, { maxRedirects: 0 });
    expect([302, 303]).toContain(response.status());
    expect(response.headers()["location"]).toBe(`${NOODLES}/Cook?step=10`);
  });

  test("shows the ingredients at the servings chosen, those the step names beside it, and keeps the servings from step to step", async ({ page }) => {
    await openPage(page, `${NOODLES}/Cook?serves=8`);
    const ingredients = page.getByRole("region", { name: "Ingredients" });
    await expect(ingredients.getByText("For 8 servings")).toBeVisible();
    await expect(ingredients.getByText("Eggs (6)")).toBeVisible();
    await expect(ingredients.getByText("Beef (2 lb.)")).toBeVisible();
    // Step 1 scrambles the eggs: they are shown with it, at 8 servings.
    await expect(page.getByRole("region", { name: "Step 1 of 10" }).getByRole("listitem").filter({ hasText: "Eggs (6)" })).toBeVisible();

    await page.getByRole("link", { name: "Next step" }).click();
    await expect(page).toHaveURL(/\/Cook\?step=2&serves=8$/);
    await expect(page.getByRole("region", { name: "Step 2 of 10" }).getByRole("listitem").filter({ hasText: "Beef (2 lb.)" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Ingredients" }).getByText("Eggs (6)")).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to recipe" })).toHaveAttribute("href", `${NOODLES}?serves=8`);
    await expect(page.getByRole("link", { name: "Previous step" })).toHaveAttribute("href", `${NOODLES}/Cook?step=1&serves=8`);
  });

  test("Left and Right arrow keys move between steps", async ({ page, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "Keys need JavaScript; the links do the same without it.");
    await openPage(page, `${NOODLES}/Cook?step=2`);
    await page.keyboard.press("ArrowRight");
    await expect(page).toHaveURL(/\/Cook\?step=3$/);
    await expect(stepHeading(page, 3, 10)).toBeVisible();
    await page.keyboard.press("ArrowLeft");
    await expect(page).toHaveURL(/\/Cook\?step=2$/);
    // The address changes before the step is shown: the next key acts on the step shown.
    await expect(stepHeading(page, 2, 10)).toBeVisible();
    await page.keyboard.press("ArrowLeft");
    await expect(page).toHaveURL(/\/Cook\?step=1$/);
    await expect(stepHeading(page, 1, 10)).toBeVisible();
    // Nothing before the first step.
    await page.keyboard.press("ArrowLeft");
    await expect(stepHeading(page, 1, 10)).toBeVisible();
    await expect(page).toHaveURL(/\/Cook\?step=1$/);
    // Each move is a page of its own in the history.
    await page.goBack();
    await expect(page).toHaveURL(/\/Cook\?step=2$/);
    await expect(stepHeading(page, 2, 10)).toBeVisible();
  });

  test("a duration in a step starts a timer; when it ends, a beep and an alert until dismissed", async ({ page, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "Timers need JavaScript.");
    const beeps = await countBeeps(page);
    await page.clock.install();
    await openPage(page, `${STROGANOFF}/Cook`);
    await page.getByRole("button", { name: "Start timer 15 min" }).click();
    const timers = page.getByRole("region", { name: "Timers" });
    await expect(timers.getByText("15 min — Step 1")).toBeVisible();
    await expect(timers.getByRole("timer")).toHaveText(/^(?:15:00|14:5\d)$/);

    await page.clock.fastForward("05:00");
    await expect(timers.getByRole("timer")).toHaveText(/^(?:10:00|09:5\d)$/);
    expect(await beeps()).toBe(0);

    await page.clock.fastForward("10:00");
    const done = page.getByRole("alert").filter({ hasText: "Timer done: 15 min — Step 1" });
    await expect(done).toBeVisible();
    await expect(page.getByRole("region", { name: "Timers" })).toHaveCount(0);
    await expect.poll(beeps).toBeGreaterThan(0);
    await done.getByRole("button", { name: "Dismiss" }).click();
    await expect(done).toHaveCount(0);
  });

  test("fills the screen: no site navigation around the step, only its way Back to recipe", async ({ page }) => {
    await openPage(page, `${NOODLES}/Cook`);
    await expect(stepHeading(page, 1, 10)).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" })).toHaveCount(0);
    await expect(page.getByRole("banner")).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Back to recipe" })).toBeVisible();
    // The recipe page keeps the site's navigation.
    await page.getByRole("link", { name: "Back to recipe" }).click();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  });

  test("on a phone a started timer's button shows its state (Pause, Resume, Cancel) and running timers stay at the top", async ({ page, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "Timers need JavaScript.");
    await page.setViewportSize({ width: 390, height: 844 });
    await countBeeps(page);
    await page.clock.install();
    await openPage(page, `${STROGANOFF}/Cook`);
    const step = page.getByRole("region", { name: "Step 1 of 10" });
    await step.getByRole("button", { name: "Start timer 15 min" }).click();
    await expect(step.getByRole("button", { name: "Start timer 15 min" })).toHaveCount(0);
    await expect(step.getByRole("button", { name: "Pause timer 15 min" })).toBeVisible();
    await expect(step.getByRole("button", { name: "Cancel timer 15 min" })).toBeVisible();

    // Read on down the page: the running timer stays on screen, at the top, and nothing covers it.
    const timers = page.getByRole("region", { name: "Timers" });
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(200);
    await expect(timers.getByRole("timer")).toBeInViewport();
    const box = await timers.boundingBox();
    expect(box && box.y).toBeLessThan(10);
    const uncovered = await timers.evaluate((panel) => {
      const { left, top, width, height } = panel.getBoundingClientRect();
      const hit = document.elementFromPoint(left + width / 2, top + height / 2);
      return hit !== null && panel.contains(hit);
    });
    expect(uncovered).toBe(true);

    // Pause holds the time left; Resume runs it on from there.
    await timers.getByRole("button", { name: "Pause timer 15 min — Step 1" }).click();
    await expect(timers.getByText("(paused)")).toBeVisible();
    const heldAt = await timers.getByRole("timer").textContent();
    await page.clock.fastForward("03:00");
    await expect(timers.getByRole("timer")).toHaveText(heldAt ?? "");
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(step.getByRole("button", { name: "Resume timer 15 min" })).toBeVisible();
    await step.getByRole("button", { name: "Resume timer 15 min" }).click();
    await expect(timers.getByText("(paused)")).toHaveCount(0);
    await page.clock.fastForward("03:00");
    await expect(timers.getByRole("timer")).toHaveText(/^(?:12:00|11:5\d)$/);

    // Cancel from the step: the step offers Start again and the panel goes.
    await step.getByRole("button", { name: "Cancel timer 15 min" }).click();
    await expect(step.getByRole("button", { name: "Start timer 15 min" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Timers" })).toHaveCount(0);
  });

  test("two timers run at once, survive moving between steps and a reload, and can be cancelled", async ({ page, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "Timers need JavaScript.");
    await countBeeps(page);
    await page.clock.install();
    await openPage(page, `${STROGANOFF}/Cook`);
    await page.getByRole("button", { name: "Start timer 15 min" }).click();
    await page.getByRole("link", { name: "Next step" }).click();
    await expect(stepHeading(page, 2, 10)).toBeVisible();
    // "2-3 mins": the lower end.
    await page.getByRole("button", { name: "Start timer 2 min" }).click();
    const timers = page.getByRole("region", { name: "Timers" });
    await expect(timers.getByRole("listitem")).toHaveCount(2);
    await expect(timers.getByText("15 min — Step 1")).toBeVisible();
    await expect(timers.getByText("2 min — Step 2")).toBeVisible();

    await page.keyboard.press("ArrowRight");
    await expect(stepHeading(page, 3, 10)).toBeVisible();
    await expect(timers.getByRole("listitem")).toHaveCount(2);
    await page.reload();
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    await expect(stepHeading(page, 3, 10)).toBeVisible();
    await expect(timers.getByRole("listitem")).toHaveCount(2);

    await page.clock.fastForward("02:05");
    await expect(page.getByRole("alert").filter({ hasText: "Timer done: 2 min — Step 2" })).toBeVisible();
    await expect(timers.getByRole("listitem")).toHaveCount(1);
    await expect(timers.getByText("15 min — Step 1")).toBeVisible();
    await timers.getByRole("button", { name: "Cancel timer 15 min — Step 1" }).click();
    await expect(page.getByRole("region", { name: "Timers" })).toHaveCount(0);
    await page.getByRole("alert").getByRole("button", { name: "Dismiss" }).click();
    await expect(page.getByRole("alert")).toHaveCount(0);
  });

  test("Keep screen on: a screen wake lock while cook mode is open, released when switched off, asked again when shown again", async ({
    page,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "The wake lock needs JavaScript; without it the switch is not shown.");
    // A stand-in Wake Lock API that notes what the page asks of it.
    await page.addInitScript(() => {
      const notes: string[] = [];
      const shared = window as unknown as { __wakeNotes: string[]; __lastLock: { released: boolean } | null };
      shared.__wakeNotes = notes;
      shared.__lastLock = null;
      const request = async (type: string) => {
        notes.push(`request ${type}`);
        const lock = {
          type,
          released: false,
          async release() {
            if (lock.released) return;
            lock.released = true;
            notes.push("release");
          },
          addEventListener() {},
          removeEventListener() {},
        };
        shared.__lastLock = lock;
        return lock;
      };
      Object.defineProperty(Navigator.prototype, "wakeLock", { configurable: true, get: () => ({ request }) });
    });
    const notes = () => page.evaluate(() => (window as unknown as { __wakeNotes: string[] }).__wakeNotes);
    await openPage(page, `${NOODLES}/Cook`);
    const keepOn = page.getByRole("switch", { name: "Keep screen on" });
    await expect(keepOn).toBeChecked();
    await expect.poll(notes).toEqual(["request screen"]);
    await expect(page.getByText("This browser cannot keep the screen on.")).toHaveCount(0);

    // Moving between steps keeps the one lock.
    await page.getByRole("link", { name: "Next step" }).click();
    await expect(stepHeading(page, 2, 10)).toBeVisible();
    expect(await notes()).toEqual(["request screen"]);

    await keepOn.uncheck();
    await expect.poll(notes).toEqual(["request screen", "release"]);
    await keepOn.check();
    await expect.poll(notes).toEqual(["request screen", "release", "request screen"]);

    // The browser lets go of the lock when the page is hidden; shown again, the page asks again.
    await page.evaluate(() => {
      (window as unknown as { __lastLock: { released: boolean } }).__lastLock.released = true;
      document.dispatchEvent(new Event("visibilitychange"));
    });
    await expect.poll(notes).toEqual(["request screen", "release", "request screen", "request screen"]);
  });

  test("a browser without the Wake Lock API is told so, and gets no switch", async ({ page, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "Without JavaScript nothing is said about the screen.");
    await page.addInitScript(() => {
      delete (Navigator.prototype as unknown as { wakeLock?: unknown }).wakeLock;
    });
    await openPage(page, `${NOODLES}/Cook`);
    await expect(page.getByText("This browser cannot keep the screen on.")).toBeVisible();
    await expect(page.getByRole("switch", { name: "Keep screen on" })).toHaveCount(0);
  });
});

test.describe("cook mode on a phone", () => {
  failOnBrowserErrors();
  test.use({ hasTouch: true, viewport: { width: 390, height: 844 } });

  test("a swipe to the left goes to the next step, to the right back; nothing is wider than the screen", async ({ page, javaScriptEnabled }) => {
    await openPage(page, `${STROGANOFF}/Cook?step=2`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // Swipes need JavaScript; without it the links do the same (tested above).
    if (!javaScriptEnabled) return;
    const swipe = (dx: number) =>
      page.locator("article.cook").evaluate((article, dx) => {
        const touch = (x: number) => new Touch({ identifier: 1, target: article, clientX: x, clientY: 300 });
        article.dispatchEvent(new TouchEvent("touchstart", { bubbles: true, touches: [touch(200)], changedTouches: [touch(200)] }));
        article.dispatchEvent(new TouchEvent("touchend", { bubbles: true, touches: [], changedTouches: [touch(200 + dx)] }));
      }, dx);
    await swipe(-150);
    await expect(page).toHaveURL(/\/Cook\?step=3$/);
    await expect(stepHeading(page, 3, 10)).toBeVisible();
    await swipe(150);
    await expect(page).toHaveURL(/\/Cook\?step=2$/);
    await expect(stepHeading(page, 2, 10)).toBeVisible();
  });
});

test.describe("cook mode offline", () => {
  test("the cook mode of a saved recipe works without a connection", async ({ page, context, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "A service worker needs JavaScript; without it pages simply load from the network.");
    // The worker takes eleven pages (the recipe and its ten steps) one after another.
    test.slow();
    await signInNewUser(page, "cookoff");
    await openPage(page, NOODLES);
    // Wait for the server's answer: leaving before it could cancel the save.
    const saved = page.waitForResponse((response) => response.request().method() === "POST" && /\/Recipes\/jd-R1\/Save/.test(response.url()));
    await page.getByRole("button", { name: "Save recipe" }).click();
    await expect(page.getByRole("button", { name: "Unsave recipe" })).toBeVisible();
    expect((await saved).ok()).toBe(true);

    // The Saved page tells the service worker what to keep: the recipe page and its cook pages, one per step.
    await openPage(page, "/ReciPals/Saved");
    await expect(page.getByRole("link", { name: "Beef Rice Noodles Stir Fry" }).first()).toBeVisible();
    const cached = (url: string) => page.evaluate(async (key) => Boolean(await caches.match(key, { ignoreVary: true })), url);
    // The worker notes a recipe's cook pages (and the scripts they use) once all of them are kept.
    const keptSteps = () =>
      page.evaluate(async (recipe) => {
        const stored = await caches.match("/__recipals-sw/state.json");
        const state = stored ? ((await stored.json()) as { cook?: Record<string, { steps: number }> }) : null;
        return state?.cook?.[new URL(recipe, location.origin).href]?.steps ?? null;
      }, NOODLES);
    await expect.poll(keptSteps, { timeout: 30_000 }).toBe(10);
    for (const step of [1, 2, 10]) expect(await cached(`${NOODLES}/Cook?step=${step}`)).toBe(true);
    expect(await cached("/ReciPals/Recipes/recipeBot-R12/Cook?step=1")).toBe(false);

    await openPage(page, `${NOODLES}/Cook`);
    await expect(stepHeading(page, 1, 10)).toBeVisible();
    await context.setOffline(true);
    try {
      await page.reload();
      await expect(stepHeading(page, 1, 10)).toBeVisible();
      await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
      await page.getByRole("link", { name: "Next step" }).click();
      await expect(page).toHaveURL(/\/Cook\?step=2$/);
      await expect(stepHeading(page, 2, 10)).toBeVisible();
      await expect(page.getByText("Slice beef, marinate with sauce")).toBeVisible();
      await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
      await page.keyboard.press("ArrowRight");
      await expect(page).toHaveURL(/\/Cook\?step=3$/);
      await expect(stepHeading(page, 3, 10)).toBeVisible();
      // Any cook address of the recipe gets its step's kept page (at the recipe's own servings).
      await page.goto(`${NOODLES}/Cook?step=5&serves=8`);
      await expect(stepHeading(page, 5, 10)).toBeVisible();
      // A recipe that is not saved is not kept.
      await page.goto(`${STROGANOFF}/Cook`);
      await expect(page.getByRole("heading", { name: "You are offline" })).toBeVisible();
    } finally {
      await context.setOffline(false);
    }
  });
});
