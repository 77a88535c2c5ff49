import crypto from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import * as cooksApi from "~/routes/api.recipes.$recipe_id.cooks";
import { action as cookedAction } from "~/routes/ReciPals.Recipes.$rid.Cooked";
import { COOK_MESSAGES } from "~/lib/cook-limits";
import { db } from "~/server/db/connection.server";
import { urlOf, writeStoredFile } from "~/server/media/storage.server";
import { saveCook } from "~/server/services/cooks-service.server";

import { call, PNG_DATA_URL, snapshot, useTempUploads } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { expectRedirect, makeUser, ORIGIN, routeArgs, settle, signedInCookie } from "../support/app";

// The photo of an "I made this" entry is an upload, never an address (docs/rules.md#i-made-this):
// an address elsewhere would be loaded by every reader of the recipe page (a tracking pixel).
// Through the JSON API a photo is an image data URL run through the image pipeline; `""` removes
// it and the entry's own photo sent back keeps it; any other string is refused with 400 in the
// API's error shape and nothing is stored.

useTempUploads({ beforeAll, afterAll });

type U = Awaited<ReturnType<typeof makeUser>>;
let chef: U, ben: U;

beforeAll(async () => {
  chef = await makeUser();
  ben = await makeUser();
});

const cooksPath = (recipeId: string) => `/api/recipes/${recipeId}/cooks`;
const post = async (recipeId: string, body: unknown, cookie: string) => call(cooksApi, "POST", cooksPath(recipeId), { params: { recipe_id: recipeId }, cookie, body });

const ADDRESSES = [
  "https://tracker.example/pixel.gif",
  "http://tracker.example/pixel.gif?u=1",
  "//tracker.example/pixel.gif",
  "HTTPS://TRACKER.EXAMPLE/x.png",
  "https://recipals.netlify.app/images/default.jpg",
  "/images/noodleDish.png",
  "javascript:alert(1)",
  "not a picture",
];

describe("I made this through the JSON API: the photo", () => {
  it("refuses the address of a picture (anywhere) with 400, {message, errors.photo}, and stores nothing", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id });
    const cookie = await signedInCookie(ben.id);
    for (const photo of ADDRESSES) {
      const before = await snapshot();
      const answer = await post(recipe.recipeId, { rating: 4, note: "Tracked", photo }, cookie);
      expect({ photo, status: answer.status, body: answer.body }).toEqual({
        photo,
        status: 400,
        body: { message: COOK_MESSAGES.photoUploadOnly, errors: { photo: COOK_MESSAGES.photoUploadOnly } },
      });
      expect(await snapshot(), photo).toBe(before);
    }
    expect(await db.selectFrom("cooks").select("id").where("recipe_id", "=", recipe.recipeId).execute()).toEqual([]);
  });

  it("refuses an address for an existing entry: the entry and its photo stay as they were", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id });
    const cookie = await signedInCookie(ben.id);
    const added = await post(recipe.recipeId, { rating: 3, note: "First go", photo: PNG_DATA_URL }, cookie);
    expect(added.status).toBe(201);
    expect(added.body.photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    const refused = await post(recipe.recipeId, { rating: 5, photo: "https://tracker.example/pixel.gif" }, cookie);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: COOK_MESSAGES.photoUploadOnly, errors: { photo: COOK_MESSAGES.photoUploadOnly } });
    const row = await db.selectFrom("cooks").select(["rating", "note", "photo"]).where("recipe_id", "=", recipe.recipeId).executeTakeFirstOrThrow();
    expect(row).toEqual({ rating: 3, note: "First go", photo: added.body.photo });
  });

  it("refuses another stored upload's address too: only the entry's own photo sent back is kept", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id });
    const cookie = await signedInCookie(ben.id);
    const bytes = crypto.randomBytes(512);
    const name = `${crypto.createHash("sha256").update(bytes).digest("hex")}.webp`;
    await writeStoredFile(name, bytes);
    const someoneElses = await post(recipe.recipeId, { rating: 4, photo: urlOf(name) }, cookie);
    expect(someoneElses.status).toBe(400);
    expect(someoneElses.body.errors).toEqual({ photo: COOK_MESSAGES.photoUploadOnly });
  });

  it("takes a data URL through the image pipeline, keeps the photo sent back as it was, and removes it with \"\"", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id });
    const cookie = await signedInCookie(ben.id);
    const added = await post(recipe.recipeId, { rating: 4, photo: PNG_DATA_URL }, cookie);
    expect(added.status).toBe(201);
    const stored = added.body.photo as string;
    expect(stored).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    const kept = await post(recipe.recipeId, { rating: 5, photo: stored }, cookie);
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ rating: 5, photo: stored });
    const removed = await post(recipe.recipeId, { rating: 5, photo: "" }, cookie);
    expect(removed.status).toBe(200);
    expect(removed.body.photo).toBeNull();
    // A data URL that is not an image is refused as before.
    const text = await post(recipe.recipeId, { rating: 5, photo: "data:text/plain;base64,aGVsbG8=" }, cookie);
    expect(text.status).toBe(400);
    expect(text.body.errors).toHaveProperty("photo");
  });
});

describe("I made this: the service and the page form take no address either", () => {
  it("the service refuses a photo that is an address, whoever calls it", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id });
    const outcome = await saveCook({
      actor: { id: ben.id, role: ben.role },
      recipeId: recipe.recipeId,
      fields: { rating: 4 },
      photo: { kind: "set", url: "https://tracker.example/pixel.gif" },
      mode: "add",
    });
    expect(outcome).toMatchObject({ ok: false, status: 400, message: COOK_MESSAGES.photoUploadOnly, errors: { photo: COOK_MESSAGES.photoUploadOnly } });
    expect(await db.selectFrom("cooks").select("id").where("recipe_id", "=", recipe.recipeId).execute()).toEqual([]);
  });

  it("the page form reads only a file: a text `photo` field holding an address stores no photo", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id });
    const cookie = await signedInCookie(ben.id);
    const body = new FormData();
    for (const [name, value] of Object.entries({ intent: "cooked", rating: "4", photo: "https://tracker.example/pixel.gif" })) body.append(name, value);
    const request = new Request(new URL(`/ReciPals/Recipes/${recipe.recipeId}/Cooked`, ORIGIN), { method: "POST", body, headers: { Cookie: cookie } });
    expectRedirect(await settle(() => cookedAction(routeArgs(request, { rid: recipe.recipeId }))), `/ReciPals/Recipes/${recipe.recipeId}#cooked`);
    const row = await db.selectFrom("cooks").select("photo").where("recipe_id", "=", recipe.recipeId).executeTakeFirstOrThrow();
    expect(row.photo).toBeNull();
  });
});
