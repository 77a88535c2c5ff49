import crypto from "node:crypto";

import { expect, test, type BrowserContext, type Locator, type Page } from "@playwright/test";

import { createUser, failOnBrowserErrors, openPage, signInAs, signInNewUser, uniqueName, writeDb, type E2EUser } from "../support/e2e";

// Notifications and the shopping list (docs/rules.md "Notifications", "Shopping list"), once with
// JavaScript and once without. Every test makes its own people, recipes and lists (the database
// is shared by parallel workers): recipes owned by a fresh user are written straight into the
// e2e database (they need an owner to notify); the seeded jd-R1 ("Beef Rice Noodles Stir Fry",
// serves 4, "Eggs (3)", "Beef (1 lb.)") is only ever read, since a shopping list is one person's.

const JD_R1 = { id: "jd-R1", name: "Beef Rice Noodles Stir Fry" };

const browserErrors = failOnBrowserErrors();

// ---------------------------------------------------------------------------------------------
// Fixtures written into the e2e database with utils.ts's writer (one BEGIN IMMEDIATE transaction,
// retried while SQLite answers busy). Writes to content tables outside the app move the page
// cache's '*' scope by trigger, so the server shows them at once.

interface OwnRecipe {
  recipeId: string;
  postId: string;
  name: string;
}

/** A recipe with its post, created by `owner` (what the editor writes: recipe, one section of lines, post). */
function createRecipeFor(owner: E2EUser, { name, serves, ingredients }: { name: string; serves: number | null; ingredients: string[] }): OwnRecipe {
  const recipeId = `e2e-ns-R-${crypto.randomUUID()}`;
  const postId = `e2e-ns-P-${crypto.randomUUID()}`;
  const sectionId = crypto.randomUUID();
  const today = new Date().toISOString().slice(0, 10);
  writeDb((db) => {
    db.prepare(
      `insert into recipes (id, user_created, name, description, total_time, serves, photo, created_at, seq)
       values (?, ?, ?, 'Made for an end-to-end test.', '', ?, '', ?, (select coalesce(max(seq), 0) + 1 from recipes))`,
    ).run(recipeId, owner.id, name, serves, today);
    db.prepare("insert into ingredient_sections (id, recipe_id, position, title) values (?, ?, 0, 'Main Ingredients')").run(sectionId, recipeId);
    const line = db.prepare("insert into ingredient_lines (section_id, position, text) values (?, ?, ?)");
    ingredients.forEach((text, position) => line.run(sectionId, position, text));
    db.prepare("insert into steps (recipe_id, position, text) values (?, 0, 'Cook it.')").run(recipeId);
    db.prepare(
      `insert into posts (id, recipe_id, created_by, title, caption, photo, created_at, seq)
       values (?, ?, ?, ?, 'Made for an end-to-end test.', '', ?, (select coalesce(max(seq), 0) + 1 from posts))`,
    ).run(postId, recipeId, owner.id, name, today);
  });
  return { recipeId, postId, name };
}

/** `count` unread follow notifications for `recipient` from `actor` (only the count matters). */
function insertUnreadFollows(recipient: E2EUser, actor: E2EUser, count: number) {
  writeDb((db) => {
    const insert = db.prepare(
      `insert into notifications (id, user_id, actor_id, kind, post_id, recipe_id, comment_id, created_at, read_at, seq)
       values (?, ?, ?, 'follow', null, null, null, ?, null, ?)`,
    );
    for (let seq = 1; seq <= count; seq += 1) insert.run(crypto.randomUUID(), recipient.id, actor.id, new Date().toISOString(), seq);
  });
}

// ---------------------------------------------------------------------------------------------
// Page helpers

const isJs = () => test.info().project.use.javaScriptEnabled !== false;

const open = openPage;

/**
 * Presses a button that posts to a URL containing `urlPart` and waits until the server has
 * answered: with JavaScript pages update optimistically, and leaving at once could cancel the
 * request; without, the post answers with a redirect back to the page.
 */
async function press(page: Page, button: Locator, urlPart: string) {
  const answered = page.waitForResponse((response) => response.request().method() === "POST" && response.url().includes(urlPart));
  await button.click();
  expect((await answered).status()).toBeLessThan(400);
  if (!isJs()) await page.waitForLoadState();
}

const notificationsLink = (page: Page) => page.getByRole("banner").getByRole("link", { name: /^Notifications/ });
const notificationItems = (page: Page) => page.getByRole("list", { name: "Notifications" }).getByRole("link");

