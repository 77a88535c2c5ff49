import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import * as cooksApi from "~/routes/api.recipes.$recipe_id.cooks";
import { action as cookedAction, loader as cookedLoader } from "~/routes/ReciPals.Recipes.$rid.Cooked";
import { loader as profileLoader } from "~/routes/ReciPals.Account.Profile.$uid";
import { loader as recipeLoader } from "~/routes/ReciPals.Recipes.$rid";
import { COOK_MESSAGES } from "~/lib/cook-limits";
import { db } from "~/server/db/connection.server";
import { nextSeq } from "~/server/queries/seq.server";
import { searchRecipes } from "~/server/queries/search.server";
import { getNotificationsPage } from "~/server/services/notifications-service.server";
import { removeCook, saveCook } from "~/server/services/cooks-service.server";
import { setBlock } from "~/server/services/people-service.server";

import { call, snapshot, useTempUploads } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { dataOf, expectRedirect, getRequest, makeUser, ORIGIN, routeArgs, settle, signedInCookie } from "../support/app";

// "I made this" (docs/rules.md#i-made-this) through the service, the recipe page's form (a real
// multipart post with a camera-sized photo), the recipe page, search cards, the profile's Cooked
// tab and the JSON API, against the real database of the run (SQLite, or PostgreSQL).

useTempUploads({ beforeAll, afterAll });

type U = Awaited<ReturnType<typeof makeUser>>;
let chef: U, anna: U, ben: U, admin: U;
let tart: Awaited<ReturnType<typeof makeRecipeWithPost>>;
let cameraPhoto: Buffer;

/** A photo as a phone takes it: 3000×2000, smooth shapes with sensor grain, a JPEG of a few MB. */
async function makeCameraPhoto(): Promise<Buffer> {
  const width = 3000;
  const height = 2000;
  const pixels = Buffer.alloc(width * height * 3);
  let seed = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const grain = (seed % 41) - 20;
      const i = (y * width + x) * 3;
      pixels[i] = Math.max(0, Math.min(255, 200 - y / 20 + 30 * Math.sin(x / 97) + grain));
      pixels[i + 1] = Math.max(0, Math.min(255, 120 + 50 * Math.cos(y / 143) + grain));
      pixels[i + 2] = Math.max(0, Math.min(255, 60 + x / 40 + grain));
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
}

beforeAll(async () => {
  chef = await makeUser();
  anna = await makeUser();
  ben = await makeUser();
  admin = await makeUser({ role: "ADMIN" });
  tart = await makeRecipeWithPost({ userId: chef.id, name: "Cooked Lemon Tart" });
  cameraPhoto = await makeCameraPhoto();
}, 60_000);

const actor = (user: U) => ({ id: user.id, role: user.role });

/** The form as a browser sends it: multipart, with an empty file part when no photo was chosen. */
function cookedRequest(rid: string, fields: Record<string, string>, cookie?: string, photo?: { bytes: Uint8Array; type: string; name: string }) {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  body.append("photo", photo ? new File([photo.bytes as Uint8Array<ArrayBuffer>], photo.name, { type: photo.type }) : new File([], "", { type: "application/octet-stream" }));
  return new Request(new URL(`/ReciPals/Recipes/${rid}/Cooked`, ORIGIN), { method: "POST", body, headers: cookie ? { Cookie: cookie } : {} });
}
const postCooked = (rid: string, fields: Record<string, string>, cookie?: string, photo?: { bytes: Uint8Array; type: string; name: string }) =>
  settle(() => cookedAction(routeArgs(cookedRequest(rid, fields, cookie, photo), { rid })));

