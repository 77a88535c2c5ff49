import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";

import { ADMIN, pickedFile, readDb, SEEDED_USER, signInAs, uniqueName } from "../support/e2e";

// The recipe editor end to end, once with JavaScript and once without (playwright.config.ts
// projects). Without JavaScript every row button is a round trip that re-renders the draft.

const DELETE_QUESTION = "Are you sure you want to delete this recipe?";

async function jpeg(width: number, height: number, { grain = false, color = "#c2410c" } = {}): Promise<Buffer> {
  const base = sharp({ create: { width, height, channels: 3, background: color } });
  if (!grain) return base.jpeg({ quality: 90 }).toBuffer();
  const noise = await sharp({
    create: { width: width / 4, height: height / 4, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 60 } },
  })
    .resize(width, height, { kernel: "nearest" })
    .png()
    .toBuffer();
  return base.composite([{ input: noise, blend: "overlay" }]).jpeg({ quality: 95 }).toBuffer();
}

const ingredient = (page: Page) => page.getByLabel("Ingredient", { exact: true });

async function openNewEditor(page: Page): Promise<string> {
  await page.goto("/ReciPals/Create");
  await expect(page).toHaveURL(/\/ReciPals\/Editor\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "New Recipe" })).toBeVisible();
  return decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
}

/** A minimal recipe made through the editor; returns its id. */
async function createRecipe(page: Page, name: string): Promise<string> {
  const rid = await openNewEditor(page);
  await page.getByLabel("Recipe Name").fill(name);
  await page.getByLabel("Description (Caption)").fill("Made by the e2e suite.");
  await ingredient(page).first().fill("Water (1 cup)");
  await page.getByLabel("Step 1").fill("Boil it.");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(new RegExp(`/ReciPals/Account/Profile/${SEEDED_USER.id}/Posts/[0-9a-f-]{36}$`));
  return rid;
}

function recipeRow(rid: string) {
  return readDb((db) =>
    db.prepare("select name, description, total_time, serves, photo, user_created from recipes where id = ?").get(rid) as
      | { name: string; description: string; total_time: string; serves: number; photo: string; user_created: string }
      | undefined,
  );
}

