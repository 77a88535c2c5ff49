import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import sharp from "sharp";
import { describe, expect, it } from "vitest";

import { draftToFields, emptyDraft, RECIPE_MESSAGES, type EditorResult, type RecipeDraft } from "~/lib/recipe-form";
import { action, loader } from "~/routes/ReciPals.Editor.$rid";
import { db } from "~/server/db/connection.server";
import { IMAGE_MESSAGES, storeImage } from "~/server/media/images.server";
import { PENDING_UPLOADS_KEPT, sweepOrphanUploads } from "~/server/media/uploads.server";
import { createRecipeWithPost } from "~/server/queries/recipe-writes.server";
import { getRecipeDetail } from "~/server/queries/recipes.server";
import { RATE_LIMITS } from "~/server/auth/limits.server";
import { nextSeq, nowIso, todayDate } from "~/server/queries/seq.server";
import { PHOTO_COPIES, storedNameOf } from "~/server/media/storage.server";
import { validateRecipeDraft } from "~/server/validation/recipe-schema.server";

import { dataOf, expectRedirect, getRequest, makeUser, ORIGIN, routeArgs, settle, signedInCookie } from "../support/app";
import { useScratchUploads } from "../support/settings";

const scratch = useScratchUploads("editor");

const editorPath = (rid: string) => `/ReciPals/Editor/${rid}`;
const storedFiles = () => fs.readdirSync(scratch.dir).filter((name) => !name.startsWith(".")).sort();

const goodDraft = (patch: Partial<RecipeDraft> = {}): RecipeDraft => ({
  name: "Weeknight Dal",
  description: "Red lentils simmered with spices.",
  sections: [
    { id: "", title: "Dal", ingredients: ["Red lentils (1 cup)", "", "Turmeric (1 tsp)"] },
    { id: "", title: "", ingredients: ["Ghee (2 tbsp)"] },
    { id: "", title: "Empty", ingredients: ["", "  "] },
  ],
  steps: ["Rinse the lentils.", "", "Simmer 20 minutes."],
  totalTime: "30min",
  serves: "4",
  tags: "Vegetarian, , Comfort, Quick",
  ...patch,
});

function form(draft: RecipeDraft, extra: Record<string, string | Blob> = {}): FormData {
  const formData = new FormData();
  for (const [name, value] of draftToFields(draft)) formData.append(name, value);
  for (const [name, value] of Object.entries(extra)) formData.append(name, value);
  return formData;
}

function post(rid: string, body: FormData, cookie?: string): Request {
  return new Request(new URL(editorPath(rid), ORIGIN), { method: "POST", body, headers: cookie ? { Cookie: cookie } : {} });
}

async function act(rid: string, body: FormData, cookie?: string) {
  return settle(() => action(routeArgs(post(rid, body, cookie), { rid })));
}

async function load(rid: string, cookie?: string) {
  return settle(() => loader(routeArgs(getRequest(editorPath(rid), cookie), { rid })));
}

function answerOf(result: unknown) {
  return dataOf<EditorResult>(result);
}

async function thrownText(result: unknown, status: number): Promise<string> {
  expect(result).toBeInstanceOf(Response);
  expect((result as Response).status).toBe(status);
  return (result as Response).text();
}

async function jpeg(width = 1200, height = 900, color = "#c2410c"): Promise<File> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: color } }).jpeg().toBuffer();
  return new File([new Uint8Array(bytes)], "photo.jpg", { type: "image/jpeg" });
}

async function signedInUser(role: "USER" | "ADMIN" = "USER") {
  const user = await makeUser({ role });
  return { user, cookie: await signedInCookie(user.id) };
}

async function existingRecipe(userId: string, photo = "/images/recipe-placeholder.png") {
  const recipeId = crypto.randomUUID();
  const valid = validateRecipeDraft(goodDraft({ tags: "Old" }));
  if (!valid.ok) throw new Error("fixture invalid");
  const { postId } = await createRecipeWithPost({ recipeId, userId, input: valid.value, photo });
  return { recipeId, postId };
}

async function count(table: "recipes" | "posts" | "steps" | "recipe_tags" | "ingredient_sections" | "ingredient_lines"): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function snapshot() {
  return {
    recipes: await count("recipes"),
    posts: await count("posts"),
    steps: await count("steps"),
    tags: await count("recipe_tags"),
    sections: await count("ingredient_sections"),
    lines: await count("ingredient_lines"),
    files: storedFiles(),
  };
}

