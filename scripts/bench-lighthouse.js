// Lighthouse mobile on a fresh community whose 12 newest recipes carry camera-sized photos:
// Home, a recipe page and a profile, with Debian's Chromium. Prints performance, LCP,
// FCP, CLS, bytes per page and the bytes fetched before the first photo arrived. Run after
// `npm run build`:
//   node scripts/bench-lighthouse.js [--runs 3] [--app DIR] [--save DIR] [--devtools]
// --devtools throttles for real (Chromium slowed 4x and its network held to slow 4G) instead of
// Lighthouse's default, which loads the page at full speed and estimates the phone's figures
// from that load: on an idle fast machine the estimate's blocking time is near 0 whatever the
// page runs. It also prints the load event's time (load_s), which waits for the page's scripts.
// --save writes each run's Lighthouse report (JSON) and the load's trace into DIR. --app runs another built checkout (an earlier commit, for a before/after table) with this
// script. Home is read by a second account that follows the photos' author, so the 12 recipes
// are its first cards (a visitor's Home shuffles the sample recipes, whose photos live on
// another site); the profile is read signed in as its owner.
// The photos are generated here: 3000×2000, smooth light and shapes with a little grain, JPEG at
// quality 88 (about the size a phone writes), never noise (which compresses like no photo does).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import sharp from "sharp";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const runsIndex = process.argv.indexOf("--runs");
const RUNS = runsIndex > 0 ? Number(process.argv[runsIndex + 1]) : 1;
const appIndex = process.argv.indexOf("--app");
const saveIndex = process.argv.indexOf("--save");
const saveDir = saveIndex > 0 ? path.resolve(String(process.argv[saveIndex + 1])) : null;
const appRoot = appIndex > 0 ? path.resolve(String(process.argv[appIndex + 1])) : root;
const throttlingMethod = process.argv.includes("--devtools") ? "devtools" : "simulate";
const PORT = 4310;
const ORIGIN = `http://127.0.0.1:${PORT}`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-lighthouse-"));
/** @type {NodeJS.ProcessEnv} */
const env = {
  ...process.env,
  NODE_ENV: "production",
  DATABASE_PATH: path.join(dir, "recipals.sqlite"),
  UPLOADS_DIR: path.join(dir, "uploads"),
  RECIPALS_SEED_FILE: process.env.RECIPALS_SEED_FILE ?? path.resolve(root, "../shared/data/recipals-seed.json"),
  SEED_ADMIN_PASSWORD: "bench-admin-password",
  SESSION_SECRET: "bench-session-secret-0123456789abcdef",
  ADMIN_SECRET: "bench-admin-secret",
  MEALDB_BASE_URL: "http://127.0.0.1:9/none",
  RECIPALS_SEED_PHOTOS: "link",
  PORT: String(PORT),
  HOST: "127.0.0.1",
};
delete env.DATABASE_URL;

