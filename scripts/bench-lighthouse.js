// Lighthouse mobile on a fresh community whose 12 newest recipes carry camera-sized photos:
// Home, a recipe page and a profile, with Debian's Chromium. Prints performance, LCP,
// FCP, CLS and bytes per page. Run after `npm run build`:
//   node scripts/bench-lighthouse.js [--runs 3]
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
  PORT: String(PORT),
  HOST: "127.0.0.1",
};
delete env.DATABASE_URL;

/** @param {string[]} args */
function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: root, env, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${args.join(" ")} failed`);
}

/** A photo-like picture: a sky-to-table gradient, a plate and a few soft shapes, light grain. */
/** @param {number} seed */
async function cameraPhoto(seed) {
  const width = 3000;
  const height = 2000;
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed * 7919 + 1;
  const cx = 1500 + (seed % 5) * 80;
  const cy = 1050;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      const grain = ((state >> 8) % 15) - 7;
      const d = Math.hypot((x - cx) / 1.3, y - cy);
      const plate = d < 700 ? 1 : d < 740 ? (740 - d) / 40 : 0;
      const food = d < 480 ? 0.5 + 0.5 * Math.sin(x / 37 + seed) * Math.cos(y / 53) : 0;
      const i = (y * width + x) * 3;
      const base = [120 + y / 30, 90 + y / 40, 60 + y / 60];
      const mix = (/** @type {0 | 1 | 2} */ channel, /** @type {number} */ plateValue, /** @type {number} */ foodValue) => /** @type {number} */ (base[channel]) * (1 - plate) + plate * (plateValue * (1 - food) + foodValue * food);
      pixels[i] = Math.max(0, Math.min(255, mix(0, 235, 200 + 40 * food) + grain));
      pixels[i + 1] = Math.max(0, Math.min(255, mix(1, 232, 120 + 60 * food) + grain));
      pixels[i + 2] = Math.max(0, Math.min(255, mix(2, 225, 60 + 20 * food) + grain));
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

async function main() {
  run(["scripts/start.js", "--seed"]);
  const server = spawn(process.execPath, ["scripts/server.js"], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
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
    console.log(`12 recipes with camera photos (${(sizes / 12 / 1024 / 1024).toFixed(2)} MB each on average) by ${username}`);
    const pages = [
      { name: "Home", url: `${ORIGIN}/ReciPals/Home` },
      { name: "Recipe", url: `${ORIGIN}/ReciPals/Recipes/${lastRecipe}` },
      { name: "Profile", url: `${ORIGIN}/ReciPals/Account/Profile/${userId}`, cookie },
    ];
    const chrome = await chromeLauncher.launch({ chromePath: "/usr/bin/chromium", chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
    try {
      const rows = [];
      for (const page of pages) {
        /** @type {Record<"performance" | "lcp" | "fcp" | "cls" | "kb", number>[]} */
        const results = [];
        for (let r = 0; r < RUNS; r++) {
          const answer = await lighthouse(page.url, { port: chrome.port, output: "json", logLevel: "error", onlyCategories: ["performance"], extraHeaders: page.cookie ? { Cookie: page.cookie } : undefined });
          if (!answer) throw new Error(`Lighthouse gave no result for ${page.url}`);
          const audits = answer.lhr.audits;
          const value = (/** @type {string} */ id) => audits[id]?.numericValue ?? NaN;
          results.push({
            performance: Math.round((answer.lhr.categories.performance?.score ?? 0) * 100),
            lcp: value("largest-contentful-paint") / 1000,
            fcp: value("first-contentful-paint") / 1000,
            cls: value("cumulative-layout-shift"),
            kb: value("total-byte-weight") / 1000,
          });
        }
        const median = (/** @type {"performance" | "lcp" | "fcp" | "cls" | "kb"} */ key) => results.map((x) => x[key]).sort((a, b) => a - b)[Math.floor(results.length / 2)] ?? NaN;
        rows.push({ page: page.name, performance: median("performance"), lcp_s: median("lcp").toFixed(2), fcp_s: median("fcp").toFixed(2), cls: median("cls").toFixed(3), kb: Math.round(median("kb")) });
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