/** The top bar's notifications link as every page renders it: its name, and the visible badge (or none). */
async function expectUnread(page: Page, unread: string | null) {
  const link = notificationsLink(page);
  await expect(link).toHaveAccessibleName(unread === null ? "Notifications" : `Notifications, ${unread} unread`);
  if (unread === null) await expect(link.locator(".topbar__badge")).toHaveCount(0);
  else await expect(link.locator(".topbar__badge")).toHaveText(unread);
}

const postUrl = (owner: { id: string }, postId: string) => `/ReciPals/Account/Profile/${owner.id}/Posts/${postId}`;
const recipeUrl = (recipeId: string) => `/ReciPals/Recipes/${recipeId}`;
const profileUrl = (userId: string) => `/ReciPals/Account/Profile/${userId}`;

async function like(page: Page, owner: { id: string }, postId: string) {
  await open(page, postUrl(owner, postId));
  await press(page, page.getByRole("dialog").getByRole("button", { name: "Like", exact: true }), `/Posts/${postId}/Like`);
  await expect(page.getByRole("dialog").getByRole("button", { name: "Like", exact: true, pressed: true })).toHaveAttribute("aria-pressed", "true");
}

async function comment(page: Page, recipeId: string, text: string) {
  await open(page, recipeUrl(recipeId));
  await page.getByPlaceholder("Add a comment...").fill(text);
  await press(page, page.getByRole("button", { name: "Post", exact: true }), recipeUrl(recipeId));
  await expect(page.getByText(text)).toBeVisible();
}

async function save(page: Page, recipeId: string) {
  await open(page, recipeUrl(recipeId));
  await press(page, page.getByRole("button", { name: "Save recipe" }), `/Recipes/${recipeId}/Save`);
  await expect(page.getByRole("button", { name: "Unsave recipe" })).toBeVisible();
}

async function follow(page: Page, userId: string, intent: "Follow" | "Unfollow") {
  await open(page, profileUrl(userId));
  await press(page, page.getByRole("button", { name: intent, exact: true }), `/Account/Follow/${userId}`);
  await expect(page.getByRole("button", { name: intent === "Follow" ? "Unfollow" : "Follow", exact: true })).toBeVisible();
}

/** Adds the recipe page's ingredients to the list (the page at `url`, servings as shown) and checks the answer. */
async function addToList(page: Page, url: string, { alreadyOnList = false } = {}) {
  if (page.url().endsWith(url) === false) await open(page, url);
  const button = page.getByRole("button", { name: alreadyOnList ? "Update shopping list" : "Add to shopping list" });
  await press(page, button, "/ReciPals/ShoppingList");
  if (!isJs()) {
    // A plain post comes back to the recipe at the servings it was added at, with the notice.
    const { pathname, searchParams } = new URL(url, "http://localhost");
    const serves = searchParams.get("serves") ?? "\\d+";
    await expect(page).toHaveURL(new RegExp(`${escapeRegExp(pathname)}\\?serves=${serves}&notice=shopping-added#shopping$`));
  }
  await expect(page.getByRole("status").filter({ hasText: "Added to your shopping list." })).toBeVisible();
  await expect(page.getByRole("button", { name: "Update shopping list" })).toBeVisible();
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const recipeSection = (page: Page, name: string) => page.getByRole("region", { name: new RegExp(`^${escapeRegExp(name)}`) });
const countLine = (page: Page) => page.locator(".shopping-page__count");

// ---------------------------------------------------------------------------------------------

test.describe("signed-in only", () => {
  test("visitors opening Notifications or the Shopping List are sent to Login, and the top bar has neither", async ({ page }) => {
    await page.goto("/ReciPals/Notifications");
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Login\?redirectTo=%2FReciPals%2FNotifications$/);
    await page.goto("/ReciPals/ShoppingList");
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Login\?redirectTo=%2FReciPals%2FShoppingList$/);
    await expect(page.getByRole("banner").getByRole("link", { name: "Sign in" })).toBeVisible();
    await expect(notificationsLink(page)).toHaveCount(0);
    await expect(page.getByRole("banner").getByRole("link", { name: "Shopping list" })).toHaveCount(0);
    await page.goto(recipeUrl(JD_R1.id));
    await expect(page.getByRole("heading", { level: 1, name: JD_R1.name })).toBeVisible();
    await expect(page.getByRole("button", { name: /shopping list/i })).toHaveCount(0);
  });
});

