import { expect, test, type BrowserContext, type Page } from "@playwright/test";

import { failOnBrowserErrors, serviceWorkerActive, signInNewUser, type E2EUser } from "../support/e2e";

// A shared computer (docs/rules.md#personal-answers): what one person saw must not be shown to the
// next. Signed-in pages are stored by no cache (`Cache-Control: private, no-store`), signing out
// tells the browser to clear its cache and storage (`Clear-Site-Data`), and the service worker
// never answers one person's kept pages to another.

const errors = failOnBrowserErrors();

const JD_R1 = "/ReciPals/Recipes/jd-R1";

async function open(page: Page, url: string) {
  await page.goto(url);
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/** Whether the service worker's copy of the shopping list holds `text`. */
function keptListHas(page: Page, text: string): Promise<boolean> {
  return page.evaluate(async (wanted) => {
    const kept = await caches.match("/ReciPals/ShoppingList", { ignoreVary: true });
    return kept ? (await kept.text()).includes(wanted) : false;
  }, text);
}

async function addJdR1(page: Page) {
  await open(page, JD_R1);
  const answered = page.waitForResponse((response) => response.request().method() === "POST" && response.url().includes("/ReciPals/ShoppingList"));
  await page.getByRole("button", { name: "Add to shopping list" }).click();
  await answered;
  await expect(page.getByRole("status").filter({ hasText: "Added to your shopping list." })).toBeVisible();
}

/** The shopping list asked for with the network cut: what the device shows then. */
async function offlineList(page: Page, context: BrowserContext): Promise<string> {
  await context.setOffline(true);
  try {
    await page.goto("/ReciPals/ShoppingList").catch(() => undefined);
    return await page.locator("body").innerText();
  } finally {
    await context.setOffline(false);
    errors.forgive(/ERR_INTERNET_DISCONNECTED|Failed to fetch|NetworkError/);
  }
}

test.describe("a shared device", () => {
  test.beforeEach(({ javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "the service worker and its offline copies need JavaScript");
  });

  test("after A signs out, the device shows nothing of A's, offline included; B then sees only B's", async ({ page, context }) => {
    const a: E2EUser = await signInNewUser(page, "sharedA");
    await open(page, "/ReciPals/Home");
    await addJdR1(page);
    await open(page, "/ReciPals/ShoppingList");
    await expect(page.getByRole("button", { name: "Eggs (3)", exact: true })).toBeVisible();
    await expect.poll(() => keptListHas(page, "Eggs (3)"), { timeout: 15_000 }).toBe(true);

    // A signs out: the answer asks the browser to forget its cache and storage.
    const signedOut = page.waitForResponse((response) => response.request().method() === "POST" && response.url().includes("/ReciPals/Account/Logout"));
    await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
    expect((await (await signedOut).allHeaders())["clear-site-data"]).toBe('"cache", "storage"');
    await expect(page).toHaveURL(/\/ReciPals\/Home$/);
    await expect.poll(() => keptListHas(page, "Eggs (3)"), { timeout: 10_000 }).toBe(false);
    // Clear-Site-Data removed the worker too; Home registered a new one, which must not answer A's list.
    await expect.poll(() => serviceWorkerActive(page), { timeout: 15_000 }).toBe(true);

    // Offline now, nothing of A's is answered.
    const shown = await offlineList(page, context);
    expect(shown).not.toContain("Eggs (3)");
    expect(shown).not.toContain(a.username);

    // B signs in on the same device and keeps their own (empty) list; offline it is B's that shows.
    await signInNewUser(page, "sharedB");
    await open(page, "/ReciPals/Home");
    await expect.poll(() => keptListHas(page, "Your shopping list is empty"), { timeout: 15_000 }).toBe(true);
    const shownToB = await offlineList(page, context);
    expect(shownToB).toContain("Your shopping list is empty");
    expect(shownToB).not.toContain("Eggs (3)");
  });
});

test("signed-in pages and their data are stored by no cache", async ({ page }) => {
  const me = await signInNewUser(page, "nocache");
  for (const url of ["/ReciPals/Home", "/ReciPals/Saved", "/ReciPals/ShoppingList", `/ReciPals/Account/Profile/${me.id}`, "/ReciPals/Home.data", `/api/users/${me.id}`]) {
    const answer = await page.request.get(url);
    expect(answer.headers()["cache-control"], url).toBe("private, no-store");
  }
});