/** @param {string[]} args */
function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: appRoot, env, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${args.join(" ")} failed`);
}

/**
 * Smooth value noise: random levels on a grid of `cell` px, blended between grid points.
 * @param {number} width @param {number} height @param {number} cell @param {() => number} rand
 */
function octave(width, height, cell, rand) {
  const gw = Math.ceil(width / cell) + 2;
  const gh = Math.ceil(height / cell) + 2;
  const grid = new Float32Array(gw * gh).map(() => rand() * 2 - 1);
  const at = (/** @type {number} */ i) => /** @type {number} */ (grid[i]);
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y / cell);
    const fy = y / cell - y0;
    const sy = fy * fy * (3 - 2 * fy);
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x / cell);
      const fx = x / cell - x0;
      const sx = fx * fx * (3 - 2 * fx);
      const top = at(y0 * gw + x0) + (at(y0 * gw + x0 + 1) - at(y0 * gw + x0)) * sx;
      const bottom = at((y0 + 1) * gw + x0) + (at((y0 + 1) * gw + x0 + 1) - at((y0 + 1) * gw + x0)) * sx;
      out[y * width + x] = top + (bottom - top) * sy;
    }
  }
  return out;
}

/**
 * A photo-like picture: a plate of textured food on a grained table, lit from above, with a
 * little sensor grain. The texture is smooth noise at 5, 17 and 90 px, so it survives the
 * downsizing to 800 px as a camera's detail does: the 800 px WebP of one weighs about 70 KB, as a
 * phone's food photo does, where per-pixel noise would average away to a few KB.
 * @param {number} seed
 */
async function cameraPhoto(seed) {
  const width = 3000;
  const height = 2000;
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed * 7919 + 1;
  const rand = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  const fine = octave(width, height, 5, rand);
  const mid = octave(width, height, 17, rand);
  const coarse = octave(width, height, 90, rand);
  const cx = 1500 + (seed % 5) * 80;
  const cy = 1050;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const j = y * width + x;
      const f = /** @type {number} */ (fine[j]);
      const m = /** @type {number} */ (mid[j]);
      const c = /** @type {number} */ (coarse[j]);
      const grain = (rand() - 0.5) * 10;
      const d = Math.hypot((x - cx) / 1.3, y - cy);
      const plate = d < 700 ? 1 : d < 740 ? (740 - d) / 40 : 0;
      const food = d < 480 ? Math.max(0, Math.min(1, 0.5 + 0.9 * c + 0.6 * m)) : 0;
      const texture = 30 * (0.6 * f + 0.4 * m);
      const table = 1 + 0.25 * c + 0.15 * Math.sin(y / 9 + 4 * m);
      const base = [(120 + y / 30) * table, (90 + y / 40) * table, (60 + y / 60) * table];
      const mix = (/** @type {0 | 1 | 2} */ channel, /** @type {number} */ plateValue, /** @type {number} */ foodValue) =>
        /** @type {number} */ (base[channel]) * (1 - plate) + plate * (plateValue * (1 - food) + foodValue * food) + food * texture * 2 + (1 - plate) * texture * 0.5 + grain;
      pixels[j * 3] = Math.max(0, Math.min(255, mix(0, 235, 200 + 40 * c)));
      pixels[j * 3 + 1] = Math.max(0, Math.min(255, mix(1, 232, 120 + 60 * m)));
      pixels[j * 3 + 2] = Math.max(0, Math.min(255, mix(2, 225, 60 + 30 * f)));
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 88 }).toBuffer();
}

/**
 * @param {string} method @param {string} pathname @param {unknown} [body] @param {string} [cookie]
 * @returns {Promise<{ json: any, cookie: string }>}
 */
async function api(method, pathname, body, cookie) {
  const response = await fetch(`${ORIGIN}${pathname}`, {
    method,
    headers: { "Content-Type": "application/json", Origin: ORIGIN, ...(cookie ? { Cookie: cookie } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${text.slice(0, 200)}`);
  return { json: text ? JSON.parse(text) : null, cookie: response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ") };
}

/**
 * The requests of a Lighthouse run, in the order they started.
 * @param {any} audit
 * @returns {{ url: string, transferSize: number, start: number, end: number }[]}
 */
function networkItems(audit) {
  /** @type {any[]} */
  const items = audit?.details?.items ?? [];
  return items
    .map((item) => ({ url: String(item.url), transferSize: Number(item.transferSize ?? 0), start: Number(item.networkRequestTime ?? item.startTime ?? 0), end: Number(item.networkEndTime ?? item.endTime ?? 0) }))
    .sort((a, b) => a.start - b.start);
}

/**
 * Bytes the page fetched before its first stored photo had arrived: every request that started
 * before that photo's last byte, the photo included. NaN when the page fetched no stored photo.
 * @param {any} audit
 */
function bytesBeforeFirstPhoto(audit) {
  const items = networkItems(audit);
  const photos = items.filter((item) => item.url.includes("/uploads/"));
  if (photos.length === 0) return NaN;
  const firstDone = Math.min(...photos.map((item) => item.end));
  return items.filter((item) => item.start <= firstDone).reduce((sum, item) => sum + item.transferSize, 0);
}