type RecipePage = Exclude<Awaited<ReturnType<typeof recipeLoader>>, Response>;
const recipePage = async (rid: string, cookie?: string) => (await settle(() => recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${rid}`, cookie), { rid })))) as RecipePage;

describe("I made this: the rules", () => {
  it("adds one entry per person, counts and averages them, and tells the creator once, grouped", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id, name: "Grouped Pie" });
    expect(await saveCook({ actor: actor(anna), recipeId: recipe.recipeId, fields: { rating: 5, note: "  Lovely.  " }, photo: null, mode: "add" })).toEqual({ ok: true, value: { created: true } });
    expect(await saveCook({ actor: actor(ben), recipeId: recipe.recipeId, fields: { rating: "4", servings: "6" }, photo: null, mode: "add" })).toMatchObject({ ok: true });
    const page = await recipePage(recipe.recipeId);
    expect(page.cooked.stats).toEqual({ count: 2, average: 4.5 });
    // Newest first, the note trimmed.
    expect(page.cooked.entries.map((entry) => [entry.person.username, entry.rating, entry.note, entry.servings])).toEqual([
      [ben.username, 4, "", 6],
      [anna.username, 5, "Lovely.", null],
    ]);
    const notices = await getNotificationsPage({ actor: actor(chef), page: 1 });
    const group = notices.groups.find((item) => item.kind === "cooked" && item.subject === "Grouped Pie");
    expect(group?.text).toBe(`${ben.username} and ${anna.username} made Grouped Pie`);
    expect(group?.href).toBe(`/ReciPals/Recipes/${recipe.recipeId}#cooked`);
  });

  it("refuses a second entry, bad ratings, long notes, bad servings and one's own recipe, changing nothing", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id, name: "Refusing Flan" });
    await saveCook({ actor: actor(anna), recipeId: recipe.recipeId, fields: { rating: 3 }, photo: null, mode: "add" });
    const before = await snapshot();
    const tries: Array<[U, Record<string, unknown>, number, string]> = [
      [anna, { rating: 4 }, 409, COOK_MESSAGES.already],
      [ben, { rating: 0 }, 400, COOK_MESSAGES.rating],
      [ben, { rating: 6 }, 400, COOK_MESSAGES.rating],
      [ben, { rating: "4.5" }, 400, COOK_MESSAGES.rating],
      [ben, {}, 400, COOK_MESSAGES.rating],
      [ben, { rating: 4, note: "x".repeat(501) }, 400, COOK_MESSAGES.noteTooLong],
      [ben, { rating: 4, servings: "0" }, 400, COOK_MESSAGES.servings],
      [ben, { rating: 4, servings: "lots" }, 400, COOK_MESSAGES.servings],
      [chef, { rating: 5 }, 403, COOK_MESSAGES.ownRecipe],
    ];
    for (const [who, fields, status, message] of tries) {
      expect(await saveCook({ actor: actor(who), recipeId: recipe.recipeId, fields, photo: null, mode: "add" }), JSON.stringify(fields)).toMatchObject({ ok: false, status, message });
    }
    expect(await saveCook({ actor: actor(ben), recipeId: "no-such-recipe", fields: { rating: 4 }, photo: null, mode: "add" })).toMatchObject({ status: 404 });
    expect(await snapshot()).toBe(before);
    // A note of exactly 500 characters is fine.
    expect(await saveCook({ actor: actor(ben), recipeId: recipe.recipeId, fields: { rating: 4, note: "y".repeat(500) }, photo: null, mode: "add" })).toMatchObject({ ok: true });
  });

  it("lets the author change and delete their entry (its unread notification goes too); an admin removes anyone's; nobody else can", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id, name: "Editable Soup" });
    await saveCook({ actor: actor(anna), recipeId: recipe.recipeId, fields: { rating: 2 }, photo: null, mode: "add" });
    expect(await saveCook({ actor: actor(anna), recipeId: recipe.recipeId, fields: { rating: 5, note: "Better the second time." }, photo: null, mode: "edit" })).toEqual({ ok: true, value: { created: false } });
    expect((await recipePage(recipe.recipeId)).cooked.stats).toEqual({ count: 1, average: 5 });
    expect(await saveCook({ actor: actor(ben), recipeId: recipe.recipeId, fields: { rating: 5 }, photo: null, mode: "edit" })).toMatchObject({ status: 404, message: COOK_MESSAGES.missing });
    expect(await removeCook({ actor: actor(ben), recipeId: recipe.recipeId, userId: anna.id })).toMatchObject({ status: 403 });
    expect(await removeCook({ actor: actor(anna), recipeId: recipe.recipeId })).toEqual({ ok: true, value: undefined });
    const notices = await getNotificationsPage({ actor: actor(chef), page: 1 });
    expect(notices.groups.some((group) => group.kind === "cooked" && group.subject === "Editable Soup")).toBe(false);
    expect(await removeCook({ actor: actor(anna), recipeId: recipe.recipeId })).toMatchObject({ status: 404 });
    await saveCook({ actor: actor(ben), recipeId: recipe.recipeId, fields: { rating: 1 }, photo: null, mode: "add" });
    expect(await removeCook({ actor: actor(admin), recipeId: recipe.recipeId, userId: ben.id })).toMatchObject({ ok: true });
    // An admin's removal is in the moderation log; an author's own deletion is not.
    const logged = await db.selectFrom("moderation_log").select(["moderator_id", "action", "target_kind", "target_user_id", "summary"]).where("target_user_id", "in", [ben.id, anna.id]).execute();
    expect(logged).toEqual([{ moderator_id: admin.id, action: "remove", target_kind: "cook", target_user_id: ben.id, summary: "Editable Soup: 1 of 5" }]);
    expect((await recipePage(recipe.recipeId)).cooked.stats).toEqual({ count: 0, average: null });
  });

  it("refuses across a block, and hides a blocked person's entry from the other", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id, name: "Blocked Bread" });
    const stranger = await makeUser();
    await saveCook({ actor: actor(stranger), recipeId: recipe.recipeId, fields: { rating: 1, note: "Meh" }, photo: null, mode: "add" });
    await setBlock({ actor: actor(chef), targetId: stranger.id, blocked: true });
    const seen = await recipePage(recipe.recipeId, await signedInCookie(chef.id));
    expect(seen.cooked.entries).toEqual([]);
    expect(seen.cooked.stats).toEqual({ count: 0, average: null });
    // Others still see it.
    expect((await recipePage(recipe.recipeId)).cooked.stats.count).toBe(1);
    const blocked = await makeUser();
    await setBlock({ actor: actor(chef), targetId: blocked.id, blocked: true });
    expect(await saveCook({ actor: actor(blocked), recipeId: recipe.recipeId, fields: { rating: 5 }, photo: null, mode: "add" })).toMatchObject({ ok: false, status: 403 });
  });
});