test.describe("recipe editor", () => {
  test("creates a recipe with sections, rows and a photo, then opens its post", async ({ page, javaScriptEnabled }) => {
    await signInAs(page, SEEDED_USER);
    const rid = await openNewEditor(page);
    await expect(page.getByText("0/50")).toBeVisible();
    await expect(page.getByText("0/150")).toBeVisible();
    await expect(page.getByRole("button", { name: "Delete Recipe" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Delete Section" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Delete Ingredient" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Delete Step" })).toHaveCount(0);

    const name = uniqueName("Dal");
    await page.getByLabel("Recipe Name").fill(name);
    await page.getByLabel("Description (Caption)").fill("Red lentils, slowly.");
    if (javaScriptEnabled) {
      await expect(page.getByText(`${name.length}/50`)).toBeVisible();
      await expect(page.getByText("20/150")).toBeVisible();
    }
    await page.getByLabel("Section Title").fill("Dal");
    await ingredient(page).first().fill("Red lentils (1 cup)");

    await page.getByRole("button", { name: "Add Ingredient" }).click();
    await expect(ingredient(page)).toHaveCount(2);
    // Without JavaScript that was a round trip: everything typed is still there, counters included.
    await expect(page.getByLabel("Recipe Name")).toHaveValue(name);
    await expect(page.getByText(`${name.length}/50`)).toBeVisible();
    await expect(ingredient(page).first()).toHaveValue("Red lentils (1 cup)");
    await ingredient(page).nth(1).fill("Oops");
    await page.getByRole("button", { name: "Add Ingredient" }).click();
    await expect(ingredient(page)).toHaveCount(3);
    await ingredient(page).nth(2).fill("Turmeric (1 tsp)");
    await page.getByRole("button", { name: "Delete Ingredient" }).nth(1).click();
    await expect(ingredient(page)).toHaveCount(2);
    await expect(ingredient(page).nth(1)).toHaveValue("Turmeric (1 tsp)");

    await page.getByRole("button", { name: "Add Section" }).click();
    await expect(page.getByLabel("Section Title")).toHaveCount(2);
    await expect(page.getByRole("button", { name: "Delete Section" })).toHaveCount(2);
    await page.getByLabel("Section Title").nth(1).fill("Tadka");
    await ingredient(page).nth(2).fill("Ghee (2 tbsp)");
    await page.getByRole("button", { name: "Add Section" }).click();
    await page.getByLabel("Section Title").nth(2).fill("Throwaway");
    await page.getByRole("button", { name: "Delete Section" }).nth(2).click();
    await expect(page.getByLabel("Section Title")).toHaveCount(2);

    await page.getByLabel("Step 1").fill("Rinse the lentils.");
    await page.getByRole("button", { name: "Add Step" }).click();
    await page.getByLabel("Step 2").fill("Not this one.");
    await page.getByRole("button", { name: "Add Step" }).click();
    await page.getByLabel("Step 3").fill("Simmer 20 minutes.");
    await page.getByRole("button", { name: "Delete Step" }).nth(1).click();
    await expect(page.getByLabel("Step 3")).toHaveCount(0);
    await expect(page.getByLabel("Step 2")).toHaveValue("Simmer 20 minutes.");

    await page.getByLabel("Total Time").fill("35min");
    await page.getByLabel("Serves").fill("3");
    await page.getByLabel("Tags").fill("Vegetarian, Comfort");

    const photo = await jpeg(1600, 1200, { color: "#15803d" });
    await page.getByLabel("Recipe Photo").setInputFiles(pickedFile("dal.jpg", photo));
    const preview = page.getByRole("img", { name: "Recipe photo preview" });
    if (javaScriptEnabled) {
      await expect(preview).toHaveAttribute("src", /^blob:/);
    } else {
      // A row button keeps the chosen photo as a pending upload.
      await page.getByRole("button", { name: "Add Step" }).click();
      await expect(preview).toHaveAttribute("src", /^\/uploads\/[0-9a-f]{64}\.webp$/);
      await expect(page.getByText("Your new photo is ready and will be saved with the recipe.")).toBeVisible();
      await page.getByRole("button", { name: "Delete Step" }).nth(2).click();
    }
    await expect(page.getByLabel("Step 3")).toHaveCount(0);

    await page.getByRole("button", { name: "Save" }).click();
    await expect(page).toHaveURL(new RegExp(`/ReciPals/Account/Profile/${SEEDED_USER.id}/Posts/[0-9a-f-]{36}$`));
    const postId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);

    const stored = readDb((db) => ({
      recipe: db.prepare("select name, description, total_time, serves, photo, user_created from recipes where id = ?").get(rid),
      post: db.prepare("select recipe_id, title, caption, photo, created_by, created_at from posts where id = ?").get(postId),
      sections: db
        .prepare(
          "select s.title, group_concat(l.text, '|') as lines from ingredient_sections s join ingredient_lines l on l.section_id = s.id where s.recipe_id = ? group by s.id order by s.position",
        )
        .all(rid),
      steps: db.prepare("select text from steps where recipe_id = ? order by position").all(rid),
      tags: db.prepare("select tag from recipe_tags where recipe_id = ? order by position").all(rid),
    }));
    expect(stored.recipe).toMatchObject({ name, description: "Red lentils, slowly.", total_time: "35min", serves: 3, user_created: SEEDED_USER.id });
    const photoUrl = (stored.recipe as { photo: string }).photo;
    expect(photoUrl).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    expect(stored.post).toMatchObject({ recipe_id: rid, title: name, caption: "Red lentils, slowly.", photo: photoUrl, created_by: SEEDED_USER.id });
    expect((stored.post as { created_at: string }).created_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(stored.sections).toEqual([
      { title: "Dal", lines: "Red lentils (1 cup)|Turmeric (1 tsp)" },
      { title: "Tadka", lines: "Ghee (2 tbsp)" },
    ]);
    expect(stored.steps).toEqual([{ text: "Rinse the lentils." }, { text: "Simmer 20 minutes." }]);
    expect(stored.tags).toEqual([{ tag: "Vegetarian" }, { tag: "Comfort" }]);

    // The stored photo (and its card variant) are served with long-lived immutable caching.
    for (const url of [photoUrl, photoUrl.replace(/\.webp$/, ".card.webp")]) {
      const response = await page.request.get(url);
      expect(response.status()).toBe(200);
      expect(response.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(response.headers()["content-type"]).toBe("image/webp");
      const meta = await sharp(await response.body()).metadata();
      expect(Math.max(meta.width!, meta.height!)).toBe(url.endsWith(".card.webp") ? 400 : 800);
    }
  });

  test("shows SPEC's messages next to the fields and keeps what was typed", async ({ page, javaScriptEnabled }) => {
    await signInAs(page, SEEDED_USER);
    const rid = await openNewEditor(page);
    await page.getByLabel("Description (Caption)").fill("Only a description so far.");
    await page.getByLabel("Serves").fill("-3");
    await page.getByLabel("Tags").fill("One, Two");
    // Enter in a text field saves (it must not trigger the first row button in the form).
    await page.getByLabel("Total Time").press("Enter");

    const alerts = page.getByRole("alert");
    await expect(alerts.filter({ hasText: "Please enter a recipe name." })).toBeVisible();
    await expect(alerts.filter({ hasText: "Please add at least one ingredient." })).toBeVisible();
    await expect(alerts.filter({ hasText: "Please add at least one instruction step." })).toBeVisible();
    await expect(alerts.filter({ hasText: "Serves must be a whole number of at least 1." })).toBeVisible();
    await expect(page.getByLabel("Recipe Name")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Recipe Name")).toBeFocused();
    await expect(ingredient(page).first()).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Step 1")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Description (Caption)")).toHaveValue("Only a description so far.");
    await expect(page.getByLabel("Tags")).toHaveValue("One, Two");
    await expect(page).toHaveURL(new RegExp(`/Editor/${rid}$`));

    await page.getByLabel("Description (Caption)").fill("");
    await page.getByLabel("Recipe Name").fill("Named now");
    await page.getByLabel("Serves").fill("2");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Please enter a recipe description." })).toBeVisible();
    await expect(page.getByLabel("Recipe Name")).toHaveValue("Named now");

    // Not a picture: refused at once in the browser, or by the server on save.
    await page.getByLabel("Recipe Photo").setInputFiles(pickedFile("notes.txt", Buffer.from("not a picture")));
    if (!javaScriptEnabled) await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Please choose an image file." })).toBeVisible();
    expect(recipeRow(rid)).toBeUndefined();
  });

  test("starts with the photo, and a Save with something missing shows its messages at once", async ({ page, javaScriptEnabled }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signInAs(page, SEEDED_USER);
    const rid = await openNewEditor(page);
    // The photo is the form's first field, on the phone's first screen.
    const firstField = await page.locator("form.editor").evaluate((form) => {
      const field = form.querySelector<HTMLInputElement>("input:not([type=hidden]):not([tabindex='-1']), textarea, select");
      return field ? (field.labels?.[0]?.textContent ?? field.name) : null;
    });
    expect(firstField).toContain("Recipe Photo");
    const photo = await page.getByLabel("Recipe Photo").boundingBox();
    const name = await page.getByLabel("Recipe Name").boundingBox();
    expect(photo && name && photo.y < name.y).toBe(true);
    await expect(page.getByText("Recipe Photo").first()).toBeInViewport();

    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.url());
    });
    await page.getByLabel("Description (Caption)").fill("Only a description so far.");
    await page.getByRole("button", { name: "Save" }).click();
    const alerts = page.getByRole("alert");
    await expect(alerts.filter({ hasText: "Please enter a recipe name." })).toBeVisible();
    await expect(alerts.filter({ hasText: "Please add at least one ingredient." })).toBeVisible();
    await expect(page.getByLabel("Recipe Name")).toBeFocused();
    if (javaScriptEnabled) {
      // Told in the browser: nothing was sent, and no "Saving…" came first.
      expect(posts).toEqual([]);
      await expect(page.getByText("Saving…")).toHaveCount(0);
      // Fixed, the save goes through to the server.
      await page.getByLabel("Recipe Name").fill("Told at once");
      await ingredient(page).first().fill("Water (1 cup)");
      await page.getByLabel("Step 1").fill("Boil it.");
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page).toHaveURL(/\/Posts\/[0-9a-f-]{36}$/);
      expect(recipeRow(rid)?.name).toBe("Told at once");
    } else {
      expect(posts).toHaveLength(1);
      expect(recipeRow(rid)).toBeUndefined();
    }
  });

  test("refuses a photo over 10 MB and keeps what was typed", async ({ page, javaScriptEnabled }) => {
    test.setTimeout(60_000); // 10 MB through the browser on a shared machine
    await signInAs(page, SEEDED_USER);
    const rid = await openNewEditor(page);
    await page.getByLabel("Recipe Name").fill("Too big to upload");
    await page.getByLabel("Step 1").fill("Keep me.");
    const big = Buffer.alloc(10 * 1024 * 1024 + 4096, 7);
    await page.getByLabel("Recipe Photo").setInputFiles(pickedFile("huge.jpg", big));
    // With JavaScript the browser says so at once; without it the server does, after draining the file.
    if (!javaScriptEnabled) await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "The image is too large (10 MB at most)." })).toBeVisible();
    await expect(page.getByLabel("Recipe Name")).toHaveValue("Too big to upload");
    await expect(page.getByLabel("Step 1")).toHaveValue("Keep me.");
    expect(recipeRow(rid)).toBeUndefined();
  });

  test("cuts the tags to three, drops blank ones, and saves", async ({ page, javaScriptEnabled }) => {
    await signInAs(page, SEEDED_USER);
    const rid = await openNewEditor(page);
    await page.getByLabel("Recipe Name").fill(uniqueName("Tagged"));
    await page.getByLabel("Description (Caption)").fill("Four tags typed.");
    await ingredient(page).first().fill("Water (1 cup)");
    await page.getByLabel("Step 1").fill("Boil it.");
    const tags = page.getByLabel("Tags");
    if (javaScriptEnabled) {
      // Cut when leaving the field, with a note saying so.
      await tags.pressSequentially("Spicy, , Sweet, Sour, Bitter");
      await expect(tags).toHaveValue("Spicy, , Sweet, Sour, Bitter");
      await tags.press("Tab");
      await expect(tags).toHaveValue("Spicy, Sweet, Sour");
      await expect(page.getByRole("status").filter({ hasText: "Only the first three tags were kept." })).toBeVisible();
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page).toHaveURL(/\/Posts\/[0-9a-f-]{36}$/);
    } else {
      // The server cuts them, saves, and says so on the page the save opens.
      await tags.fill("Spicy, , Sweet, Sour, Bitter");
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page).toHaveURL(/\/Posts\/[0-9a-f-]{36}\?notice=tags-cut$/);
      await expect(page.getByRole("status").filter({ hasText: "Only the first three tags were kept." })).toBeVisible();
    }
    const stored = readDb((db) => db.prepare("select tag from recipe_tags where recipe_id = ? order by position").pluck().all(rid));
    expect(stored).toEqual(["Spicy", "Sweet", "Sour"]);
  });

  for (const viewport of [{ width: 1366, height: 900 }, { width: 390, height: 844 }]) {
    test(`more than three tags typed, then one click on Save saves (${viewport.width} px)`, async ({ page, javaScriptEnabled }) => {
      await page.setViewportSize(viewport);
      await signInAs(page, SEEDED_USER);
      const rid = await openNewEditor(page);
      if (javaScriptEnabled) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
      await page.getByLabel("Recipe Name").fill(uniqueName("One click"));
      await page.getByLabel("Description (Caption)").fill("Five tags typed, Save clicked straight away.");
      await ingredient(page).first().fill("Water (1 cup)");
      await page.getByLabel("Step 1").fill("Boil it.");
      const tags = page.getByLabel("Tags");
      const save = page.getByRole("button", { name: "Save", exact: true });
      if (javaScriptEnabled) {
        // Leaving the field cuts the tags and says so: nothing below it may move.
        await tags.fill("Spicy, Quick, Vegan, Cheap, Easy");
        await save.scrollIntoViewIfNeeded();
        const before = await save.boundingBox();
        await tags.evaluate((element) => element.blur());
        await expect(page.getByText("Only the first three tags were kept.")).toBeVisible();
        expect(await save.boundingBox()).toEqual(before);
      }
      // Typed again, and Save clicked straight from the field: the press leaves the field (cutting
      // the tags), the release must still land on Save.
      await tags.fill("Spicy, Quick, Vegan, Cheap, Easy");
      await save.scrollIntoViewIfNeeded();
      const box = (await save.boundingBox())!;
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await expect(page).toHaveURL(/\/Posts\/[0-9a-f-]{36}(\?notice=tags-cut)?$/);
      const stored = readDb((db) => db.prepare("select tag from recipe_tags where recipe_id = ? order by position").pluck().all(rid));
      expect(stored).toEqual(["Spicy", "Quick", "Vegan"]);
    });
  }

  test("edits a recipe, keeps its photo, and goes to the recipe", async ({ page }) => {
    await signInAs(page, SEEDED_USER);
    const rid = await createRecipe(page, uniqueName("Soup"));
    const before = recipeRow(rid)!;

    await page.goto(`/ReciPals/Editor/${rid}`);
    await expect(page.getByRole("heading", { name: "Edit Recipe" })).toBeVisible();
    await expect(page.getByLabel("Recipe Name")).toHaveValue(before.name);
    await expect(ingredient(page).first()).toHaveValue("Water (1 cup)");
    await expect(page.getByRole("link", { name: "Cancel" })).toHaveAttribute("href", `/ReciPals/Recipes/${rid}`);
    await page.getByLabel("Recipe Name").fill("Better soup");
    await page.getByRole("button", { name: "Add Step" }).click();
    await page.getByLabel("Step 2").fill("Salt to taste.");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page).toHaveURL(new RegExp(`/ReciPals/Recipes/${rid}$`));

    const after = recipeRow(rid)!;
    expect(after.name).toBe("Better soup");
    expect(after.photo).toBe(before.photo);
    const post = readDb((db) => db.prepare("select title, photo from posts where recipe_id = ?").get(rid));
    expect(post).toEqual({ title: "Better soup", photo: before.photo });
  });

  test("deletes a recipe only after the confirmation", async ({ page, javaScriptEnabled }) => {
    await signInAs(page, SEEDED_USER);
    const rid = await createRecipe(page, uniqueName("Gone"));
    await page.goto(`/ReciPals/Editor/${rid}`);

    if (javaScriptEnabled) {
      const messages: string[] = [];
      page.once("dialog", (dialog) => {
        messages.push(dialog.message());
        void dialog.dismiss();
      });
      await page.getByRole("button", { name: "Delete Recipe" }).click();
      await expect.poll(() => messages).toEqual([DELETE_QUESTION]);
      await expect(page).toHaveURL(new RegExp(`/Editor/${rid}$`));
      expect(recipeRow(rid)).toBeDefined();

      page.once("dialog", (dialog) => void dialog.accept());
      await page.getByRole("button", { name: "Delete Recipe" }).click();
    } else {
      await page.getByRole("button", { name: "Delete Recipe" }).click();
      await expect(page.getByRole("alert")).toHaveText(DELETE_QUESTION);
      expect(recipeRow(rid)).toBeDefined();
      await page.getByRole("button", { name: "Delete", exact: true }).click();
    }
    await expect(page).toHaveURL(new RegExp(`/ReciPals/Account/Profile/${SEEDED_USER.id}$`));
    expect(recipeRow(rid)).toBeUndefined();
    expect(readDb((db) => db.prepare("select id from posts where recipe_id = ?").all(rid))).toEqual([]);
  });

  test("Cancel goes to the own profile when creating", async ({ page }) => {
    await signInAs(page, SEEDED_USER);
    await openNewEditor(page);
    await page.getByRole("link", { name: "Cancel" }).click();
    await expect(page).toHaveURL(new RegExp(`/ReciPals/Account/Profile/${SEEDED_USER.id}$`));
  });

  test("sends visitors to Login with SPEC's messages", async ({ page }) => {
    await page.goto("/ReciPals/Editor/brand-new-recipe-id");
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Login\?redirectTo=.*reason=create$/);
    await expect(page.getByText("Please log in to create a recipe.")).toBeVisible();

    await page.goto("/ReciPals/Editor/jd-R1");
    await expect(page.getByText("Session expired. Please log in again.")).toBeVisible();

    // After signing in, the visitor lands back in the editor.
    await page.getByLabel("Username").fill(SEEDED_USER.username);
    await page.getByLabel("Password").fill(SEEDED_USER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Editor\/jd-R1$/);
    await expect(page.getByRole("heading", { name: "Edit Recipe" })).toBeVisible();
  });

  test("refuses someone else's recipe but lets an ADMIN in", async ({ page }) => {
    await signInAs(page, SEEDED_USER);
    const response = await page.goto("/ReciPals/Editor/recipeBot-R1");
    expect(response?.status()).toBe(403);
    await expect(page.getByText("You are not allowed to edit this recipe.")).toBeVisible();
    // A forged POST is refused too, and changes nothing.
    const before = recipeRow("recipeBot-R1");
    const post = await page.request.post("/ReciPals/Editor/recipeBot-R1", {
      multipart: { intent: "delete", confirm: "yes" },
      headers: { Origin: new URL(page.url()).origin },
      maxRedirects: 0,
    });
    expect(post.status()).toBe(403);
    expect(recipeRow("recipeBot-R1")).toEqual(before);

    await page.context().clearCookies();
    await signInAs(page, ADMIN);
    await page.goto("/ReciPals/Editor/recipeBot-R1");
    await expect(page.getByRole("heading", { name: "Edit Recipe" })).toBeVisible();
    await expect(page.getByLabel("Recipe Name")).not.toHaveValue("");
  });

  test("downsizes a big photo in the browser before sending it", async ({ page, javaScriptEnabled }) => {
    test.skip(!javaScriptEnabled, "Browser-side downsizing needs JavaScript; without it the server does all the work.");
    test.setTimeout(60_000);
    await signInAs(page, SEEDED_USER);
    const rid = await openNewEditor(page);
    const big = await jpeg(4000, 3000, { grain: true });
    expect(big.byteLength).toBeGreaterThan(2_000_000);
    await page.getByLabel("Recipe Name").fill(uniqueName("Big"));
    await page.getByLabel("Description (Caption)").fill("A big photo.");
    await ingredient(page).first().fill("Flour");
    await page.getByLabel("Step 1").fill("Bake.");
    await page.getByLabel("Recipe Photo").setInputFiles(pickedFile("big.jpg", big));
    await expect(page.getByRole("img", { name: "Recipe photo preview" })).toHaveAttribute("src", /^blob:/);
    await expect(page.getByRole("button", { name: "Save" })).toBeEnabled();
    // The file the form will send is the browser's smaller copy.
    const chosen = await page.getByLabel("Recipe Photo").evaluate((input: HTMLInputElement) => {
      const file = input.files?.[0];
      return file ? { size: file.size, type: file.type, name: file.name } : null;
    });
    expect(chosen).not.toBeNull();
    expect(chosen!.size).toBeLessThanOrEqual(500 * 1024);
    expect(chosen!.size).toBeLessThan(big.byteLength / 4);
    expect(chosen!.type).toMatch(/^image\/(webp|jpeg)$/);
    console.info(`browser downsizing: ${(big.byteLength / 1e6).toFixed(2)} MB JPEG → ${(chosen!.size / 1024).toFixed(0)} KB ${chosen!.type}`);
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page).toHaveURL(/\/Posts\//);
    expect(recipeRow(rid)?.photo).toMatch(/^\/uploads\//);
  });
});
