import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";

import type { DB } from "../app/server/db/connection.server";
import { copyNameOf, PHOTO_COPIES, storedNameOf } from "../app/server/media/storage.server";
import { useScratchUploads } from "../tests/support/settings";

import { seedDatabase, seedOptionsFromEnv, type SeedOptions } from "./index";
import { SEED_PHOTO_LIMITS, seedPhotoModeOf } from "./photos";
import type { SeedDataInput } from "./seed-data";
import { captureLog, freshDb, startMealDbStub } from "./test-support";

// The sample photos stored in our own store at seed time, against a local stand-in for the photo
// site (real JPEGs, one missing) and a scratch uploads folder: no test reaches the internet.

const uploads = useScratchUploads("seed-photos");

/** A 1200×800 photo-like JPEG: smooth gradients and a few soft shapes, different per `hue`. */
async function samplePhoto(hue: number): Promise<Buffer> {
  const colour = (shift: number, light: number) => `hsl(${(hue + shift) % 360}, 70%, ${light}%)`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800">
    <defs>
      <linearGradient id="sky" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${colour(0, 35)}"/><stop offset="1" stop-color="${colour(40, 75)}"/></linearGradient>
      <radialGradient id="plate"><stop offset="0" stop-color="#fff" stop-opacity="0.9"/><stop offset="1" stop-color="${colour(180, 60)}" stop-opacity="0.6"/></radialGradient>
    </defs>
    <rect width="1200" height="800" fill="url(#sky)"/>
    <ellipse cx="600" cy="430" rx="380" ry="260" fill="url(#plate)"/>
    <circle cx="520" cy="400" r="90" fill="${colour(90, 50)}" opacity="0.8"/>
    <rect x="640" y="330" width="160" height="120" rx="30" fill="${colour(200, 45)}" opacity="0.7"/>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 88 }).toBuffer();
}

interface PhotoSite {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Paths asked for, in arrival order. */
  calls: string[];
  close(): Promise<void>;
}