describe("I made this: many entries", () => {
  it("the page shows the 20 newest and counts them all; ?cooked=all shows every one", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id, name: "Popular Dal" });
    const now = new Date().toISOString();
    for (let i = 0; i < 21; i++) {
      const id = `dal-cook-${i}-${recipe.recipeId}`;
      await db.insertInto("users").values({ id, username: `dal_${i}_${recipe.recipeId.slice(0, 8)}`, name: "Dal Cook", password_hash: "!", role: "USER", bio: "", profile: "", created_at: now, seq: nextSeq(db, "users") }).execute();
      expect(await saveCook({ actor: { id, role: "USER" }, recipeId: recipe.recipeId, fields: { rating: (i % 5) + 1 }, photo: null, mode: "add" })).toMatchObject({ ok: true });
    }
    const page = await recipePage(recipe.recipeId);
    expect(page.cooked.stats).toEqual({ count: 21, average: 2.9 });
    expect(page.cooked.entries).toHaveLength(20);
    expect(page.cooked.entries[0]!.person.id).toBe(`dal-cook-20-${recipe.recipeId}`);
    const all = (await settle(() => recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipe.recipeId}?cooked=all`), { rid: recipe.recipeId })))) as RecipePage;
    expect(all.cooked.entries).toHaveLength(21);
  });
});

describe("I made this: the recipe page's form", () => {
  it("opens for a signed-in cook, sends visitors to log in, and has no form for the creator", async () => {
    const open = (cookie?: string) => settle(() => cookedLoader(routeArgs(getRequest(`/ReciPals/Recipes/${tart.recipeId}/Cooked`, cookie), { rid: tart.recipeId })));
    expectRedirect(await open(), /\/ReciPals\/Account\/Login\?redirectTo=/);
    expect(await open(await signedInCookie(chef.id))).toMatchObject({ own: true, entry: null });
    const form = (await open(await signedInCookie(anna.id))) as { entry: unknown };
    expect(form.entry).toBeNull();
  });

  it("takes a rating, a note, servings and a camera photo; the recipe page, its JSON-LD, search and the profile show it", async () => {
    expect(cameraPhoto.byteLength).toBeGreaterThan(2 * 1024 * 1024);
    const cookie = await signedInCookie(anna.id);
    const sent = await postCooked(tart.recipeId, { intent: "cooked", mode: "add", rating: "4", note: "Zesty!", servings: "8" }, cookie, {
      bytes: cameraPhoto,
      type: "image/jpeg",
      name: "IMG_2041.jpg",
    });
    expectRedirect(sent, `/ReciPals/Recipes/${tart.recipeId}#cooked`);
    const page = await recipePage(tart.recipeId, cookie);
    const [entry] = page.cooked.entries;
    expect(entry).toMatchObject({ rating: 4, note: "Zesty!", servings: 8, person: { id: anna.id } });
    expect(entry!.photo).toMatch(/^\/uploads\/.+\.webp$/);
    expect(page.cooked.viewer).toMatchObject({ mayCook: true, hasEntry: true });
    const jsonLd = page.share.jsonLd as Record<string, any>;
    expect(jsonLd.aggregateRating).toEqual({ "@type": "AggregateRating", ratingValue: 4, ratingCount: 1, bestRating: 5, worstRating: 1 });
    expect(jsonLd.review).toEqual([
      expect.objectContaining({ "@type": "Review", author: { "@type": "Person", name: anna.username }, reviewBody: "Zesty!", reviewRating: expect.objectContaining({ ratingValue: 4 }) }),
    ]);
    const found = await searchRecipes({ q: "Cooked Lemon Tart" });
    expect(found.items.find((card) => card.recipe_id === tart.recipeId)?.cooks).toEqual({ count: 1, average: 4 });
    const profile = (await settle(() => profileLoader(routeArgs(getRequest(`/ReciPals/Account/Profile/${anna.id}?tab=cooked`, cookie), { uid: anna.id })))) as {
      tab: string;
      cooked: Array<{ recipe: { id: string }; rating: number; photo: string | null }>;
    };
    expect(profile.tab).toBe("cooked");
    // Newest first: this one before what the tests above made.
    expect(profile.cooked[0]).toMatchObject({ recipe: { id: tart.recipeId }, rating: 4, photo: entry!.photo });
    expect(profile.cooked.length).toBeGreaterThan(1);
  });

  it("a second 'I made this', a bad rating or a file that is not an image: a clear message, what was typed kept, nothing changed", async () => {
    const cookie = await signedInCookie(anna.id);
    const before = await snapshot();
    const again = dataOf<{ message: string }>(await postCooked(tart.recipeId, { intent: "cooked", mode: "add", rating: "5" }, cookie));
    expect(again).toMatchObject({ status: 409, data: { message: COOK_MESSAGES.already } });
    const bad = dataOf<{ errors: Record<string, string>; fields: Record<string, string> }>(
      await postCooked(tart.recipeId, { intent: "cooked", mode: "edit", rating: "9", note: "typed" }, cookie),
    );
    expect(bad).toMatchObject({ status: 400, data: { errors: { rating: COOK_MESSAGES.rating }, fields: { note: "typed" } } });
    const text = dataOf<{ errors: Record<string, string> }>(
      await postCooked(tart.recipeId, { intent: "cooked", mode: "edit", rating: "5" }, cookie, { bytes: Buffer.from("not a picture at all"), type: "image/jpeg", name: "fake.jpg" }),
    );
    expect(text).toMatchObject({ status: 400, data: { errors: { photo: "Please choose an image file." } } });
    expect(await snapshot()).toBe(before);
  });

  it("changes the entry and removes its photo, then deletes it", async () => {
    const cookie = await signedInCookie(anna.id);
    expectRedirect(await postCooked(tart.recipeId, { intent: "cooked", mode: "edit", rating: "5", note: "Even better", removePhoto: "yes" }, cookie), /#cooked$/);
    const [entry] = (await recipePage(tart.recipeId)).cooked.entries;
    expect(entry).toMatchObject({ rating: 5, note: "Even better", photo: null, servings: null });
    // Deleting asks first; nothing goes until it is confirmed.
    expect(await postCooked(tart.recipeId, { intent: "uncook" }, cookie)).toEqual({ confirm: { intent: "uncook", userId: "" } });
    expect((await recipePage(tart.recipeId)).cooked.entries).toHaveLength(1);
    expectRedirect(await postCooked(tart.recipeId, { intent: "uncook", confirm: "yes" }, cookie), /#cooked$/);
    expect((await recipePage(tart.recipeId)).cooked.entries).toEqual([]);
    expect(await db.selectFrom("cooks").select("id").where("user_id", "=", anna.id).where("recipe_id", "=", tart.recipeId).execute()).toEqual([]);
  });
});

