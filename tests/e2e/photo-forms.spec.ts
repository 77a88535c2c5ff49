import { expect, test } from "@playwright/test";

import { cameraPhoto } from "../support/photos";

import { failOnBrowserErrors, pickedFile, readDb, signInNewUser, uniqueName } from "../support/e2e";

// The two forms that carry photos, with what people really send: a 2 MB phone photo and a large
// PNG. With JavaScript the browser posts to the page's `.data` address, which once got the small
// form limit (64 KB) and a 413 before any route ran; the limit now comes from the route the
// request reaches (app/server/http/body.server.ts).

failOnBrowserErrors();

let phoneJpeg: Buffer;
let editedPng: Buffer;

test.beforeAll(async () => {
  phoneJpeg = await cameraPhoto();
  editedPng = await cameraPhoto({ width: 1600, height: 1200, format: "png", grain: 0 });
});

const storedPicture = (id: string) => readDb((db) => db.prepare("select name, bio, profile from users where id = ?").get(id)) as { name: string; bio: string; profile: string };

for (const [kind, file] of [
  ["a 2 MB phone JPEG", () => ({ name: "IMG_2041.jpg", buffer: phoneJpeg })],
  ["a 1600×1200 PNG", () => ({ name: "edited.png", buffer: editedPng })],
] as const) {
  test(`the profile editor saves name, bio and ${kind} in one click`, async ({ page, javaScriptEnabled }) => {
    expect(file().buffer.byteLength).toBeGreaterThan(500 * 1024);
    const me = await signInNewUser(page, "photo");
    await page.goto(`/ReciPals/Account/Profile/${me.id}/Edit`);
    if (javaScriptEnabled) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    // With JavaScript the save goes to the page's .data address (the one that had the small limit).
    const sent = page.waitForRequest((request) => request.method() === "POST" && /\/Edit(\.data)?$/.test(new URL(request.url()).pathname));
    await page.getByLabel("Name", { exact: true }).fill("Phone Photo Cook");
    await page.getByLabel("Bio").fill("Shot on my phone.");
    const { name, buffer } = file();
    await page.getByLabel("Profile Photo").setInputFiles(pickedFile(name, buffer));
    await page.getByRole("button", { name: "Save" }).click();
    expect(new URL((await sent).url()).pathname.endsWith(".data")).toBe(javaScriptEnabled);
    await expect(page).toHaveURL(`/ReciPals/Account/Profile/${me.id}`);
    const saved = storedPicture(me.id);
    expect(saved).toMatchObject({ name: "Phone Photo Cook", bio: "Shot on my phone." });
    expect(saved.profile).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    await expect(page.locator(`img[src="${saved.profile}"]`).first()).toBeVisible();
  });
}

test("the recipe editor saves a recipe with a 2 MB phone photo in one click", async ({ page, javaScriptEnabled }) => {
  await signInNewUser(page, "chef");
  await page.goto("/ReciPals/Create");
  if (javaScriptEnabled) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await expect(page).toHaveURL(/\/ReciPals\/Editor\/[0-9a-f-]{36}$/);
  const rid = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  const name = uniqueName("Phone soup");
  await page.getByLabel("Recipe Name").fill(name);
  await page.getByLabel("Description (Caption)").fill("Photographed on a phone.");
  await page.getByLabel("Ingredient", { exact: true }).first().fill("Water (1 cup)");
  await page.getByLabel("Step 1").fill("Boil it.");
  await page.getByLabel("Recipe Photo").setInputFiles(pickedFile("IMG_2042.jpg", phoneJpeg));
  // Save pressed at once: with JavaScript the photo is still being made smaller in the browser,
  // and the save is sent as soon as it is ready (a Save disabled meanwhile lost this click).
  // A person's click, not Playwright's (which would wait for the button to be enabled).
  const save = page.getByRole("button", { name: "Save", exact: true });
  await save.scrollIntoViewIfNeeded();
  const box = (await save.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expect(page).toHaveURL(/\/ReciPals\/Account\/Profile\/[^/]+\/Posts\/[0-9a-f-]{36}$/);
  const photo = readDb((db) => db.prepare("select photo from recipes where id = ?").pluck().get(rid)) as string;
  expect(photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
});