/** Serves `photos` (path → JPEG) and a 404 for anything else, on 127.0.0.1. */
async function startPhotoSite(photos: Map<string, Buffer>): Promise<PhotoSite> {
  const calls: string[] = [];
  const server = http.createServer((request, response) => {
    const url = request.url ?? "/";
    calls.push(url);
    const photo = photos.get(url);
    if (!photo) {
      response.writeHead(404, { "Content-Type": "text/plain" });
      response.end("Not found");
      return;
    }
    response.writeHead(200, { "Content-Type": "image/jpeg", "Content-Length": photo.byteLength });
    response.end(photo);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nobody listens on (just freed by a server of ours). */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A small sample file in the real one's shape: `a` used by two recipes (and their posts), `b`,
 * a post with its own photo `c`, a photo the site does not have, and one of our own pictures.
 */
function sampleData(origin: string): SeedDataInput {
  const at = (name: string) => `${origin}/images/media/meals/${name}`;
  const recipe = (n: number, photo: string) => ({
    recipe_id: `recipeBot-R${n}`,
    post_id: `recipeBot-P${n}`,
    user_created: "recipeBot",
    name: `Sample dish ${n}`,
    description: "Dessert | Invented",
    total_time: "",
    serves: "",
    photo,
    tags: ["Dessert"],
    ingredients_sec: [{ _id: `recipeBot-R${n}I1`, title: "Main Ingredients", ingredients: ["Flour (200 g)"] }],
    steps: ["Mix and bake."],
  });
  const post = (n: number, photo: string) => ({
    post_id: `recipeBot-P${n}`,
    recipe_id: `recipeBot-R${n}`,
    created_by: "recipeBot",
    title: `Sample dish ${n}`,
    caption: "Dessert | Invented",
    photo,
    likes: [],
    comments: [],
    created_at: "",
  });
  return {
    users: [{ _id: "recipeBot", username: "recipe_bot", name: "Recipe Bot", password: "ReciPals", profile: "/images/recipeBot.png" }],
    recipes: [
      recipe(1, at("a.jpg")),
      recipe(2, at("b.jpg")),
      recipe(3, at("a.jpg")),
      recipe(4, at("gone.jpg")),
      recipe(5, "/images/noodleDish.png"),
    ],
    posts: [post(1, at("a.jpg")), post(2, at("b.jpg")), post(3, at("a.jpg")), post(4, at("gone.jpg")), post(5, at("c.jpg"))],
  };
}

function writeSampleFile(dir: string, data: SeedDataInput): string {
  const file = path.join(dir, `seed-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(data));
  return file;
}

async function photosIn(db: DB): Promise<{ recipes: Record<string, string>; posts: Record<string, string | null> }> {
  const recipes = await db.selectFrom("recipes").select(["id", "photo"]).orderBy("id").execute();
  const posts = await db.selectFrom("posts").select(["id", "photo"]).orderBy("id").execute();
  return {
    recipes: Object.fromEntries(recipes.map((row) => [row.id, row.photo])),
    posts: Object.fromEntries(posts.map((row) => [row.id, row.photo])),
  };
}

/** What the seed said about the sample photos, without its progress bar. */
function photoLines(lines: string[]): string[] {
  return lines.filter((line) => /sample photos/i.test(line) && !line.startsWith("["));
}

const STORED_URL = /^\/uploads\/[0-9a-f]{64}\.webp$/;

let site: PhotoSite;
let scratch: string;
const databases: DB[] = [];

async function seed(options: SeedOptions): Promise<{ db: DB; lines: string[] }> {
  const db = await freshDb();
  databases.push(db);
  const output = captureLog();
  await seedDatabase(db, { adminPassword: "admin-password-for-tests", ...options, log: output.log });
  return { db, lines: output.lines };
}

beforeAll(async () => {
  site = await startPhotoSite(
    new Map([
      ["/images/media/meals/a.jpg", await samplePhoto(20)],
      ["/images/media/meals/b.jpg", await samplePhoto(140)],
      ["/images/media/meals/c.jpg", await samplePhoto(260)],
    ]),
  );
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-seed-photos-data-"));
});
afterEach(() => {
  site.calls.length = 0;
});
afterAll(async () => {
  await Promise.all(databases.map((db) => db.destroy()));
  await site.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe("RECIPALS_SEED_PHOTOS=store (the sample file)", () => {
  let db: DB;
  let lines: string[];
  let asked: string[];

  beforeAll(async () => {
    ({ db, lines } = await seed({ seedFile: writeSampleFile(scratch, sampleData(site.origin)), photos: "store" }));
    asked = [...site.calls];
  });

  test("points the recipes and posts at our store, the same photo at the same file", async () => {
    const { recipes, posts } = await photosIn(db);
    for (const id of ["recipeBot-R1", "recipeBot-R2", "recipeBot-R3"]) expect(recipes[id]).toMatch(STORED_URL);
    for (const id of ["recipeBot-P1", "recipeBot-P2", "recipeBot-P3", "recipeBot-P5"]) expect(posts[id]).toMatch(STORED_URL);
    expect(recipes["recipeBot-R3"]).toBe(recipes["recipeBot-R1"]);
    expect(posts["recipeBot-P1"]).toBe(recipes["recipeBot-R1"]);
    expect(new Set([recipes["recipeBot-R1"], recipes["recipeBot-R2"], posts["recipeBot-P5"]]).size).toBe(3);
  });

  test("keeps the address of a photo the site does not have, and our own pictures as they are", async () => {
    const { recipes, posts } = await photosIn(db);
    expect(recipes["recipeBot-R4"]).toBe(`${site.origin}/images/media/meals/gone.jpg`);
    expect(posts["recipeBot-P4"]).toBe(`${site.origin}/images/media/meals/gone.jpg`);
    expect(recipes["recipeBot-R5"]).toBe("/images/noodleDish.png");
  });

  test("writes each stored photo with all its copies into UPLOADS_DIR", async () => {
    const { recipes, posts } = await photosIn(db);
    for (const url of [recipes["recipeBot-R1"], recipes["recipeBot-R2"], posts["recipeBot-P5"]]) {
      const name = storedNameOf(url)!;
      const main = fs.readFileSync(path.join(uploads.dir, name));
      expect(await sharp(main).metadata()).toMatchObject({ format: "webp", width: 800, height: 533 });
      const hash = name.slice(0, -".webp".length);
      for (const copy of PHOTO_COPIES) expect(fs.existsSync(path.join(uploads.dir, copyNameOf(hash, copy))), copyNameOf(hash, copy)).toBe(true);
    }
  });

  test("downloads each distinct photo once", () => {
    expect([...asked].sort()).toEqual(["a.jpg", "b.jpg", "c.jpg", "gone.jpg"].map((name) => `/images/media/meals/${name}`));
  });

  test("says in one line how many were stored and why one was not", () => {
    const said = photoLines(lines);
    expect(said).toEqual([
      `Stored 3 of 4 sample photos in our own store (${uploads.dir}); 1 kept its link (${site.origin}/images/media/meals/gone.jpg: HTTP 404).`,
    ]);
  });

  test("does nothing again once the seed run is recorded", async () => {
    const again = captureLog();
    const report = await seedDatabase(db, { seedFile: writeSampleFile(scratch, sampleData(site.origin)), photos: "store", log: again.log });
    expect(report.source).toBe("already-seeded");
    expect(site.calls).toEqual([]);
  });
});

describe("RECIPALS_SEED_PHOTOS=store (TheMealDB)", () => {
  test("stores the bot recipes' photos too", async () => {
    const api = await startMealDbStub();
    try {
      // The fixtures' photos are on example.test: sent to the local site instead, never to the internet.
      const local: typeof fetch = (input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        const photo = /^https:\/\/example\.test\/images\/(.+)$/.exec(url);
        return fetch(photo ? `${site.origin}/images/media/meals/${photo[1] === "apricot-crumble.jpg" ? "a.jpg" : "gone.jpg"}` : url, init);
      };
      const { db, lines } = await seed({ mealDbBaseUrl: api.baseUrl, photos: "store", fetch: local });
      const { recipes } = await photosIn(db);
      expect(recipes["recipeBot-R1"]).toMatch(STORED_URL);
      expect(recipes["core-R1"]).toBe("/images/noodleDish.png");
      expect(lines.some((line) => /^Stored 1 of 3 sample photos/.test(line))).toBe(true);
    } finally {
      await api.close();
    }
  });
});

describe("RECIPALS_SEED_PHOTOS=auto", () => {
  test("stores the photos when the site answers", async () => {
    const { db } = await seed({ seedFile: writeSampleFile(scratch, sampleData(site.origin)), photos: "auto" });
    const { recipes } = await photosIn(db);
    expect(recipes["recipeBot-R1"]).toMatch(STORED_URL);
    expect(recipes["recipeBot-R4"]).toBe(`${site.origin}/images/media/meals/gone.jpg`);
  });

  test("keeps the links, says so once and moves on quickly when the site cannot be reached", async () => {
    const origin = `http://127.0.0.1:${await closedPort()}`;
    // The network's time only: hashing the seed passwords takes its own second or so.
    const asked: { url: string; ms: number }[] = [];
    const timed: typeof fetch = async (input, init) => {
      const started = performance.now();
      try {
        return await fetch(input, init);
      } finally {
        asked.push({ url: String(input), ms: performance.now() - started });
      }
    };
    const { db, lines } = await seed({ seedFile: writeSampleFile(scratch, sampleData(origin)), photos: "auto", fetch: timed });
    expect(asked.map((call) => call.url)).toEqual([`${origin}/images/media/meals/a.jpg`]);
    expect(asked[0]!.ms).toBeLessThan(SEED_PHOTO_LIMITS.probeMs / 3);
    const { recipes, posts } = await photosIn(db);
    expect(recipes["recipeBot-R1"]).toBe(`${origin}/images/media/meals/a.jpg`);
    expect(posts["recipeBot-P5"]).toBe(`${origin}/images/media/meals/c.jpg`);
    const said = photoLines(lines);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^Sample photos keep their links to 127\.0\.0\.1:\d+: the site could not be reached \(ECONNREFUSED\)/);
  });
});