test.describe("notifications", () => {
  test("likes, a comment, a save and a follow notify the owner, grouped newest first; own actions never do; opening reads them", async ({
    page,
    javaScriptEnabled,
  }) => {
    const owner = await createUser("nowner");
    const [fan, second, third] = await Promise.all([createUser("nfan"), createUser("nsecond"), createUser("nthird")]);
    const recipe = createRecipeFor(owner, { name: uniqueName("Notified Stew"), serves: 2, ingredients: ["Stock (500 ml)"] });

    // The owner's own like, save and comment notify nobody.
    await signInAs(page, owner);
    await like(page, owner, recipe.postId);
    await save(page, recipe.recipeId);
    await comment(page, recipe.recipeId, "My own note on my stew");
    await open(page, "/ReciPals/Notifications");
    await expect(page.getByRole("heading", { level: 1, name: "Notifications" })).toBeVisible();
    await expect(page.getByText("No notifications yet")).toBeVisible();
    await expectUnread(page, null);

    // Others act, oldest first: a comment, a save, three likes, a follow.
    await signInAs(page, fan);
    await comment(page, recipe.recipeId, "Lovely stew, thank you!");
    await save(page, recipe.recipeId);
    await like(page, owner, recipe.postId);
    await signInAs(page, second);
    await like(page, owner, recipe.postId);
    await signInAs(page, third);
    await like(page, owner, recipe.postId);
    await signInAs(page, fan);
    await follow(page, owner.id, "Follow");

    // Every page's top bar counts them, server-rendered.
    await signInAs(page, owner);
    await open(page, "/ReciPals/Home");
    await expectUnread(page, "6");
    await open(page, recipeUrl(recipe.recipeId));
    await expectUnread(page, "6");

    const expected = [
      `${fan.username} started following you`,
      `${third.username} and 2 others liked ${recipe.name}`,
      `${fan.username} saved ${recipe.name}`,
      `${fan.username} commented on ${recipe.name}`,
    ];
    await notificationsLink(page).click();
    await expect(page).toHaveURL(/\/ReciPals\/Notifications$/);
    await expect(page.getByRole("heading", { level: 1, name: "Notifications" })).toBeVisible();
    if (javaScriptEnabled) {
      // Shown, so read: the count goes without another navigation, and the items lose "(unread)".
      await expectUnread(page, null);
      await expect(notificationItems(page)).toHaveText(expected);
      await expect(page.getByRole("button", { name: "Mark all as read" })).toHaveCount(0);
    } else {
      // The GET marks nothing: the items say unread, and so does the count after a reload.
      await expect(notificationItems(page)).toHaveText(expected.map((text) => `${text} (unread)`));
      await expectUnread(page, "6");
      await page.reload();
      await expectUnread(page, "6");
      await page.getByRole("button", { name: "Mark all as read" }).click();
      await expect(page).toHaveURL(/\/ReciPals\/Notifications$/);
      await expectUnread(page, null);
      await expect(notificationItems(page)).toHaveText(expected);
      await expect(page.getByRole("button", { name: "Mark all as read" })).toHaveCount(0);
    }
    // Read for good.
    await page.reload();
    await expectUnread(page, null);
    await expect(notificationItems(page)).toHaveText(expected);

    // Each links to what it is about: the follower, the post, the recipe, the comment.
    const items = notificationItems(page);
    await expect(items.nth(0)).toHaveAttribute("href", profileUrl(fan.id));
    await expect(items.nth(1)).toHaveAttribute("href", postUrl(owner, recipe.postId));
    await expect(items.nth(2)).toHaveAttribute("href", recipeUrl(recipe.recipeId));
    await expect(items.nth(3)).toHaveAttribute("href", new RegExp(`^${recipeUrl(recipe.recipeId)}#comment-.+`));
    await items.nth(3).click();
    await expect(page).toHaveURL(new RegExp(`${recipeUrl(recipe.recipeId)}#comment-.+`));
    const target = decodeURIComponent(new URL(page.url()).hash.slice(1));
    await expect(page.locator(`[id="${target}"]`)).toContainText("Lovely stew, thank you!");
    await page.goBack();
    await expect(page).toHaveURL(/\/ReciPals\/Notifications$/);
    await notificationItems(page).nth(1).click();
    await expect(page.getByRole("dialog")).toContainText(recipe.name);
    await expect(page.getByRole("dialog").getByRole("link", { name: "4 likes" })).toBeVisible();
  });

  test("each notification shows what it is about: the recipe's photo, the comment's words, Follow back on a new follower, how long ago", async ({ page }) => {
    const owner = await createUser("cowner");
    const fan = await createUser("cfan");
    const recipe = createRecipeFor(owner, { name: uniqueName("Pictured Stew"), serves: 2, ingredients: ["Stock (500 ml)"] });
    // The post gets a real photo (the seeded noodles' one).
    writeDb((db) => db.prepare("update posts set photo = (select photo from posts where recipe_id = 'jd-R1') where id = ?").run(recipe.postId));
    const said = `This stew kept us warm all week. ${"We added more pepper each night and it only got better. ".repeat(3)}Thank you!`;

    await signInAs(page, fan);
    await comment(page, recipe.recipeId, said);
    await follow(page, owner.id, "Follow");

    await signInAs(page, owner);
    await open(page, "/ReciPals/Notifications");
    const items = page.getByRole("list", { name: "Notifications" }).getByRole("listitem");
    const commented = items.filter({ hasText: `${fan.username} commented on ${recipe.name}` });
    // A preview of the comment: its first words, cut with an ellipsis.
    const preview = commented.locator("q");
    await expect(preview).toHaveText(`${[...said].slice(0, 119).join("").trimEnd()}…`);
    // The recipe's photo beside it, loaded.
    const thumb = commented.locator("img").last();
    await expect(thumb).toBeVisible();
    await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await thumb.evaluate((img: HTMLImageElement) => img.currentSrc)).toMatch(/noodleDish/);
    await expect(commented.getByText("just now")).toBeVisible();

    // A new follower: Follow back, pressed once, stays Following.
    const followed = items.filter({ hasText: `${fan.username} started following you` });
    await expect(followed.locator("img")).toHaveCount(1); // the avatar only: a follow has no recipe photo
    const back = followed.getByRole("button", { name: "Follow back" });
    await expect(back).toHaveAttribute("aria-pressed", "false");
    await press(page, back, `/Account/Follow/${fan.id}`);
    await expect(followed.getByRole("button", { name: "Following" })).toHaveAttribute("aria-pressed", "true");
    await page.reload();
    await expect(page.getByRole("list", { name: "Notifications" }).getByRole("listitem").filter({ hasText: "started following you" }).getByRole("button", { name: "Following" })).toBeVisible();
  });

  test("an undone follow, like or save takes its unread notification with it; a read one stays", async ({ page, javaScriptEnabled }) => {
    const owner = await createUser("uowner");
    const fan = await createUser("ufan");
    const recipe = createRecipeFor(owner, { name: uniqueName("Undone Soup"), serves: null, ingredients: ["Water (1 l)"] });

    await signInAs(page, fan);
    await follow(page, owner.id, "Follow");
    await like(page, owner, recipe.postId);
    await save(page, recipe.recipeId);
    await signInAs(page, owner);
    await open(page, "/ReciPals/Home");
    await expectUnread(page, "3");

    await signInAs(page, fan);
    await follow(page, owner.id, "Unfollow");
    await open(page, postUrl(owner, recipe.postId));
    await press(page, page.getByRole("dialog").getByRole("button", { name: "Like", exact: true, pressed: true }), `/Posts/${recipe.postId}/Like`);
    await expect(page.getByRole("dialog").getByRole("button", { name: "Like", exact: true })).toHaveAttribute("aria-pressed", "false");
    await open(page, recipeUrl(recipe.recipeId));
    await press(page, page.getByRole("button", { name: "Unsave recipe" }), `/Recipes/${recipe.recipeId}/Save`);
    await expect(page.getByRole("button", { name: "Save recipe" })).toBeVisible();

    await signInAs(page, owner);
    await open(page, "/ReciPals/Home");
    await expectUnread(page, null);
    await open(page, "/ReciPals/Notifications");
    await expect(page.getByText("No notifications yet")).toBeVisible();
    await expect(page.getByRole("list", { name: "Notifications" })).toHaveCount(0);

    // Once read, undoing the follow leaves the notification where it is.
    await signInAs(page, fan);
    await follow(page, owner.id, "Follow");
    await signInAs(page, owner);
    await open(page, "/ReciPals/Notifications");
    if (!javaScriptEnabled) await page.getByRole("button", { name: "Mark all as read" }).click();
    await expectUnread(page, null);
    await signInAs(page, fan);
    await follow(page, owner.id, "Unfollow");
    await signInAs(page, owner);
    await open(page, "/ReciPals/Notifications");
    await expect(notificationItems(page)).toHaveText([`${fan.username} started following you`]);
  });

  test("with JavaScript, the count is read again when the tab comes back into view", async ({ page, browser, baseURL, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "Without JavaScript every page load renders the count afresh; there is nothing to refresh.");
    const owner = await signInNewUser(page, "vowner");
    const fan = await createUser("vfan");
    await open(page, "/ReciPals/Home");
    await expectUnread(page, null);

    // Someone follows the owner from another browser while the owner's page stays open.
    const elsewhere = await browser.newContext({ baseURL });
    try {
      const other = await elsewhere.newPage();
      await signInAs(other, fan);
      await open(other, profileUrl(owner.id));
      await press(other, other.getByRole("button", { name: "Follow", exact: true }), `/Account/Follow/${owner.id}`);
    } finally {
      await elsewhere.close();
    }
    await expectUnread(page, null);
    // The tab comes back into view (a hidden tab's page cannot be shown to Playwright: the event is what the browser sends).
    await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
    await expectUnread(page, "1");
  });

  test("more than 99 unread shows 99+; opening reads only the page shown (JS), Mark all as read reads everything", async ({ page, javaScriptEnabled }) => {
    const owner = await createUser("manyowner");
    const fan = await createUser("manyfan");
    insertUnreadFollows(owner, fan, 120);

    await signInAs(page, owner);
    await open(page, "/ReciPals/Home");
    await expectUnread(page, "99+");
    await open(page, "/ReciPals/Notifications");
    await expect(notificationItems(page)).toHaveCount(1);
    await expect(notificationItems(page).first()).toContainText(`${fan.username} started following you`);
    await expect(page.getByRole("navigation", { name: "More notifications" }).getByRole("link", { name: "Older" })).toBeVisible();
    if (javaScriptEnabled) {
      // The first page shows 30 of the 120: those are read, 90 stay unread.
      await expectUnread(page, "90");
      await expect(notificationItems(page).first()).toHaveText(`${fan.username} started following you`);
    } else {
      await expectUnread(page, "99+");
    }
    await page.getByRole("button", { name: "Mark all as read" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Notifications$/);
    await expectUnread(page, null);
    await page.reload();
    await expectUnread(page, null);
    await expect(page.getByRole("button", { name: "Mark all as read" })).toHaveCount(0);
  });
});