describe("I made this: the JSON API", () => {
  it("lists, adds or changes one's own, and deletes it", async () => {
    const recipe = await makeRecipeWithPost({ userId: chef.id, name: "Api Gumbo" });
    const path = `/api/recipes/${recipe.recipeId}/cooks`;
    const params = { recipe_id: recipe.recipeId };
    const cookie = await signedInCookie(ben.id);
    expect((await call(cooksApi, "GET", path, { params })).body).toEqual({ recipe_id: recipe.recipeId, count: 0, average: null, cooks: [] });
    expect((await call(cooksApi, "POST", path, { params, body: { rating: 3 } })).status).toBe(401);
    const added = await call(cooksApi, "POST", path, { params, cookie, body: { rating: 3, note: "Spicy", servings: 4 } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ rating: 3, note: "Spicy", servings: 4, user: { _id: ben.id, username: ben.username }, photo: null });
    const changed = await call(cooksApi, "POST", path, { params, cookie, body: { rating: 5 } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ rating: 5, note: "", servings: null });
    const bad = await call(cooksApi, "POST", path, { params, cookie, body: { rating: 7 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(COOK_MESSAGES.rating);
    const own = await call(cooksApi, "POST", path, { params, cookie: await signedInCookie(chef.id), body: { rating: 5 } });
    expect(own.status).toBe(403);
    const listed = await call(cooksApi, "GET", path, { params });
    expect(listed.body).toMatchObject({ count: 1, average: 5, cooks: [{ user: { _id: ben.id }, rating: 5 }] });
    const removed = await call(cooksApi, "DELETE", path, { params, cookie });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ count: 0, cooks: [] });
    expect((await call(cooksApi, "DELETE", path, { params, cookie })).status).toBe(404);
    expect((await call(cooksApi, "GET", "/api/recipes/nope/cooks", { params: { recipe_id: "nope" } })).status).toBe(404);
  });
});