describe("opening the editor", () => {
  it("sends a visitor to Login with the product's reason: create for a new id, expired for an existing recipe", async () => {
    const rid = crypto.randomUUID();
    expectRedirect(await load(rid), `/ReciPals/Account/Login?redirectTo=${encodeURIComponent(editorPath(rid))}&reason=create`);
    const { user } = await signedInUser();
    const { recipeId } = await existingRecipe(user.id);
    expectRedirect(await load(recipeId), `/ReciPals/Account/Login?redirectTo=${encodeURIComponent(editorPath(recipeId))}&reason=expired`);
  });

  it("opens create mode for an unknown id, with an empty draft and Cancel to the own profile", async () => {
    const { user, cookie } = await signedInUser();
    const rid = crypto.randomUUID();
    const result = (await load(rid, cookie)) as Awaited<ReturnType<typeof loader>>;
    expect(result).toMatchObject({ mode: "create", rid, draft: emptyDraft(), photo: null, cancelTo: `/ReciPals/Account/Profile/${user.id}` });
  });

  it("opens edit mode for the creator, with everything filled in and Cancel to the recipe", async () => {
    const { user, cookie } = await signedInUser();
    const { recipeId } = await existingRecipe(user.id);
    const result = (await load(recipeId, cookie)) as Awaited<ReturnType<typeof loader>>;
    expect(result.mode).toBe("edit");
    expect(result.cancelTo).toBe(`/ReciPals/Recipes/${recipeId}`);
    expect(result.draft).toMatchObject({
      name: "Weeknight Dal",
      serves: "4",
      totalTime: "30min",
      tags: "Old",
      steps: ["Rinse the lentils.", "Simmer 20 minutes."],
    });
    expect(result.draft.sections.map((s) => [s.title, s.ingredients])).toEqual([
      ["Dal", ["Red lentils (1 cup)", "Turmeric (1 tsp)"]],
      ["Main Ingredients", ["Ghee (2 tbsp)"]],
    ]);
  });

  it("refuses another user with 403 but lets an ADMIN in", async () => {
    const owner = await makeUser();
    const { recipeId } = await existingRecipe(owner.id);
    const other = await signedInUser();
    expect(await thrownText(await load(recipeId, other.cookie), 403)).toBe("You are not allowed to edit this recipe.");
    const admin = await signedInUser("ADMIN");
    expect(((await load(recipeId, admin.cookie)) as { mode: string }).mode).toBe("edit");
  });

  it("answers 'Recipe not found.' for an id no recipe could have", async () => {
    const { cookie } = await signedInUser();
    expect(await thrownText(await load("not a valid id!", cookie), 404)).toBe("Recipe not found.");
  });
});