async function main() {
  run(["scripts/start.js", "--seed"]);
  const server = spawn(process.execPath, ["scripts/server.js"], { cwd: appRoot, env, stdio: ["ignore", "ignore", "inherit"] });
  try {
    for (let i = 0; i < 100; i++) {
      if (await fetch(`${ORIGIN}/ReciPals/Info`).then((r) => r.ok).catch(() => false)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const username = `camera${Date.now() % 100000}`;
    const signup = await api("POST", "/api/users/signup", { username, password: "bench-password-1", name: "Camera Cook" });
    const cookie = signup.cookie;
    const userId = signup.json._id;
    let sizes = 0;
    let lastRecipe = "";
    for (let n = 0; n < 12; n++) {
      const photo = await cameraPhoto(n);
      sizes += photo.byteLength;
      const made = await api(
        "POST",
        "/api/recipes",
        {
          name: `Camera Supper ${n + 1}`,
          description: "Dinner | Test",
          ingredients_sec: [{ title: "Main", ingredients: ["Rice (200 g)", "Beans (1 can)"] }],
          steps: ["Cook the rice.", "Warm the beans.", "Serve."],
          photo: `data:image/jpeg;base64,${photo.toString("base64")}`,
          serves: 2,
          tags: [],
        },
        cookie,
      );
      lastRecipe = made.json.recipe_id;
    }
    const reader = await api("POST", "/api/users/signup", { username: `reader${Date.now() % 100000}`, password: "bench-password-1", name: "Reader" });
    await api("POST", `/api/users/follow/${userId}`, undefined, reader.cookie);
    console.log(`12 recipes with camera photos (${(sizes / 12 / 1024 / 1024).toFixed(2)} MB each on average) by ${username}`);
    const pages = [
      { name: "Home", url: `${ORIGIN}/ReciPals/Home`, cookie: reader.cookie },
      { name: "Recipe", url: `${ORIGIN}/ReciPals/Recipes/${lastRecipe}` },
      { name: "Profile", url: `${ORIGIN}/ReciPals/Account/Profile/${userId}`, cookie },
    ];
    const chrome = await chromeLauncher.launch({ chromePath: "/usr/bin/chromium", chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
    try {
      const rows = [];
      for (const page of pages) {
        /** @type {Record<"performance" | "lcp" | "fcp" | "tbt" | "cls" | "kb" | "beforePhotoKb" | "load", number>[]} */
        const results = [];
        for (let r = 0; r < RUNS; r++) {
          const answer = await lighthouse(page.url, { port: chrome.port, output: "json", logLevel: "error", onlyCategories: ["performance"], throttlingMethod, extraHeaders: page.cookie ? { Cookie: page.cookie } : undefined });
          if (!answer) throw new Error(`Lighthouse gave no result for ${page.url}`);
          if (saveDir) {
            fs.mkdirSync(saveDir, { recursive: true });
            fs.writeFileSync(path.join(saveDir, `${page.name.toLowerCase()}-${r + 1}.json`), JSON.stringify(answer.lhr));
            // The page load's trace (open it in Chromium's Performance panel): which tasks block.
            const trace = /** @type {{ Trace?: unknown }} */ (answer.artifacts).Trace;
            if (trace) fs.writeFileSync(path.join(saveDir, `${page.name.toLowerCase()}-${r + 1}.trace.json`), JSON.stringify(trace));
          }
          const audits = answer.lhr.audits;
          const value = (/** @type {string} */ id) => audits[id]?.numericValue ?? NaN;
          results.push({
            performance: Math.round((answer.lhr.categories.performance?.score ?? 0) * 100),
            lcp: value("largest-contentful-paint") / 1000,
            fcp: value("first-contentful-paint") / 1000,
            tbt: value("total-blocking-time"),
            cls: value("cumulative-layout-shift"),
            kb: value("total-byte-weight") / 1000,
            beforePhotoKb: bytesBeforeFirstPhoto(audits["network-requests"]) / 1000,
            // The load event, which waits for the page's scripts (they start with the first photo).
            load: Number(/** @type {{ items?: { observedLoad?: number }[] } | undefined} */ (audits.metrics?.details)?.items?.[0]?.observedLoad ?? NaN) / 1000,
          });
          if (r === 0) {
            const photos = networkItems(audits["network-requests"]).filter((item) => item.url.includes("/uploads/"));
            console.log(`${page.name}: ${photos.length} stored photos fetched (${photos.map((item) => `${item.url.split("/").pop()} ${Math.round(item.transferSize / 1000)} KB`).join(", ")})`);
          }
        }
        const median = (/** @type {"performance" | "lcp" | "fcp" | "tbt" | "cls" | "kb" | "beforePhotoKb" | "load"} */ key) => results.map((x) => x[key]).sort((a, b) => a - b)[Math.floor(results.length / 2)] ?? NaN;
        rows.push({ page: page.name, performance: median("performance"), lcp_s: median("lcp").toFixed(2), fcp_s: median("fcp").toFixed(2), tbt_ms: Math.round(median("tbt")), cls: median("cls").toFixed(3), kb: Math.round(median("kb")), kb_before_photo: Math.round(median("beforePhotoKb")), ...(throttlingMethod === "devtools" ? { load_s: median("load").toFixed(2) } : {}) });
      }
      console.table(rows);
    } finally {
      await chrome.kill();
    }
  } finally {
    server.kill("SIGTERM");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
