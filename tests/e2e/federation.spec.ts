import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { expect, test, type BrowserContext } from "@playwright/test";

import { E2E_ADMIN_PASSWORD, startAppServer } from "../support/e2e-server";
import { failOnBrowserErrors, signInNewUser } from "../support/e2e";

// Two ReciPals federating over ActivityPub (docs/federation.md): this suite's server ("here") and a
// second one started for these tests ("far": its own database and port, the core sample people).
// Someone here finds a cook there by @name@host, follows them (their server accepts), and is
// listed among that cook's followers there; the cook's new recipe arrives on Home here; a like and
// a reply from here show there with the handle; each side reports what came from the other;
// Unfollow ends it there too. JavaScript on and off.

failOnBrowserErrors();

let far: Awaited<ReturnType<typeof startAppServer>>;
let farData: string;

test.beforeAll(async () => {
  farData = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-far-"));
  far = await startAppServer({
    script: "scripts/start.js",
    // Its own database and photos, seeded with the core people only (no sample file, TheMealDB unreachable).
    env: { DATABASE_PATH: path.join(farData, "recipals.db"), RECIPALS_SEED_FILE: "" },
  });
});

test.afterAll(() => {
  far?.stop();
  if (farData) fs.rmSync(farData, { recursive: true, force: true });
});

/** The far server's cook (a core sample person), signed in through its API in a browser context of its own. */
async function farCook(context: BrowserContext) {
  const signin = await context.request.post(`${far.base}/api/users/signin`, { data: { username: "danieljacob", password: "ReciPals" } });
  expect(signin.status()).toBe(200);
  return { id: "234", username: "danieljacob", handle: `@danieljacob@127.0.0.1:${far.port}` };
}