describe("creating a recipe", () => {
  it("writes the recipe and its post in one go and opens the post viewer", async () => {
    const { user, cookie } = await signedInUser();
    const rid = crypto.randomUUID();
    const response = expectRedirect(await act(rid, form(goodDraft()), cookie), new RegExp(`^/ReciPals/Account/Profile/${user.id}/Posts/[0-9a-f-]{36}$`));
    const postId = decodeURIComponent(response.headers.get("Location")!.split("/").pop()!);

    const detail = await getRecipeDetail(rid);
    expect(detail).toMatchObject({
      recipe_id: rid,
      post_id: postId,
      user_created: user.id,
      name: "Weeknight Dal",
      description: "Red lentils simmered with spices.",
      total_time: "30min",
      serves: 4,
      photo: "/images/recipe-placeholder.png",
      created_at: todayDate(),
    });
    expect(detail!.ingredients_sec.map((s) => [s.title, s.ingredients])).toEqual([
      ["Dal", ["Red lentils (1 cup)", "Turmeric (1 tsp)"]],
      ["Main Ingredients", ["Ghee (2 tbsp)"]],
    ]);
    expect(detail!.steps).toEqual(["Rinse the lentils.", "Simmer 20 minutes."]);
    expect(detail!.tags).toEqual(["Vegetarian", "Comfort", "Quick"]); // the blank one dropped

    const postRow = await db.selectFrom("posts").selectAll().where("id", "=", postId).executeTakeFirstOrThrow();
    expect(postRow).toMatchObject({
      recipe_id: rid,
      created_by: user.id,
      title: "Weeknight Dal",
      caption: "Red lentils simmered with spices.",
      photo: "/images/recipe-placeholder.png",
      created_at: todayDate(),
    });
    expect(postRow.created_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const newest = await db.selectFrom("posts").select("id").orderBy("seq", "desc").executeTakeFirstOrThrow();
    expect(newest.id).toBe(postId);
  });

  it("stores a chosen photo for both the recipe and the post", async () => {
    const { cookie } = await signedInUser();
    const rid = crypto.randomUUID();
    expectRedirect(await act(rid, form(goodDraft({ tags: "Dal" }), { photo: await jpeg(2400, 1800) }), cookie), /\/Posts\//);
    const recipe = await db.selectFrom("recipes").select("photo").where("id", "=", rid).executeTakeFirstOrThrow();
    const postRow = await db.selectFrom("posts").select("photo").where("recipe_id", "=", rid).executeTakeFirstOrThrow();
    expect(recipe.photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    expect(postRow.photo).toBe(recipe.photo);
    const stored = await sharp(fs.readFileSync(path.join(scratch.dir, storedNameOf(recipe.photo)!))).metadata();
    expect([stored.width, stored.height]).toEqual([800, 600]);
  });

  it("makes a visitor's save go to Login with 'create-save' and writes nothing", async () => {
    const before = await snapshot();
    const rid = crypto.randomUUID();
    expectRedirect(
      await act(rid, form(goodDraft(), { photo: await jpeg() })),
      `/ReciPals/Account/Login?redirectTo=${encodeURIComponent(editorPath(rid))}&reason=create-save`,
    );
    expect(await snapshot()).toEqual(before);
  });
});

describe("validation", () => {
  async function refused(draft: RecipeDraft, extra: Record<string, string | Blob> = {}) {
    const { cookie } = await signedInUser();
    const before = await snapshot();
    const result = answerOf(await act(crypto.randomUUID(), form(draft, extra), cookie));
    expect(result.status).toBe(400);
    expect(result.data.kind).toBe("invalid");
    expect(await snapshot()).toEqual(before);
    return result.data;
  }

  it("shows the four messages for an empty form, next to their fields", async () => {
    const result = await refused({ ...emptyDraft(), serves: "" });
    expect(result.fieldErrors).toEqual({
      name: "Please enter a recipe name.",
      description: "Please enter a recipe description.",
      ingredients: "Please add at least one ingredient.",
      steps: "Please add at least one instruction step.",
    });
  });

  it("counts whitespace-only text as empty", async () => {
    const result = await refused(goodDraft({ name: "   ", description: "\n", steps: ["  "], sections: [{ id: "", title: "x", ingredients: [" "] }] }));
    expect(result.fieldErrors).toMatchObject({
      name: RECIPE_MESSAGES.nameRequired,
      description: RECIPE_MESSAGES.descriptionRequired,
      ingredients: RECIPE_MESSAGES.ingredientRequired,
      steps: RECIPE_MESSAGES.stepRequired,
    });
  });

  it("refuses a 51-character name and a 151-character description, keeping what was typed", async () => {
    const draft = goodDraft({ name: "n".repeat(51), description: "d".repeat(151), tags: "Dal" });
    const result = await refused(draft);
    expect(result.fieldErrors).toEqual({
      name: "Recipe name must be at most 50 characters.",
      description: "Description must be at most 150 characters.",
    });
    expect(result.draft.name).toBe(draft.name);
    expect(result.draft.description).toBe(draft.description);
    expect(result.draft.sections).toEqual(draft.sections);
    expect(result.draft.steps).toEqual(draft.steps);
  });

  it("accepts exactly 50 and 150 characters", async () => {
    const { cookie } = await signedInUser();
    expectRedirect(await act(crypto.randomUUID(), form(goodDraft({ name: "n".repeat(50), description: "d".repeat(150), tags: "" })), cookie), /\/Posts\//);
  });

  it("refuses negative, zero, fractional, non-numeric and huge serves; blank means 1", async () => {
    for (const serves of ["-2", "0", "2.5", "abc", "1e3", "1001"]) {
      const result = await refused(goodDraft({ serves, tags: "" }));
      expect(result.fieldErrors.serves).toBe(serves === "1001" ? "Serves must be at most 1000." : "Serves must be a whole number of at least 1.");
      expect(result.draft.serves).toBe(serves);
    }
    const { cookie } = await signedInUser();
    const rid = crypto.randomUUID();
    expectRedirect(await act(rid, form(goodDraft({ serves: "", tags: "" })), cookie), /\/Posts\//);
    expect((await getRecipeDetail(rid))!.serves).toBe(1);
  });

  it("cuts tags beyond the third and drops blank ones, saves, and says so on the page it opens", async () => {
    const { cookie } = await signedInUser();
    const rid = crypto.randomUUID();
    const saved = await act(rid, form(goodDraft({ tags: " One, , Two,Three, Four, Five " })), cookie);
    expectRedirect(saved, /\/Posts\/[^?]+\?notice=tags-cut$/);
    expect((await getRecipeDetail(rid))!.tags).toEqual(["One", "Two", "Three"]);
    // Three or fewer: no note.
    expectRedirect(await act(crypto.randomUUID(), form(goodDraft({ tags: "One, , Two" })), cookie), /\/Posts\/[^?]+$/);
    // A refused save for another reason shows the tags already cut.
    const other = await refused(goodDraft({ name: "", tags: "One, Two, Three, Four" }));
    expect(other.draft.tags).toBe("One, Two, Three");
    expect(other.fieldErrors.tags).toBeUndefined();
    // A tag that is kept must still fit; one that is cut away does not matter.
    expectRedirect(await act(crypto.randomUUID(), form(goodDraft({ tags: `a, b, c, ${"t".repeat(31)}` })), cookie), /\/Posts\//);
    const long = await refused(goodDraft({ tags: `${"t".repeat(31)}, b` }));
    expect(long.fieldErrors.tags).toBe("Each tag must be at most 30 characters.");
  });

  it("refuses hundreds of empty rows and over-long lines with clear messages", async () => {
    const manySteps = await refused(goodDraft({ tags: "", steps: ["Cook.", ...Array.from({ length: 300 }, () => "")] }));
    expect(manySteps.fieldErrors.steps).toBe("A recipe can have at most 100 steps.");
    expect(manySteps.draft.steps).toHaveLength(100);
    const manyLines = await refused(goodDraft({ tags: "", sections: [{ id: "", title: "", ingredients: ["Salt", ...Array.from({ length: 400 }, () => "")] }] }));
    expect(manyLines.fieldErrors.ingredients).toBe("A recipe can have at most 200 ingredients.");
    const manySections = await refused(
      goodDraft({ tags: "", sections: Array.from({ length: 60 }, () => ({ id: "", title: "", ingredients: ["Salt"] })) }),
    );
    expect(manySections.fieldErrors.ingredients).toBe("A recipe can have at most 50 ingredient sections.");
    const longLine = await refused(goodDraft({ tags: "", sections: [{ id: "", title: "t".repeat(101), ingredients: ["ok", "x".repeat(501)] }] }));
    expect(longLine.fieldErrors).toEqual({
      "sectionTitle-0": "A section title must be at most 100 characters.",
      "ingredient-0-1": "Each ingredient must be at most 500 characters.",
    });
    const longStep = await refused(goodDraft({ tags: "", steps: ["ok", "s".repeat(2001)], totalTime: "t".repeat(51) }));
    expect(longStep.fieldErrors).toEqual({
      "step-1": "Each step must be at most 2000 characters.",
      totalTime: "Total time must be at most 50 characters.",
    });
  });

  it("refuses a text file as the photo and stores nothing", async () => {
    const text = new File(["just some notes"], "notes.txt", { type: "text/plain" });
    const result = await refused(goodDraft({ tags: "" }), { photo: text });
    expect(result.fieldErrors).toEqual({ photo: "Please choose an image file." });
    expect(result.draft.name).toBe("Weeknight Dal");
  });

  it("refuses a photo over 10 MB but keeps every field typed", async () => {
    const big = new File([new Uint8Array(10 * 1024 * 1024 + 10)], "huge.jpg", { type: "image/jpeg" });
    const result = await refused(goodDraft({ tags: "" }), { photo: big });
    expect(result.fieldErrors).toEqual({ photo: IMAGE_MESSAGES.tooLarge });
    expect(result.draft.steps).toEqual(goodDraft().steps);
  });

  it("answers a body over the cap with 413 and the form as it was, reading none of it", async () => {
    const { cookie } = await signedInUser();
    const before = await snapshot();
    const request = new Request(new URL(editorPath(crypto.randomUUID()), ORIGIN), {
      method: "POST",
      body: new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(new Uint8Array(65536)) }),
      headers: { Cookie: cookie, "Content-Type": "multipart/form-data; boundary=x", "Content-Length": String(200 * 1024 * 1024) },
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    const result = answerOf(await settle(() => action(routeArgs(request, { rid: "whatever" }))));
    expect(result.status).toBe(413);
    expect(result.data.formError).toBe(IMAGE_MESSAGES.tooLarge);
    expect(result.data.draft).toEqual(emptyDraft());
    expect(await snapshot()).toEqual(before);
  });

  it("does not keep a good photo for a refused save (no orphan files) and asks for it again", async () => {
    const result = await refused(goodDraft({ name: "", tags: "" }), { photo: await jpeg(900, 700, "#166534") });
    expect(result.fieldErrors).toEqual({ name: RECIPE_MESSAGES.nameRequired });
    expect(result.photoNotKept).toBe(true);
    expect(result.pendingPhoto).toBeNull();
  });

  it("answers a refused save with a phone photo at once: the photo's header is read, its pixels are not decoded", async () => {
    // A 12-megapixel phone photo: decoding and shrinking it is what made a refused save slow.
    const bytes = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 50 } } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const photo = () => new File([new Uint8Array(bytes)], "phone.jpg", { type: "image/jpeg" });
    const { cookie } = await signedInUser();
    const timed = async (draft: RecipeDraft) => {
      const started = performance.now();
      const result = await act(crypto.randomUUID(), form(draft, { photo: photo() }), cookie);
      return { ms: performance.now() - started, result };
    };
    // Side by side, alternating: saves that go through (the photo processed and stored) and
    // refused ones; medians, as the machine is shared.
    const saves: number[] = [];
    const refusals: number[] = [];
    let refusedSave: Awaited<ReturnType<typeof timed>> | null = null;
    for (let round = 0; round < 3; round++) {
      const saved = await timed(goodDraft({ name: `Phone photo dal ${round}`, tags: "" }));
      expectRedirect(saved.result, /\/Posts\//);
      saves.push(saved.ms);
      refusedSave = await timed(goodDraft({ name: "", tags: "" }));
      refusals.push(refusedSave.ms);
    }
    const refusal = answerOf(refusedSave!.result);
    expect(refusal.status).toBe(400);
    expect(refusal.data.fieldErrors).toEqual({ name: RECIPE_MESSAGES.nameRequired });
    expect(refusal.data.photoNotKept).toBe(true);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
    expect(median(refusals)).toBeLessThan(median(saves) / 2);
    // A file that is not a picture is still named on a refused save.
    const notAPicture = answerOf(await act(crypto.randomUUID(), form(goodDraft({ name: "", tags: "" }), { photo: new File(["notes"], "notes.jpg", { type: "image/jpeg" }) }), cookie));
    expect(notAPicture.data.fieldErrors).toEqual({ name: RECIPE_MESSAGES.nameRequired, photo: IMAGE_MESSAGES.notAnImage });
  });

  it("refuses a forged creator id", async () => {
    const other = await makeUser();
    const result = await refused(goodDraft({ tags: "" }), { user_created: other.id });
    expect(result.formError).toBe("The creator of a recipe cannot be changed.");
  });

  it("ignores a pending photo URL that storage did not produce", async () => {
    const { cookie } = await signedInUser();
    const rid = crypto.randomUUID();
    const forged = `/uploads/${"c".repeat(64)}.webp`;
    for (const pendingPhoto of [forged, "https://evil.example/x.webp", "/uploads/../data/recipals.db"]) {
      const result = answerOf(await act(rid, form(goodDraft({ tags: "" }), { pendingPhoto, intent: "add-step" }), cookie));
      expect(result.data.pendingPhoto).toBeNull();
    }
    expectRedirect(await act(rid, form(goodDraft({ tags: "" }), { pendingPhoto: forged }), cookie), /\/Posts\//);
    expect((await getRecipeDetail(rid))!.photo).toBe("/images/recipe-placeholder.png");
  });
});

describe("row buttons without JavaScript", () => {
  it("re-renders the draft with the change, saving nothing", async () => {
    const { cookie } = await signedInUser();
    const rid = crypto.randomUUID();
    const before = await snapshot();
    const draft = goodDraft();
    const cases: [string, (d: RecipeDraft) => void][] = [
      ["add-ingredient:1", (d) => expect(d.sections[1]!.ingredients).toEqual(["Ghee (2 tbsp)", ""])],
      ["delete-ingredient:0:0", (d) => expect(d.sections[0]!.ingredients).toEqual(["", "Turmeric (1 tsp)"])],
      ["add-section", (d) => expect(d.sections).toHaveLength(4)],
      ["delete-section:0", (d) => expect(d.sections.map((s) => s.title)).toEqual(["", "Empty"])],
      ["add-step", (d) => expect(d.steps).toEqual([...draft.steps, ""])],
      ["delete-step:1", (d) => expect(d.steps).toEqual(["Rinse the lentils.", "Simmer 20 minutes."])],
    ];
    for (const [intent, check] of cases) {
      const result = answerOf(await act(rid, form(draft, { intent }), cookie));
      expect(result.status).toBe(200);
      expect(result.data.kind).toBe("draft");
      expect(result.data.draft.name).toBe(draft.name);
      expect(result.data.draft.tags).toBe(draft.tags);
      check(result.data.draft);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("refuses to delete the last step with a message", async () => {
    const { cookie } = await signedInUser();
    const result = answerOf(await act(crypto.randomUUID(), form(goodDraft({ steps: ["Only"] }), { intent: "delete-step:0" }), cookie));
    expect(result.status).toBe(200);
    expect(result.data.formError).toBe(RECIPE_MESSAGES.lastStep);
    expect(result.data.draft.steps).toEqual(["Only"]);
  });

  it("keeps a chosen photo as a pending upload that the save then uses", async () => {
    const { user, cookie } = await signedInUser();
    const rid = crypto.randomUUID();
    const first = answerOf(await act(rid, form(goodDraft({ tags: "" }), { intent: "add-step", photo: await jpeg(1000, 800, "#1d4ed8") }), cookie));
    expect(first.status).toBe(200);
    const pending = first.data.pendingPhoto!;
    expect(pending).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    expect(await count("recipes")).toBeGreaterThan(0);
    expect(await db.selectFrom("recipes").select("id").where("id", "=", rid).executeTakeFirst()).toBeUndefined();

    // Choosing another photo on the next row button replaces the pending one (the old file goes).
    const second = answerOf(
      await act(rid, form(first.data.draft, { intent: "add-step", pendingPhoto: pending, photo: await jpeg(1000, 800, "#9333ea") }), cookie),
    );
    const replaced = second.data.pendingPhoto!;
    expect(replaced).not.toBe(pending);
    expect(storedFiles()).not.toContain(storedNameOf(pending));

    const saved = await act(rid, form(second.data.draft, { pendingPhoto: replaced }), cookie);
    expectRedirect(saved, new RegExp(`/Profile/${user.id}/Posts/`));
    expect((await getRecipeDetail(rid))!.photo).toBe(replaced);
  });

  it("answers an unknown intent with 400", async () => {
    const { cookie } = await signedInUser();
    expect(await thrownText(await act(crypto.randomUUID(), form(goodDraft(), { intent: "publish-everywhere" }), cookie), 400)).toBe("Unknown action.");
  });
});

describe("photos chosen with submissions that save nothing", () => {
  it(`keep only the person's last ${3} in the store: row buttons posted with new photos again and again cannot fill it`, async () => {
    const { user, cookie } = await signedInUser();
    const rid = crypto.randomUUID();
    const before = storedFiles();
    const colors = ["#111111", "#222222", "#333333", "#444444", "#555555", "#666666", "#777777", "#888888"];
    const pendings: string[] = [];
    // Each post omits the pending photo of the one before (as a script would): nothing replaces it.
    for (const color of colors) {
      const { data } = answerOf(await act(rid, form(goodDraft(), { intent: "add-step", photo: await jpeg(600, 400, color) }), cookie));
      expect(data.pendingPhoto).toMatch(/^\/uploads\//);
      pendings.push(data.pendingPhoto!);
    }
    const added = storedFiles().filter((name) => !before.includes(name));
    // Each photo is a main image and its copies (WebP and AVIF): the last PENDING_UPLOADS_KEPT photos only.
    expect(added).toHaveLength(PENDING_UPLOADS_KEPT * (1 + PHOTO_COPIES.length));
    for (const url of pendings.slice(-PENDING_UPLOADS_KEPT)) expect(added).toContain(storedNameOf(url));
    const rows = await db.selectFrom("pending_uploads").select("url").where("user_id", "=", user.id).execute();
    expect(rows.map((row) => row.url).sort()).toEqual(pendings.slice(-PENDING_UPLOADS_KEPT).sort());
    // The last one still saves with the recipe.
    expectRedirect(await act(rid, form(goodDraft(), { pendingPhoto: pendings.at(-1)! }), cookie), /\/Posts\//);
    expect((await getRecipeDetail(rid))!.photo).toBe(pendings.at(-1));
  });

  it("the same photo chosen by two people stays for the one still holding it when the other's is pushed out", async () => {
    const first = await signedInUser();
    const second = await signedInUser();
    const shared = await jpeg(600, 400, "#a16207");
    const mine = answerOf(await act(crypto.randomUUID(), form(goodDraft(), { intent: "add-step", photo: shared }), first.cookie)).data.pendingPhoto!;
    const theirs = answerOf(await act(crypto.randomUUID(), form(goodDraft(), { intent: "add-step", photo: shared }), second.cookie)).data.pendingPhoto!;
    expect(theirs).toBe(mine);
    // The first person chooses more photos: theirs is pushed out, the second person's stays.
    for (const color of ["#101010", "#202020", "#303030"]) {
      await act(crypto.randomUUID(), form(goodDraft(), { intent: "add-step", photo: await jpeg(600, 400, color) }), first.cookie);
    }
    expect(storedFiles()).toContain(storedNameOf(theirs));
    const rid = crypto.randomUUID();
    expectRedirect(await act(rid, form(goodDraft(), { pendingPhoto: theirs }), second.cookie), /\/Posts\//);
    expect((await getRecipeDetail(rid))!.photo).toBe(theirs);
  });

  it("a pending photo a save used is settled: when the recipe's photo changes later, the old file goes", async () => {
    const { cookie } = await signedInUser();
    const rid = crypto.randomUUID();
    const pending = answerOf(await act(rid, form(goodDraft(), { intent: "add-step", photo: await jpeg(600, 400, "#365314") }), cookie)).data.pendingPhoto!;
    expectRedirect(await act(rid, form(goodDraft(), { pendingPhoto: pending }), cookie), /\/Posts\//);
    expect(await db.selectFrom("pending_uploads").select("url").where("url", "=", pending).execute()).toEqual([]);
    expectRedirect(await act(rid, form(goodDraft(), { mode: "edit", photo: await jpeg(600, 400, "#1e3a8a") }), cookie), `/ReciPals/Recipes/${rid}`);
    expect(storedFiles()).not.toContain(storedNameOf(pending));
  });

  it("the sweep of unused uploads forgets pending photos a day old and removes their files", async () => {
    const { user, cookie } = await signedInUser();
    const pending = answerOf(await act(crypto.randomUUID(), form(goodDraft(), { intent: "add-step", photo: await jpeg(600, 400, "#701a75") }), cookie)).data.pendingPhoto!;
    // Within the day the sweep leaves it (the form may still save it) ...
    expect(await sweepOrphanUploads({ olderThanMs: 60 * 60 * 1000, now: Date.now() + 30 * 60 * 1000 })).not.toContain(storedNameOf(pending));
    expect(storedFiles()).toContain(storedNameOf(pending));
    // ... after it, the person's row and the file go.
    expect(await sweepOrphanUploads({ olderThanMs: 60 * 60 * 1000, now: Date.now() + 2 * 60 * 60 * 1000 })).toContain(storedNameOf(pending));
    expect(await db.selectFrom("pending_uploads").select("url").where("user_id", "=", user.id).execute()).toEqual([]);
  });

  it(`a person's uploads are limited (${RATE_LIMITS.uploads.limit} an hour): past it the photo is refused with 429 and nothing is stored`, async () => {
    const { user, cookie } = await signedInUser();
    // The hour's uploads so far, as the limit counts them.
    const now = Date.now();
    await db
      .insertInto("rate_events")
      .values(Array.from({ length: RATE_LIMITS.uploads.limit - 1 }, () => ({ id: crypto.randomUUID(), bucket: RATE_LIMITS.uploads.bucket, key: user.id, at: now })))
      .execute();
    const rid = crypto.randomUUID();
    const last = answerOf(await act(rid, form(goodDraft(), { intent: "add-step", photo: await jpeg(600, 400, "#0f766e") }), cookie));
    expect(last.data.pendingPhoto).toMatch(/^\/uploads\//);
    const before = storedFiles();
    const refused = await act(rid, form(goodDraft(), { intent: "add-step", photo: await jpeg(600, 400, "#7c2d12") }), cookie);
    const { status, data } = answerOf(refused);
    expect(status).toBe(429);
    expect(data.fieldErrors.photo).toMatch(/many times in a short while/);
    expect(storedFiles()).toEqual(before);
    // Saving without a new photo still works.
    expectRedirect(await act(rid, form(goodDraft()), cookie), /\/Posts\//);
  });
});

describe("editing a recipe", () => {
  it("updates the recipe and its post together and goes to the recipe", async () => {
    const { user, cookie } = await signedInUser();
    const { recipeId, postId } = await existingRecipe(user.id);
    const loaded = (await load(recipeId, cookie)) as Awaited<ReturnType<typeof loader>>;
    const draft: RecipeDraft = {
      ...loaded.draft,
      name: "Better Dal",
      description: "Now with lemon.",
      sections: [{ ...loaded.draft.sections[0]!, ingredients: ["Lemon (1)", ...loaded.draft.sections[0]!.ingredients] }],
      steps: ["Squeeze the lemon.", ...loaded.draft.steps],
      tags: "Tangy",
      serves: "2",
      totalTime: "35min",
    };
    expectRedirect(await act(recipeId, form(draft, { mode: "edit" }), cookie), `/ReciPals/Recipes/${recipeId}`);
    const detail = (await getRecipeDetail(recipeId))!;
    expect(detail).toMatchObject({ name: "Better Dal", description: "Now with lemon.", serves: 2, total_time: "35min", tags: ["Tangy"], post_id: postId });
    expect(detail.ingredients_sec).toEqual([{ _id: loaded.draft.sections[0]!.id, title: "Dal", ingredients: ["Lemon (1)", "Red lentils (1 cup)", "Turmeric (1 tsp)"] }]);
    expect(detail.steps[0]).toBe("Squeeze the lemon.");
    const postRow = await db.selectFrom("posts").select(["title", "caption", "photo"]).where("id", "=", postId).executeTakeFirstOrThrow();
    expect(postRow).toEqual({ title: "Better Dal", caption: "Now with lemon.", photo: "/images/recipe-placeholder.png" });
  });

  it("keeps the photo unless a new one is chosen, then replaces it and removes the old file", async () => {
    const { user, cookie } = await signedInUser();
    const oldPhoto = await storeImage(await sharp({ create: { width: 300, height: 200, channels: 3, background: "#f00" } }).png().toBuffer());
    const { recipeId } = await existingRecipe(user.id, oldPhoto.url);
    const loaded = (await load(recipeId, cookie)) as Awaited<ReturnType<typeof loader>>;
    expect(loaded.photo).toBe(oldPhoto.url);

    expectRedirect(await act(recipeId, form({ ...loaded.draft, name: "Same photo" }, { mode: "edit" }), cookie), `/ReciPals/Recipes/${recipeId}`);
    expect((await getRecipeDetail(recipeId))!.photo).toBe(oldPhoto.url);

    expectRedirect(await act(recipeId, form(loaded.draft, { mode: "edit", photo: await jpeg(640, 480, "#0f0") }), cookie), `/ReciPals/Recipes/${recipeId}`);
    const newPhoto = (await getRecipeDetail(recipeId))!.photo;
    expect(newPhoto).not.toBe(oldPhoto.url);
    expect(newPhoto).toMatch(/^\/uploads\//);
    const postPhoto = await db.selectFrom("posts").select("photo").where("recipe_id", "=", recipeId).executeTakeFirstOrThrow();
    expect(postPhoto.photo).toBe(newPhoto);
    expect(storedFiles()).not.toContain(storedNameOf(oldPhoto.url));
    expect(storedFiles()).not.toContain(storedNameOf(oldPhoto.cardUrl));
  });

  it("refuses another user with 403 and changes nothing; a visitor gets 'expired'", async () => {
    const owner = await makeUser();
    const { recipeId } = await existingRecipe(owner.id);
    const before = await getRecipeDetail(recipeId);
    const other = await signedInUser();
    expect(await thrownText(await act(recipeId, form(goodDraft({ name: "Hijacked", tags: "" }), { mode: "edit" }), other.cookie), 403)).toBe(
      "You are not allowed to edit this recipe.",
    );
    expectRedirect(
      await act(recipeId, form(goodDraft({ name: "Hijacked", tags: "" }), { mode: "edit" })),
      `/ReciPals/Account/Login?redirectTo=${encodeURIComponent(editorPath(recipeId))}&reason=expired`,
    );
    expect(await getRecipeDetail(recipeId)).toEqual(before);
  });

  it("lets an ADMIN edit someone's recipe without changing its creator", async () => {
    const owner = await makeUser();
    const { recipeId } = await existingRecipe(owner.id);
    const admin = await signedInUser("ADMIN");
    expectRedirect(await act(recipeId, form(goodDraft({ name: "Tidied by admin", tags: "" }), { mode: "edit" }), admin.cookie), `/ReciPals/Recipes/${recipeId}`);
    const detail = (await getRecipeDetail(recipeId))!;
    expect(detail.name).toBe("Tidied by admin");
    expect(detail.user_created).toBe(owner.id);
    const postRow = await db.selectFrom("posts").select("created_by").where("recipe_id", "=", recipeId).executeTakeFirstOrThrow();
    expect(postRow.created_by).toBe(owner.id);
  });

  it("says 'Recipe not found.' when a recipe opened for editing is gone by the time it is saved", async () => {
    const { cookie } = await signedInUser();
    expect(await thrownText(await act(crypto.randomUUID(), form(goodDraft({ tags: "" }), { mode: "edit" }), cookie), 404)).toBe("Recipe not found.");
  });
});

describe("deleting a recipe", () => {
  async function withActivity(ownerId: string) {
    const photo = await storeImage(await sharp({ create: { width: 320, height: 240, channels: 3, background: "#00f" } }).png().toBuffer());
    const { recipeId, postId } = await existingRecipe(ownerId, photo.url);
    const fan = await makeUser();
    await db.insertInto("likes").values({ post_id: postId, user_id: fan.id, created_at: nowIso() }).execute();
    await db
      .insertInto("comments")
      .values({ id: crypto.randomUUID(), post_id: postId, user_id: fan.id, text: "Yum", created_at: nowIso(), seq: nextSeq(db, "comments") })
      .execute();
    await db.insertInto("saved_recipes").values({ user_id: fan.id, recipe_id: recipeId, created_at: nowIso(), seq: nextSeq(db, "saved_recipes") }).execute();
    return { recipeId, postId, photo };
  }

  it("asks for confirmation without JavaScript, then deletes everything that belongs to the recipe", async () => {
    const { user, cookie } = await signedInUser();
    const { recipeId, postId, photo } = await withActivity(user.id);

    const asked = answerOf(await act(recipeId, form(goodDraft(), { intent: "delete", mode: "edit" }), cookie));
    expect(asked.status).toBe(200);
    expect(asked.data.kind).toBe("confirm-delete");
    expect(await getRecipeDetail(recipeId)).toBeDefined();

    const confirmed = new FormData();
    confirmed.append("intent", "delete");
    confirmed.append("confirm", "yes");
    expectRedirect(await act(recipeId, confirmed, cookie), `/ReciPals/Account/Profile/${user.id}`);

    expect(await getRecipeDetail(recipeId)).toBeUndefined();
    for (const [table, column, value] of [
      ["posts", "id", postId],
      ["likes", "post_id", postId],
      ["comments", "post_id", postId],
      ["saved_recipes", "recipe_id", recipeId],
      ["recipe_tags", "recipe_id", recipeId],
      ["ingredient_sections", "recipe_id", recipeId],
      ["steps", "recipe_id", recipeId],
    ] as const) {
      const rows = await db.selectFrom(table).select(column).where(column, "=", value).execute();
      expect(rows, table).toHaveLength(0);
    }
    expect(storedFiles()).not.toContain(storedNameOf(photo.url));
  });

  it("accepts the JavaScript path's urlencoded confirmation", async () => {
    const { user, cookie } = await signedInUser();
    const { recipeId } = await existingRecipe(user.id);
    const request = new Request(new URL(editorPath(recipeId), ORIGIN), {
      method: "POST",
      body: new URLSearchParams({ intent: "delete", confirm: "yes", mode: "edit" }),
      headers: { Cookie: cookie },
    });
    expectRedirect(await settle(() => action(routeArgs(request, { rid: recipeId }))), `/ReciPals/Account/Profile/${user.id}`);
    expect(await getRecipeDetail(recipeId)).toBeUndefined();
  });

  it("refuses another user with 403 and leaves everything in place", async () => {
    const owner = await makeUser();
    const { recipeId, postId } = await withActivity(owner.id);
    const other = await signedInUser();
    const confirmed = form(goodDraft(), { intent: "delete", confirm: "yes" });
    expect(await thrownText(await act(recipeId, confirmed, other.cookie), 403)).toBe("You are not allowed to edit this recipe.");
    expect(await getRecipeDetail(recipeId)).toBeDefined();
    expect(await db.selectFrom("likes").select("user_id").where("post_id", "=", postId).execute()).toHaveLength(1);
  });

  it("lets an ADMIN delete and answers 404 'Recipe not found.' for a missing recipe", async () => {
    const owner = await makeUser();
    const { recipeId } = await existingRecipe(owner.id);
    const admin = await signedInUser("ADMIN");
    const confirmed = () => {
      const body = new FormData();
      body.append("intent", "delete");
      body.append("confirm", "yes");
      return body;
    };
    expectRedirect(await act(recipeId, confirmed(), admin.cookie), `/ReciPals/Account/Profile/${admin.user.id}`);
    expect(await thrownText(await act(recipeId, confirmed(), admin.cookie), 404)).toBe("Recipe not found.");
    expect(await thrownText(await act(crypto.randomUUID(), confirmed(), admin.cookie), 404)).toBe("Recipe not found.");
  });
});