test.describe("shopping list", () => {
  test("follows the units chosen on a recipe page, by recipe and by item", async ({ page }) => {
    await signInNewUser(page, "unitshopper");
    await open(page, `${recipeUrl(JD_R1.id)}?serves=4`);
    await addToList(page, `${recipeUrl(JD_R1.id)}?serves=4`);
    await open(page, "/ReciPals/ShoppingList");
    const section = recipeSection(page, JD_R1.name);
    // No choice made: as the recipe writes it.
    await expect(section.getByRole("button", { name: "Beef (1 lb.)", exact: true })).toBeVisible();

    // Metric chosen on a recipe page: the list says grams, by recipe and by item.
    await open(page, recipeUrl(JD_R1.id));
    const units = page.getByRole("group", { name: "Units" });
    await press(page, units.getByRole("button", { name: "Metric" }), recipeUrl(JD_R1.id));
    await expect(units.getByRole("button", { name: "Metric" })).toHaveAttribute("aria-pressed", "true");
    await open(page, "/ReciPals/ShoppingList");
    await expect(recipeSection(page, JD_R1.name).getByRole("button", { name: "Beef (455 g)", exact: true })).toBeVisible();
    await open(page, "/ReciPals/ShoppingList?view=item");
    await expect(page.getByRole("list", { name: "Items" }).getByRole("button", { name: "Beef (455 g)", exact: true })).toBeVisible();

    // US: back in pounds.
    await open(page, recipeUrl(JD_R1.id));
    await press(page, page.getByRole("group", { name: "Units" }).getByRole("button", { name: "US" }), recipeUrl(JD_R1.id));
    await expect(page.getByRole("group", { name: "Units" }).getByRole("button", { name: "US" })).toHaveAttribute("aria-pressed", "true");
    await open(page, "/ReciPals/ShoppingList");
    await expect(recipeSection(page, JD_R1.name).getByRole("button", { name: "Beef (1 lb.)", exact: true })).toBeVisible();
  });

  test("adds a recipe at the servings shown; adding it again updates it, never a second copy", async ({ page }) => {
    await signInNewUser(page, "shopper");
    await open(page, "/ReciPals/ShoppingList");
    await expect(page.getByRole("heading", { level: 1, name: "Shopping List" })).toBeVisible();
    await expect(page.getByText("Your shopping list is empty")).toBeVisible();

    // The servings control sets what is added: 7 shown, one more makes 8 (twice the recipe's 4).
    await open(page, `${recipeUrl(JD_R1.id)}?serves=7`);
    await page.getByRole("link", { name: "More servings" }).click();
    await expect(page.getByRole("group", { name: "Servings" })).toContainText("8 servings");
    await expect(page).toHaveURL(/\?serves=8$/);
    await expect(page.getByRole("listitem").filter({ hasText: /^Eggs \(6\)$/ })).toBeVisible();
    await addToList(page, `${recipeUrl(JD_R1.id)}?serves=8`);

    await page.getByRole("banner").getByRole("link", { name: "Shopping list" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/ShoppingList$/);
    await expect(page.getByRole("heading", { level: 1, name: "Shopping List" })).toBeVisible();
    await expect(countLine(page)).toHaveText("11 items from 1 recipe");
    const section = recipeSection(page, JD_R1.name);
    await expect(section).toHaveCount(1);
    await expect(section.getByRole("heading", { level: 2 })).toHaveText(`${JD_R1.name} · serves 8`);
    await expect(section.getByRole("link", { name: JD_R1.name })).toHaveAttribute("href", recipeUrl(JD_R1.id));
    await expect(section.getByRole("button", { name: "Eggs (6)", exact: true })).toHaveAttribute("aria-pressed", "false");
    await expect(section.getByRole("button", { name: "Beef (2 lb.)", exact: true })).toHaveAttribute("aria-pressed", "false");
    await expect(section.getByRole("button", { name: "Bell Pepper (2)", exact: true })).toBeVisible();
    await expect(section.getByRole("button", { name: "Rice Noodles", exact: true })).toBeVisible();
    // Two lines checked before the update: one reads the same at any servings, one does not.
    await press(page, section.getByRole("button", { name: "Rice Noodles", exact: true }), "/ReciPals/ShoppingList");
    await expect(recipeSection(page, JD_R1.name).getByRole("button", { name: "Rice Noodles", exact: true })).toHaveAttribute("aria-pressed", "true");
    await press(page, recipeSection(page, JD_R1.name).getByRole("button", { name: "Eggs (6)", exact: true }), "/ReciPals/ShoppingList");
    await expect(recipeSection(page, JD_R1.name).getByRole("button", { name: "Eggs (6)", exact: true })).toHaveAttribute("aria-pressed", "true");

    // Back on the recipe at its own servings, the button says it is on the list already.
    await open(page, recipeUrl(JD_R1.id));
    await addToList(page, recipeUrl(JD_R1.id), { alreadyOnList: true });
    await open(page, "/ReciPals/ShoppingList");
    await expect(countLine(page)).toHaveText("11 items from 1 recipe, 1 checked");
    await expect(page.getByRole("heading", { level: 2 })).toHaveText([`${JD_R1.name} · serves 4`]);
    await expect(page.getByRole("button", { name: "Eggs (6)", exact: true })).toHaveCount(0);
    // The update keeps the check mark of the line that reads the same, not of the one that changed.
    await expect(page.getByRole("button", { name: "Rice Noodles", exact: true })).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByRole("button", { name: "Eggs (3)", exact: true })).toHaveAttribute("aria-pressed", "false");
  });

  test("by item adds up the same ingredient across recipes; unreadable lines stay as written", async ({ page }) => {
    const user = await signInNewUser(page, "byitem");
    const own = createRecipeFor(user, { name: uniqueName("Egg Flatbread"), serves: 2, ingredients: ["Eggs (2)", "Flour (200g)", "Salt to taste"] });
    await addToList(page, `${recipeUrl(JD_R1.id)}?serves=8`);
    await addToList(page, recipeUrl(own.recipeId));

    await open(page, "/ReciPals/ShoppingList");
    await expect(countLine(page)).toHaveText("14 items from 2 recipes");
    await expect(page.getByRole("heading", { level: 2 })).toHaveText([`${JD_R1.name} · serves 8`, `${own.name} · serves 2`]);
    const toggle = page.getByRole("navigation", { name: "Show the list" });
    await expect(toggle.getByRole("link", { name: "By recipe" })).toHaveAttribute("aria-current", "page");
    await toggle.getByRole("link", { name: "By item" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/ShoppingList\?view=item$/);
    await expect(toggle.getByRole("link", { name: "By item" })).toHaveAttribute("aria-current", "page");

    const items = page.getByRole("list", { name: "Items" });
    // 6 eggs (jd-R1 at 8) + 2 eggs: one line.
    await expect(items.getByRole("button", { name: "Eggs (8)", exact: true })).toBeVisible();
    await expect(items.getByRole("button", { name: /^Eggs/ })).toHaveCount(1);
    await expect(items.getByRole("button", { name: "Beef (2 lb)", exact: true })).toBeVisible();
    await expect(items.getByRole("button", { name: "Flour (200 g)", exact: true })).toBeVisible();
    await expect(items.getByRole("button", { name: "Bell Pepper (2)", exact: true })).toBeVisible();
    const asWritten = page.getByRole("region", { name: "As written" });
    await expect(asWritten.getByRole("heading", { level: 3 })).toHaveText([JD_R1.name, own.name]);
    await expect(asWritten.getByRole("button", { name: "Salt to taste", exact: true })).toBeVisible();
    await expect(asWritten.getByRole("button", { name: "Rice Noodles", exact: true })).toBeVisible();
    await expect(items.getByRole("button", { name: "Salt to taste", exact: true })).toHaveCount(0);

    // Checking the merged line checks both recipes' lines.
    await press(page, items.getByRole("button", { name: "Eggs (8)", exact: true }), "/ReciPals/ShoppingList");
    await expect(page.getByRole("list", { name: "Items" }).getByRole("button", { name: "Eggs (8)", exact: true })).toHaveAttribute("aria-pressed", "true");
    // The same view, and without JavaScript back at the line that was checked.
    await expect(page).toHaveURL(isJs() ? /\?view=item$/ : /\?view=item#item-[\w-]+$/);
    await page.getByRole("navigation", { name: "Show the list" }).getByRole("link", { name: "By recipe" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/ShoppingList$/);
    await expect(recipeSection(page, JD_R1.name).getByRole("button", { name: "Eggs (6)", exact: true })).toHaveAttribute("aria-pressed", "true");
    await expect(recipeSection(page, own.name).getByRole("button", { name: "Eggs (2)", exact: true })).toHaveAttribute("aria-pressed", "true");
    await expect(countLine(page)).toHaveText("14 items from 2 recipes, 2 checked");
  });

  test("check items (kept on reload), clear checked, remove a recipe, clear the whole list after confirming", async ({ page }) => {
    const user = await signInNewUser(page, "checker");
    const own = createRecipeFor(user, { name: uniqueName("Check Tart"), serves: 2, ingredients: ["Eggs (2)", "Flour (200g)", "Salt to taste"] });
    await addToList(page, recipeUrl(JD_R1.id));
    await addToList(page, recipeUrl(own.recipeId));

    await open(page, "/ReciPals/ShoppingList");
    await expect(countLine(page)).toHaveText("14 items from 2 recipes");
    await expect(page.getByRole("button", { name: "Clear checked" })).toHaveCount(0);
    const eggs = recipeSection(page, JD_R1.name).getByRole("button", { name: "Eggs (3)", exact: true });
    await expect(eggs).toHaveAttribute("aria-pressed", "false");
    await press(page, eggs, "/ReciPals/ShoppingList");
    await expect(recipeSection(page, JD_R1.name).getByRole("button", { name: "Eggs (3)", exact: true })).toHaveAttribute("aria-pressed", "true");
    await press(page, recipeSection(page, own.name).getByRole("button", { name: "Flour (200g)", exact: true }), "/ReciPals/ShoppingList");
    await expect(recipeSection(page, own.name).getByRole("button", { name: "Flour (200g)", exact: true })).toHaveAttribute("aria-pressed", "true");
    await page.reload();
    await expect(recipeSection(page, JD_R1.name).getByRole("button", { name: "Eggs (3)", exact: true })).toHaveAttribute("aria-pressed", "true");
    await expect(recipeSection(page, own.name).getByRole("button", { name: "Flour (200g)", exact: true })).toHaveAttribute("aria-pressed", "true");
    await expect(recipeSection(page, own.name).getByRole("button", { name: "Eggs (2)", exact: true })).toHaveAttribute("aria-pressed", "false");
    await expect(countLine(page)).toHaveText("14 items from 2 recipes, 2 checked");

    // Clear checked drops exactly the checked lines.
    await page.getByRole("button", { name: "Clear checked" }).click();
    await expect(countLine(page)).toHaveText("12 items from 2 recipes");
    await expect(page.getByRole("button", { name: "Eggs (3)", exact: true })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Flour (200g)", exact: true })).toHaveCount(0);
    await expect(recipeSection(page, own.name).getByRole("button", { name: "Eggs (2)", exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: "Clear checked" })).toHaveCount(0);

    // Remove one recipe.
    await page.getByRole("button", { name: `Remove ${own.name}` }).click();
    await expect(recipeSection(page, own.name)).toHaveCount(0);
    await expect(countLine(page)).toHaveText("10 items from 1 recipe");

    // Clear list asks first; Cancel keeps everything.
    await page.getByRole("link", { name: "Clear list" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/ShoppingList\?confirm=clear$/);
    const confirm = page.getByRole("alertdialog", { name: "Clear the shopping list" });
    await expect(confirm).toContainText("Clear your whole shopping list?");
    await confirm.getByRole("link", { name: "Cancel" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/ShoppingList$/);
    await expect(page.getByRole("alertdialog")).toHaveCount(0);
    await expect(countLine(page)).toHaveText("10 items from 1 recipe");
    await page.getByRole("link", { name: "Clear list" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Clear list" }).click();
    await expect(page.getByText("Your shopping list is empty")).toBeVisible();
    await page.reload();
    await expect(page.getByText("Your shopping list is empty")).toBeVisible();
    await expect(recipeSection(page, JD_R1.name)).toHaveCount(0);
  });

  test("prints as the list alone, in two columns", async ({ page }) => {
    await signInNewUser(page, "printer");
    await addToList(page, recipeUrl(JD_R1.id));
    await open(page, "/ReciPals/ShoppingList");
    await expect(page.getByRole("banner")).toBeVisible();
    await page.emulateMedia({ media: "print" });
    await expect(page.getByRole("banner")).toBeHidden();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    await expect(page.getByRole("navigation", { name: "Show the list" })).toBeHidden();
    await expect(page.getByRole("link", { name: "Clear list" })).toBeHidden();
    await expect(page.getByRole("heading", { level: 1, name: "Shopping List" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Eggs (3)", exact: true })).toBeVisible();
    const columns = await page.locator(".shopping-items").first().evaluate((list) => getComputedStyle(list).columnCount);
    expect(columns).toBe("2");
    await page.emulateMedia({ media: "screen" });
    expect(await page.locator(".shopping-items").first().evaluate((list) => getComputedStyle(list).columnCount)).not.toBe("2");
  });

  test("stays readable offline once opened online", async ({ page, context, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "A service worker needs JavaScript; without it pages simply load from the network.");
    await signInNewUser(page, "offlineshop");
    await addToList(page, `${recipeUrl(JD_R1.id)}?serves=8`);
    await open(page, "/ReciPals/ShoppingList");
    await expect(page.getByRole("button", { name: "Eggs (6)", exact: true })).toBeVisible();
    await expect.poll(() => keptListHas(page, "Eggs (6)"), { timeout: 15_000 }).toBe(true);
    await expectListOffline(page, context);
  });

  test("opened online from the top bar link (an in-app navigation), the list kept offline is the one just seen", async ({ page, context, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "A service worker needs JavaScript; without it pages simply load from the network.");
    await signInNewUser(page, "offlinelink");
    // The first page of a signed-in user has the worker keep the (still empty) list.
    await open(page, "/ReciPals/Home");
    await expect.poll(() => keptListHas(page, "Your shopping list is empty"), { timeout: 15_000 }).toBe(true);
    await addToList(page, `${recipeUrl(JD_R1.id)}?serves=8`);
    await page.getByRole("banner").getByRole("link", { name: "Shopping list" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/ShoppingList$/);
    await expect(page.getByRole("button", { name: "Eggs (6)", exact: true })).toBeVisible();
    await expect
      .poll(() => keptListHas(page, "Eggs (6)"), { timeout: 10_000, message: "the offline copy of the list follows the list the user just saw online" })
      .toBe(true);
    await expectListOffline(page, context);
  });
});

/** Whether the service worker's copy of the list page holds `text`. */
function keptListHas(page: Page, text: string): Promise<boolean> {
  return page.evaluate(async (wanted) => {
    const kept = await caches.match("/ReciPals/ShoppingList", { ignoreVary: true });
    return kept ? (await kept.text()).includes(wanted) : false;
  }, text);
}

/** With the network cut, the list page (jd-R1 at 8 servings) still shows its items. */
async function expectListOffline(page: Page, context: BrowserContext) {
  await context.setOffline(true);
  try {
    await page.goto("/ReciPals/ShoppingList");
    await expect(page.getByRole("heading", { level: 1, name: "Shopping List" })).toBeVisible();
    await expect(countLine(page)).toHaveText("11 items from 1 recipe");
    await expect(recipeSection(page, JD_R1.name).getByRole("button", { name: "Eggs (6)", exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: "Beef (2 lb.)", exact: true })).toBeVisible();
  } finally {
    await context.setOffline(false);
  }
  // Offline, the page's own background requests fail; that is not a bug of the page.
  browserErrors.forgive(/Failed to fetch|net::ERR_INTERNET_DISCONNECTED|NetworkError/i);
}