test("follow a cook on another ReciPals by handle: their recipe arrives on Home, a like and a reply show there, each side reports the other's, Unfollow ends it there", async ({ page, browser, javaScriptEnabled }) => {
  test.setTimeout(90_000);
  const me = await signInNewUser(page, "fed");
  const handleHere = `@${me.username}@${new URL(test.info().project.use.baseURL!).host}`;
  const farContext = await browser.newContext({ javaScriptEnabled });
  const cook = await farCook(farContext);

  // Search takes the handle; the person there shows with Follow.
  await page.goto(`/ReciPals/Search?q=${encodeURIComponent(cook.handle)}`);
  const card = page.getByRole("article", { name: cook.handle });
  await expect(card).toBeVisible();
  await expect(card.getByText(cook.handle)).toBeVisible();
  // A handle searches people only: no "No recipes found" beside the person.
  await expect(page.getByRole("heading", { name: "Recipes" })).toHaveCount(0);
  await card.getByRole("button", { name: "Follow" }).click();
  // Requested until their server accepts, then Unfollow (read again until the Accept is in).
  await expect(card.getByRole("button", { name: /Requested|Unfollow/ })).toBeVisible();
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("article", { name: cook.handle }).getByRole("button", { name: "Unfollow" })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });

  // There, they are among the cook's followers, by their handle here.
  const farPage = await farContext.newPage();
  await farPage.goto(`${far.base}/ReciPals/Account/Profile/${cook.id}/Followers`);
  await expect(farPage.getByRole("list", { name: "Followers on other servers" }).getByText(handleHere)).toBeVisible();

  // The cook shares a recipe there: it arrives on Home here, with the handle and a link to the original.
  const name = `Far Dumplings ${test.info().project.name} ${Date.now()}`;
  const created = await farContext.request.post(`${far.base}/api/recipes`, {
    headers: { Origin: far.base },
    data: { name, description: "Pleated by hand", ingredients_sec: [{ title: "", ingredients: ["Flour (300 g)", "Water"] }], steps: ["Mix.", "Fold.", "Steam."], serves: 4, tags: [] },
  });
  expect(created.status(), await created.text()).toBe(201);
  const recipeId = ((await created.json()) as { recipe_id: string }).recipe_id;
  const fromElsewhere = page.getByRole("region", { name: "From other servers" });
  await expect(async () => {
    await page.goto("/ReciPals/Home");
    await expect(fromElsewhere.getByRole("article", { name: `Post by ${cook.handle}` }).filter({ hasText: name })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  const post = fromElsewhere.getByRole("article", { name: `Post by ${cook.handle}` }).filter({ hasText: name });
  await expect(post.getByText("Pleated by hand")).toBeVisible();
  await expect(post.getByRole("link", { name: `View the original on 127.0.0.1:${far.port}` })).toHaveAttribute("href", new RegExp(`/ReciPals/Recipes/${recipeId}$`));

  // A like from here counts there, with the handle in its Likes.
  await post.getByRole("button", { name: "Like" }).click();
  await expect(post.getByRole("button", { name: "Like" })).toHaveAttribute("aria-pressed", "true");
  await expect(async () => {
    await farPage.goto(`${far.base}/ReciPals/Recipes/${recipeId}/Likes`);
    await expect(farPage.getByRole("dialog", { name: "Likes" }).getByText(handleHere)).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });

  // A reply from here shows under the post here and among the recipe's comments there.
  const words = `Steamed them tonight (${test.info().project.name})`;
  await post.getByRole("textbox", { name: `Reply to ${cook.handle}` }).fill(words);
  await post.getByRole("button", { name: "Reply" }).click();
  await expect(post.getByRole("list", { name: "Your replies" })).toContainText(words);
  await expect(post.getByRole("textbox", { name: `Reply to ${cook.handle}` })).toHaveValue("");
  await expect(async () => {
    await farPage.goto(`${far.base}/ReciPals/Recipes/${recipeId}`);
    const comment = farPage.locator("#comments li").filter({ hasText: words });
    await expect(comment.getByRole("link", { name: handleHere, exact: true })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });

  // The cook there reports that reply, and the reader here reports the cook's post: each report page
  // names what came from the other server by its handle.
  await farPage.locator("#comments li").filter({ hasText: words }).getByRole("link", { name: `Report the comment by ${handleHere}` }).click();
  await expect(farPage.getByRole("heading", { name: "Report a reply from another server" })).toBeVisible();
  await expect(farPage.locator(".report__target")).toContainText(`by ${handleHere}`);
  await farPage.getByLabel("Spam").check();
  await farPage.getByRole("button", { name: "Send report" }).click();
  await expect(farPage.getByRole("status")).toHaveText("Thanks — an admin will look at it.");
  await post.getByRole("link", { name: `Report the post by ${cook.handle}` }).click();
  await expect(page.getByRole("heading", { name: "Report a post from another server" })).toBeVisible();
  await page.getByLabel("Harassment").check();
  await page.getByRole("button", { name: "Send report" }).click();
  await expect(page.getByRole("status")).toHaveText("Thanks — an admin will look at it.");

  // Unfollow (from one's own Following): they leave the cook's followers there.
  await page.goto(`/ReciPals/Account/Profile/${me.id}/Following`);
  const following = page.getByRole("list", { name: "Following on other servers" });
  await following.getByRole("button", { name: "Unfollow" }).click();
  await expect(following).toHaveCount(0);
  await expect(async () => {
    await farPage.goto(`${far.base}/ReciPals/Account/Profile/${cook.id}/Followers`);
    await expect(farPage.getByText(handleHere)).toHaveCount(0, { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await farContext.close();
});

test("a cook on another ReciPals follows back; a block here ends it, and a domain block there ends what it kept of here", async ({ page, browser, javaScriptEnabled }) => {
  test.setTimeout(90_000);
  const me = await signInNewUser(page, "fedblock");
  const hereHost = new URL(test.info().project.use.baseURL!).host;
  const handleHere = `@${me.username}@${hereHost}`;
  const farContext = await browser.newContext({ javaScriptEnabled });
  const cook = await farCook(farContext);
  const farPage = await farContext.newPage();

  // The cook there finds the person here by handle and follows them; this server accepts at once.
  await farPage.goto(`${far.base}/ReciPals/Search?q=${encodeURIComponent(handleHere)}`);
  await farPage.getByRole("article", { name: handleHere }).getByRole("button", { name: "Follow" }).click();
  await expect(async () => {
    await farPage.goto(`${far.base}/ReciPals/Search?q=${encodeURIComponent(handleHere)}`);
    await expect(farPage.getByRole("article", { name: handleHere }).getByRole("button", { name: "Unfollow" })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await page.goto(`/ReciPals/Account/Profile/${me.id}/Followers`);
  await expect(page.getByRole("list", { name: "Followers on other servers" }).getByText(cook.handle)).toBeVisible();

  // Here, the person blocks the cook from the search: their follow ends, and only Unblock is offered.
  await page.goto(`/ReciPals/Search?q=${encodeURIComponent(cook.handle)}`);
  const card = page.getByRole("article", { name: cook.handle });
  await card.getByRole("button", { name: "Block" }).click();
  await expect(card.getByRole("button", { name: "Unblock" })).toBeVisible();
  await expect(card.getByRole("button", { name: "Follow" })).toHaveCount(0);
  await page.goto(`/ReciPals/Account/Profile/${me.id}/Followers`);
  await expect(page.getByRole("list", { name: "Followers on other servers" })).toHaveCount(0);

  // There, an admin blocks this server's domain: the cook's follow of the person here ends there,
  // and a search there no longer asks this server.
  const adminContext = await browser.newContext({ javaScriptEnabled });
  const signin = await adminContext.request.post(`${far.base}/api/users/signin`, { data: { username: "admin", password: E2E_ADMIN_PASSWORD } });
  expect(signin.status()).toBe(200);
  const adminPage = await adminContext.newPage();
  await adminPage.goto(`${far.base}/ReciPals/Account/Admin/Federation`);
  await adminPage.getByLabel("Domain").fill("127.0.0.1");
  await adminPage.getByRole("button", { name: "Block domain" }).click();
  await expect(adminPage.getByRole("list", { name: "Blocked domains" }).getByText("127.0.0.1")).toBeVisible();
  await farPage.goto(`${far.base}/ReciPals/Account/Profile/${cook.id}/Following`);
  await expect(farPage.getByRole("list", { name: "Following on other servers" })).toHaveCount(0);
  await farPage.goto(`${far.base}/ReciPals/Search?q=${encodeURIComponent(handleHere)}`);
  await expect(farPage.getByRole("heading", { name: "People" })).toBeVisible();
  await expect(farPage.getByRole("article", { name: handleHere })).toHaveCount(0);
  // Unblock lifts it (the server there serves this worker's other tests too).
  await adminPage.getByRole("button", { name: "Unblock 127.0.0.1" }).click();
  await expect(adminPage.getByRole("list", { name: "Blocked domains" })).toHaveCount(0);
  await farPage.goto(`${far.base}/ReciPals/Search?q=${encodeURIComponent(handleHere)}`);
  await expect(farPage.getByRole("article", { name: handleHere }).getByRole("button", { name: "Follow" })).toBeVisible();
  await adminContext.close();
  await farContext.close();
});