describe("RECIPALS_SEED_PHOTOS=link, and no option at all", () => {
  test.each([["link" as const], [undefined]])("photos: %s never asks the site", async (photos) => {
    const { db, lines } = await seed({ seedFile: writeSampleFile(scratch, sampleData(site.origin)), photos });
    expect(site.calls).toEqual([]);
    const { recipes } = await photosIn(db);
    expect(recipes["recipeBot-R1"]).toBe(`${site.origin}/images/media/meals/a.jpg`);
    expect(photoLines(lines)).toEqual([]);
  });
});

describe("a site that stops answering", () => {
  test("after a few photos in a row without an answer the rest keep their links untried", async () => {
    let tries = 0;
    const silent: typeof fetch = async () => {
      tries += 1;
      throw new TypeError("fetch failed", { cause: { code: "ETIMEDOUT" } });
    };
    const many: SeedDataInput = sampleData("https://photos.invalid");
    const extra = Array.from({ length: 30 }, (_, i) => i + 10);
    many.recipes = [...many.recipes!, ...extra.map((n) => ({ ...many.recipes![0]!, recipe_id: `recipeBot-R${n}`, post_id: `recipeBot-P${n}`, photo: `https://photos.invalid/${n}.jpg` }))];
    const { db, lines } = await seed({ seedFile: writeSampleFile(scratch, many), photos: "store", fetch: silent });
    // The ones already under way when the limit is reached still finish.
    expect(tries).toBeLessThan(SEED_PHOTO_LIMITS.unreachableInARow + SEED_PHOTO_LIMITS.atOnce);
    expect((await photosIn(db)).recipes["recipeBot-R10"]).toBe("https://photos.invalid/10.jpg");
    // a, b, gone and c from the sample, and the 30 extra.
    expect(photoLines(lines)).toEqual([
      `Stored 0 of 34 sample photos in our own store (${uploads.dir}); 34 kept their links (the first, https://photos.invalid/images/media/meals/a.jpg: ETIMEDOUT).`,
    ]);
  });
});

describe("seedOptionsFromEnv", () => {
  test("reads RECIPALS_SEED_PHOTOS: store, link, else auto", () => {
    const photos = (value?: string) => seedOptionsFromEnv({ NODE_ENV: "test", RECIPALS_SEED_PHOTOS: value }).photos;
    expect([photos("store"), photos("link"), photos("auto"), photos("yes please"), photos(undefined)]).toEqual(["store", "link", "auto", "auto", "auto"]);
    expect(seedPhotoModeOf(" Store ")).toBe("store");
  });
});
