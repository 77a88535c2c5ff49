import { expect, test, type Page } from "@playwright/test";

import { botPostFor, openPage, readDb, signInNewUser } from "../support/e2e";

// The app under its Content-Security-Policy in a real browser: no CSP violation on any page,
// hydration and client navigation still work, stored markup never runs, the app cannot be
// framed, and a cross-site form post is refused.

/** Collects CSP violations: the DOM event (JavaScript on) and Chromium's console reports. */
async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  const reported: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to (load|execute|apply|frame|connect)/i.test(message.text())) reported.push(message.text());
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener("securitypolicyviolation", (event) => w.__csp.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  return async () => {
    const fromDom = await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []).catch(() => [] as string[]);
    return [...reported, ...fromDom];
  };
}

test.describe("Content-Security-Policy", () => {
  test("no page breaks the policy, signed out or in", async ({ page }) => {
    const violations = await watchCsp(page);
    for (const url of ["/ReciPals/Home", "/ReciPals/Recipes/recipeBot-R1", "/ReciPals/Search?q=chicken", "/ReciPals/Info", "/ReciPals/Account/Login", "/ReciPals/Account/Signup", "/ReciPals/nope"]) {
      const response = await page.goto(url);
      expect(response?.headers()["content-security-policy"], url).toMatch(/script-src 'self' '(?:nonce-|sha256-)/);
      await page.waitForLoadState("load");
    }
    const me = await signInNewUser(page, "csp");
    for (const url of ["/ReciPals/Saved", `/ReciPals/Account/Profile/${me.id}`, `/ReciPals/Account/Profile/${me.id}/Edit`, "/ReciPals/Create"]) {
      await page.goto(url);
      await page.waitForLoadState("load");
    }
    expect(await violations()).toEqual([]);
  });

  test("JavaScript runs under the policy: the page hydrates and navigates on the client", async ({ page, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "hydration needs JavaScript");
    const violations = await watchCsp(page);
    // Hydrated, not merely served: the router's context is in the page before its script has run,
    // and a click then is a plain link (a full page load).
    await openPage(page, "/ReciPals/Home");
    await page.evaluate(() => ((window as unknown as { __stillHere: number }).__stillHere = 1));
    await page.getByRole("navigation").first().getByRole("link", { name: "Info" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Info$/);
    // Same document: the router navigated, no full page load.
    expect(await page.evaluate(() => (window as unknown as { __stillHere?: number }).__stillHere)).toBe(1);
    expect(await violations()).toEqual([]);
  });
});

test.describe("stored markup", () => {
  test("a comment full of markup shows as text and runs nothing", async ({ page }, testInfo) => {
    const dialogs: string[] = [];
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    const { recipeId } = botPostFor(testInfo.project.name, 60);
    await signInNewUser(page, "xss");
    const payload = `<img src=x onerror="window.__xss=1;alert(1)"><script>window.__xss=2;alert(2)</script>${testInfo.project.name}`;
    await page.goto(`/ReciPals/Recipes/${recipeId}`);
    await page.getByPlaceholder("Add a comment...").fill(payload);
    // Reload only once the server has answered the post: with JavaScript the comment shows at once
    // (optimistic), and a reload then could cancel the request before it is stored.
    const stored = page.waitForResponse((response) => response.request().method() === "POST" && response.url().includes(recipeId));
    await page.getByRole("button", { name: "Post" }).click();
    await expect(page.getByText(payload)).toBeVisible();
    await stored;
    await page.reload();
    await expect(page.getByText(payload)).toBeVisible();
    expect(await page.locator("img[src='x']").count()).toBe(0);
    if (testInfo.project.use.javaScriptEnabled !== false) {
      expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    }
    expect(dialogs).toEqual([]);
  });
});

test.describe("framing and cross-site posts", () => {
  test("another site cannot frame the app", async ({ page, baseURL, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "one project is enough");
    await page.goto("about:blank");
    // The frame asks for the page (so the check below is not vacuous), but the browser must not show it.
    const asked = page.waitForEvent("request", (r) => r.url() === `${baseURL}/ReciPals/Home`);
    await page.setContent(`<iframe id="victim" src="${baseURL}/ReciPals/Home" width="400" height="300"></iframe>`);
    await asked;
    const direct = await page.request.get(`${baseURL}/ReciPals/Home`);
    expect(direct.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(direct.headers()["x-frame-options"]).toBe("DENY");
    await page.waitForTimeout(1_000);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    const content = frame ? await frame.content().catch(() => "") : "";
    expect(content).not.toContain("ReciPals");
  });

  test("a form on another site cannot like a post for the signed-in user", async ({ page, baseURL, javaScriptEnabled }, testInfo) => {
    test.skip(!javaScriptEnabled, "one project is enough");
    const me = await signInNewUser(page, "csrf");
    const { postId } = botPostFor(testInfo.project.name, 61);
    await page.goto("about:blank");
    await page.setContent(
      `<form id="f" method="post" action="${baseURL}/ReciPals/Posts/${postId}/Like"><input name="intent" value="like"><button>Win a prize</button></form>`,
    );
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().includes(`/Posts/${postId}/Like`)), page.getByRole("button", { name: "Win a prize" }).click()]);
    expect(response.status()).toBe(403);
    const likes = readDb((db) => (db.prepare("select count(*) as n from likes where post_id = ? and user_id = ?").get(postId, me.id) as { n: number }).n);
    expect(likes).toBe(0);
  });
});
