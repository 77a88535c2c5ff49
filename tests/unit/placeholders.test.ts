import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import sharp from "sharp";
import { describe, expect, it } from "vitest";

import { loader as profileLoader } from "~/routes/ReciPals.Account.Profile.$uid";
import { loader as postViewerLoader } from "~/routes/ReciPals.Account.Profile.$uid.Posts.$pid";
import { loader as homeLoader } from "~/routes/ReciPals.Home";
import { loader as recipeLoader } from "~/routes/ReciPals.Recipes.$rid";
import { loader as savedLoader } from "~/routes/ReciPals.Saved";
import { loader as searchLoader } from "~/routes/ReciPals.Search";
import { db } from "~/server/db/connection.server";
import { processImage, storeImage } from "~/server/media/images.server";
import { storedNameOf } from "~/server/media/storage.server";
import { setRecipeSaved } from "~/server/queries/saved.server";
import { createRecipe } from "~/server/services/recipes-service.server";

import { getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";
import { follow, makeRecipeWithPost } from "../support/factories";
import { cameraPhoto } from "../support/photos";
import { useScratchUploads } from "../support/settings";

// Every stored photo has a tiny blurred copy, `<hash>.tiny.webp`, that pages write inline as a
// data URL so a slot shows the photo's colours at once (docs/rules.md#images). Real database, real
// uploads folder, loaders called as Remix calls them.

const scratch = useScratchUploads("placeholders");

/** A 1600×1200 camera-like JPEG; each seed is a different picture (so a different stored file). */
const photoLike = (seed: number) => cameraPhoto({ width: 1600, height: 1200, seed });

const storedPath = (name: string) => path.join(scratch.dir, name);
/** The stored main photo and its tiny copy behind a photo URL. */
function filesOf(url: string) {
  const name = storedNameOf(url);
  expect(name).toMatch(/^[0-9a-f]{64}\.webp$/);
  const hash = name!.slice(0, 64);
  return { main: storedPath(name!), tiny: storedPath(`${hash}.tiny.webp`) };
}
const dataUrlOf = (bytes: Buffer) => `data:image/webp;base64,${bytes.toString("base64")}`;
/** What a page should write inline for a stored photo: its tiny file, byte for byte. */
const expectedPlaceholder = (url: string) => dataUrlOf(fs.readFileSync(filesOf(url).tiny));

/** Average red, green and blue of a picture. */
async function meanColour(bytes: Buffer): Promise<number[]> {
  const { channels } = await sharp(bytes).stats();
  return channels.slice(0, 3).map((channel) => channel.mean);
}

/** The tiny copy is a 16 px WebP of a few hundred bytes that looks like the photo it stands for. */
async function expectTinyCopyOf(tiny: Buffer, photo: Buffer): Promise<void> {
  const { format, width, height } = await sharp(tiny).metadata();
  expect(format).toBe("webp");
  // 1600×1200 (4:3) → 16×12.
  expect([width, height]).toEqual([16, 12]);
  expect(tiny.byteLength).toBeLessThan(400);
  // Its average colour is the photo's…
  const [tinyMean, photoMean] = await Promise.all([meanColour(tiny), meanColour(photo)]);
  for (let channel = 0; channel < 3; channel++) expect(Math.abs(tinyMean[channel]! - photoMean[channel]!)).toBeLessThan(20);
  // …and so are its shapes: pixel by pixel it is close to the photo shrunk to the same size.
  expect(await pixelDifference(tiny, photo)).toBeLessThan(20);
}

/** How far a tiny copy is from a photo shrunk to its size: the mean difference per pixel and channel (0–255). */
async function pixelDifference(tiny: Buffer, photo: Buffer): Promise<number> {
  const decoded = await sharp(tiny).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const shrunk = await sharp(photo).resize(decoded.info.width, decoded.info.height, { fit: "fill" }).removeAlpha().raw().toBuffer();
  expect(decoded.data.byteLength).toBe(shrunk.byteLength);
  let difference = 0;
  for (let i = 0; i < shrunk.byteLength; i++) difference += Math.abs(shrunk[i]! - decoded.data[i]!);
  return difference / shrunk.byteLength;
}

const RECIPE_INPUT = {
  description: "A dish with a real photo",
  totalTime: "30min",
  serves: 2,
  tags: ["Savory"],
  sections: [{ id: "", title: "Main", ingredients: ["Flour (200g)"] }],
  steps: ["Bake."],
};

/** A recipe (and its post) whose photo was uploaded the way the editor uploads one. */
async function recipeWithPhoto(userId: string, name: string, photo: Buffer) {
  const created = await createRecipe({
    actor: { id: userId, role: "USER" },
    recipeId: crypto.randomUUID(),
    input: { ...RECIPE_INPUT, name },
    photo: { kind: "upload", image: await processImage(photo) },
    fallbackPhoto: "/images/recipe-placeholder.png",
  });
  if (!created.ok) throw new Error(created.message);
  const { recipeId, postId } = created.value;
  const row = await db.selectFrom("recipes").select("photo").where("id", "=", recipeId).executeTakeFirstOrThrow();
  expect(row.photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
  const post = await db.selectFrom("posts").select("photo").where("id", "=", postId).executeTakeFirstOrThrow();
  expect(post.photo).toBe(row.photo);
  return { recipeId, postId, url: row.photo };
}

const loadRecipe = (recipeId: string, cookie?: string) => recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipeId}`, cookie), { rid: recipeId }));

async function loadPost(uid: string, pid: string, cookie: string) {
  const result = await settle(() => postViewerLoader(routeArgs(getRequest(`/ReciPals/Account/Profile/${uid}/Posts/${pid}`, cookie), { uid, pid })));
  expect(result).not.toBeInstanceOf(Response);
  expect(result).toHaveProperty("post");
  return result as Extract<Awaited<ReturnType<typeof postViewerLoader>>, { post: unknown }>;
}

async function loadProfile(uid: string, cookie: string, tab = "") {
  const result = await settle(() => profileLoader(routeArgs(getRequest(`/ReciPals/Account/Profile/${uid}${tab ? `?tab=${tab}` : ""}`, cookie), { uid })));
  expect(result).not.toBeInstanceOf(Response);
  expect(result).toHaveProperty("placeholders");
  return result as Extract<Awaited<ReturnType<typeof profileLoader>>, { isOwn: boolean }>;
}

/** The Home feed as someone who follows the author: the author's posts come first, newest first. */
async function homeAsFollower(followerId: string) {
  return homeLoader(routeArgs(getRequest("/ReciPals/Home?seed=7", await signedInCookie(followerId))));
}

describe("the tiny placeholder copy", () => {
  it("is written with the photo: a 16 px WebP under 400 bytes, in the photo's proportions and colours", async () => {
    const photo = await photoLike(1);
    const { url } = await storeImage(photo);
    const { main, tiny } = filesOf(url);
    expect(fs.existsSync(main)).toBe(true);
    expect(fs.existsSync(tiny)).toBe(true);
    await expectTinyCopyOf(fs.readFileSync(tiny), photo);
  });

  it("stands for its own photo, not any photo: another picture's tiny copy looks different", async () => {
    const [first, second] = [await photoLike(11), await photoLike(12)];
    const tinyOf = async (photo: Buffer) => fs.readFileSync(filesOf((await storeImage(photo)).url).tiny);
    const [tinyFirst, tinySecond] = [await tinyOf(first), await tinyOf(second)];
    expect(tinyFirst.equals(tinySecond)).toBe(false);
    await expectTinyCopyOf(tinyFirst, first);
    await expectTinyCopyOf(tinySecond, second);
    // Each is much nearer its own photo than the other one.
    expect(await pixelDifference(tinyFirst, second)).toBeGreaterThan(2 * (await pixelDifference(tinyFirst, first)));
    expect(await pixelDifference(tinySecond, first)).toBeGreaterThan(2 * (await pixelDifference(tinySecond, second)));
  });
});

describe("pages carry each stored photo's placeholder inline", () => {
  it("Home: a card with a stored photo gets its tiny file as a data URL; a default picture gets none", async () => {
    const author = await makeUser();
    const reader = await makeUser();
    await follow(reader.id, author.id);
    const plain = await makeRecipeWithPost({ userId: author.id, name: "Default picture dish" });
    const photo = await photoLike(2);
    const photographed = await recipeWithPhoto(author.id, "Photographed dish", photo);

    const feed = await homeAsFollower(reader.id);
    expect(feed.posts.slice(0, 2).map((post) => post.post_id)).toEqual([photographed.postId, plain.postId]);
    const [withPhoto, withDefault] = feed.posts;
    expect(withPhoto!.photo).toBe(photographed.url);
    expect(withPhoto!.placeholder).toBe(expectedPlaceholder(photographed.url));
    expect(withPhoto!.placeholder!.startsWith("data:image/webp;base64,")).toBe(true);
    await expectTinyCopyOf(Buffer.from(withPhoto!.placeholder!.slice("data:image/webp;base64,".length), "base64"), photo);
    expect(withDefault!.photo).toBe("/images/noodleDish.png");
    expect(withDefault!.placeholder).toBeNull();
    // Every card says whether it has one: never left out.
    for (const post of feed.posts) expect(post).toHaveProperty("placeholder");
  });

  it("the recipe page, the profile, Search, Saved and the post viewer all give the photo's placeholder", async () => {
    const author = await makeUser();
    const reader = await makeUser();
    const { recipeId, postId, url } = await recipeWithPhoto(author.id, "Saffron Quince Galette", await photoLike(3));
    const expected = expectedPlaceholder(url);
    const readerCookie = await signedInCookie(reader.id);

    const recipePage = await loadRecipe(recipeId);
    expect(recipePage.recipe.photo).toBe(url);
    expect(recipePage.photo.placeholder).toBe(expected);
    // Signed in, the same.
    expect((await loadRecipe(recipeId, readerCookie)).photo.placeholder).toBe(expected);

    const profile = await loadProfile(author.id, readerCookie);
    expect(profile.posts.map((post) => post.post_id)).toEqual([postId]);
    expect(profile.placeholders).toEqual({ [url]: expected });

    const search = await searchLoader(routeArgs(getRequest("/ReciPals/Search?q=quince%20galette")));
    expect(search.error).toBeNull();
    const found = search.recipes.items.find((item) => item.recipe_id === recipeId);
    expect(found).toBeDefined();
    expect(found!.placeholder).toBe(expected);

    expect((await savedLoader(routeArgs(getRequest("/ReciPals/Saved", readerCookie)))).recipes).toEqual([]);
    await setRecipeSaved({ userId: reader.id, recipeId, saved: true });
    const saved = await savedLoader(routeArgs(getRequest("/ReciPals/Saved", readerCookie)));
    expect(saved.recipes.map((recipe) => recipe.recipe_id)).toEqual([recipeId]);
    expect(saved.recipes[0]!.placeholder).toBe(expected);
    // The reader's own profile, Saved tab: keyed by the same photo address.
    expect((await loadProfile(reader.id, readerCookie, "saved")).placeholders).toEqual({ [url]: expected });

    const viewer = await loadPost(author.id, postId, readerCookie);
    expect(viewer.post.post_id).toBe(postId);
    expect(viewer.post.placeholder).toBe(expected);
  });

  it("default pictures and other sites' photos have no placeholder, and the page still answers", async () => {
    const author = await makeUser();
    const reader = await makeUser();
    const readerCookie = await signedInCookie(reader.id);
    const { recipeId, postId: madePostId } = await makeRecipeWithPost({ userId: author.id, name: "Plain Barley Porridge" });
    const postId = madePostId!;
    expect((await loadRecipe(recipeId)).photo.placeholder).toBeNull();
    expect((await loadPost(author.id, postId, readerCookie)).post.placeholder).toBeNull();
    expect((await loadProfile(author.id, readerCookie)).placeholders).toEqual({});
    const external = "https://example.com/photos/porridge.jpg";
    await db.updateTable("recipes").set({ photo: external }).where("id", "=", recipeId).execute();
    await db.updateTable("posts").set({ photo: external }).where("id", "=", postId).execute();
    expect((await loadRecipe(recipeId)).photo.placeholder).toBeNull();
    expect((await loadPost(author.id, postId, readerCookie)).post.placeholder).toBeNull();
    expect((await loadProfile(author.id, readerCookie)).placeholders).toEqual({});
  });
});

describe("photos stored before placeholders existed", () => {
  it("get their tiny copy made from the photo on first read, and stored", async () => {
    const author = await makeUser();
    const reader = await makeUser();
    await follow(reader.id, author.id);
    const photo = await photoLike(4);
    const { recipeId, postId, url } = await recipeWithPhoto(author.id, "Old photo dish", photo);
    const { tiny } = filesOf(url);
    fs.rmSync(tiny);
    expect(fs.existsSync(tiny)).toBe(false);

    const page = await loadRecipe(recipeId);
    expect(page.photo.placeholder).toMatch(/^data:image\/webp;base64,[A-Za-z0-9+/]+=*$/);
    // Stored again, and the page wrote exactly what is stored now.
    expect(fs.existsSync(tiny)).toBe(true);
    const stored = fs.readFileSync(tiny);
    expect(page.photo.placeholder).toBe(dataUrlOf(stored));
    await expectTinyCopyOf(stored, photo);

    // Other pages show the same one.
    const feed = await homeAsFollower(reader.id);
    expect(feed.posts[0]!.post_id).toBe(postId);
    expect(feed.posts[0]!.placeholder).toBe(dataUrlOf(stored));
    expect((await loadPost(author.id, postId, await signedInCookie(reader.id))).post.placeholder).toBe(dataUrlOf(stored));
  });
});

describe("a placeholder read never fails the page", () => {
  it("answers with no placeholder when the tiny copy and the photo itself are gone", async () => {
    const author = await makeUser();
    const reader = await makeUser();
    await follow(reader.id, author.id);
    const readerCookie = await signedInCookie(reader.id);
    const { recipeId, postId, url } = await recipeWithPhoto(author.id, "Broken store dish", await photoLike(5));
    const { main, tiny } = filesOf(url);
    fs.rmSync(tiny);
    fs.rmSync(main);

    const page = await loadRecipe(recipeId);
    expect(page.recipe.recipe_id).toBe(recipeId);
    expect(page.photo.placeholder).toBeNull();
    const feed = await homeAsFollower(reader.id);
    expect(feed.posts[0]!.post_id).toBe(postId);
    expect(feed.posts[0]!.placeholder).toBeNull();
    expect((await loadPost(author.id, postId, readerCookie)).post.placeholder).toBeNull();
    expect((await loadProfile(author.id, readerCookie)).placeholders).toEqual({});
    // Nothing was made up in their place.
    expect(fs.existsSync(tiny)).toBe(false);
    expect(fs.existsSync(main)).toBe(false);
  });

  it("answers with no placeholder when the photo is unreadable (not a picture any more)", async () => {
    const author = await makeUser();
    const reader = await makeUser();
    const { recipeId, postId, url } = await recipeWithPhoto(author.id, "Corrupt store dish", await photoLike(6));
    const { main, tiny } = filesOf(url);
    fs.rmSync(tiny);
    fs.writeFileSync(main, "not a picture at all\n".repeat(10));

    expect((await loadRecipe(recipeId)).photo.placeholder).toBeNull();
    expect((await loadPost(author.id, postId, await signedInCookie(reader.id))).post.placeholder).toBeNull();
    expect(fs.existsSync(tiny)).toBe(false);
  });
});

describe("what a page carries", () => {
  it("an empty placeholder file is made again from the photo, not written into the page", async () => {
    const author = await makeUser();
    const { recipeId, url } = await recipeWithPhoto(author.id, "Emptied placeholder dish", await photoLike(7));
    const { tiny } = filesOf(url);
    fs.writeFileSync(tiny, "");
    const placeholder = (await loadRecipe(recipeId)).photo.placeholder;
    expect(placeholder).toMatch(/^data:image\/webp;base64,[A-Za-z0-9+/=]{40,}$/);
    const { format, width } = await sharp(Buffer.from(placeholder!.split(",")[1]!, "base64")).metadata();
    expect([format, width]).toEqual(["webp", 16]);
  });

  it("a long grid carries placeholders for its first 12 photos only (each costs bytes twice)", async () => {
    const author = await makeUser();
    const urls: string[] = [];
    for (let n = 0; n < 13; n++) {
      const photo = await cameraPhoto({ width: 400, height: 300, seed: 100 + n });
      urls.push((await recipeWithPhoto(author.id, `Grid dish ${n + 1}`, photo)).url);
    }
    const profile = await loadProfile(author.id, await signedInCookie(author.id));
    expect(profile.posts).toHaveLength(13);
    // Newest first: the 12 newest have one, the oldest (the first made) none.
    expect(Object.keys(profile.placeholders).sort()).toEqual(urls.slice(1).sort());
  });
});
