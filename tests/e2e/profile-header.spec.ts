import { expect, test, type Locator } from "@playwright/test";

import { failOnBrowserErrors, openMoreMenu, openPage, signInNewUser } from "../support/e2e";

// Someone's profile header on a phone (docs/rules.md#profile-screen): Follow and "More" in one
// row, Mute, Block and Report inside "More" (a <details>, so it opens without JavaScript), the
// counts on one line.

failOnBrowserErrors();
test.use({ viewport: { width: 390, height: 844 } });

const middle = async (locator: Locator) => {
  const box = await locator.boundingBox();
  expect(box).not.toBeNull();
  return box!.y + box!.height / 2;
};

test("Follow and More share a row, the rest waits in More, the counts fit one line", async ({ page }) => {
  const me = await signInNewUser(page, "header");
  await openPage(page, "/ReciPals/Account/Profile/234");
  const header = page.locator(".profile__header");
  const follow = header.getByRole("button", { name: "Follow", exact: true });
  const more = header.locator("summary", { hasText: "More" });
  await expect(follow).toBeVisible();
  expect(Math.abs((await middle(follow)) - (await middle(more)))).toBeLessThan(4);
  for (const name of ["Mute", "Block"]) await expect(header.getByRole("button", { name, exact: true })).toBeHidden();
  await expect(header.getByRole("link", { name: "Report danieljacob" })).toBeHidden();

  const counts = header.getByRole("list", { name: "Counts" }).getByRole("listitem");
  await expect(counts).toHaveCount(3);
  const rows = new Set(await Promise.all((await counts.all()).map(async (count) => Math.round(await middle(count)))));
  expect(rows.size, "the counts are on one line").toBe(1);

  await openMoreMenu(page);
  for (const name of ["Mute", "Block"]) await expect(header.getByRole("button", { name, exact: true })).toBeVisible();
  await expect(header.getByRole("link", { name: "Report danieljacob" })).toBeVisible();
  // The menu stays on the screen.
  const panel = await header.locator(".more-menu .person-actions").boundingBox();
  expect(panel!.x + panel!.width).toBeLessThanOrEqual(390);

  // One's own profile: Edit Profile in that row, and no menu.
  await openPage(page, `/ReciPals/Account/Profile/${me.id}`);
  await expect(page.locator(".profile__title-row").getByRole("link", { name: "Edit Profile" })).toBeVisible();
  await expect(page.locator("details.more-menu")).toHaveCount(0);
});

test("shows the person's fediverse handle, @username@host, where other servers find them", async ({ page, baseURL }) => {
  await signInNewUser(page, "handle");
  await openPage(page, "/ReciPals/Account/Profile/234");
  const handle = page.locator(".profile__header .profile__handle");
  await expect(handle).toHaveText(`@danieljacob@${new URL(baseURL!).host}`);
  // It fits the phone's width.
  const box = await handle.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
});
