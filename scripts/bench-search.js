// `npm run bench:search [-- --users N --runs R --keep]`: times recipe and people search on a
// scale-seeded temporary database (default 10,000 users / 50,000 recipes) and prints p50/p95
// per query. Target (docs/rules.md#performance-budgets, issue 6): under 10 ms per query.
//
// The server code is compiled with esbuild (already installed with @remix-run/dev) rather than
// through the Remix build, so the benchmark runs even while other routes are half-written.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { loadModule } from "./load-module.js";

/**
 * What the bundle loaded below exports (loadModule imports it without types).
 * @typedef {object} SearchBenchModule
 * @property {typeof import("~/server/db/connection.server").db} db
 * @property {typeof import("~/server/queries/search.server").searchRecipes} searchRecipes
 * @property {typeof import("~/server/queries/search.server").searchUsers} searchUsers
 * @property {typeof import("~/server/queries/search.server").randomRecipesPage} randomRecipesPage
 * @property {typeof import("../seed/scale").scaleSeed} scaleSeed
 */
/** @typedef {{ kind: string, label: string, results: number, p50: number, p95: number, max: number }} Timing */

const args = process.argv.slice(2);
/**
 * @param {string} name
 * @param {number} fallback
 * @returns {number}
 */
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 && args[index + 1] ? Number(args[index + 1]) : fallback;
};
const USERS = option("users", 10_000);
const RUNS = option("runs", 200);
const WARMUP = 20;
const TARGET_MS = 10;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-bench-search-"));
process.env.DATABASE_PATH = path.join(tmp, "recipals.db");
process.env.NODE_ENV = "production";
process.env.SESSION_SECRET ??= "bench-session-secret-0123456789abcdef";

try {
  // Opens and migrates the temporary database.
  // Cast: the bundle's exports are the ones named in its text below.
  const server = /** @type {SearchBenchModule} */ (await loadModule("bench-search", `
        export { db } from "~/server/db/connection.server";
        export { searchRecipes, searchUsers, randomRecipesPage } from "~/server/queries/search.server";
        export { scaleSeed } from "./seed/scale";
      `));
  console.log(`Scale-seeding ${USERS.toLocaleString("en")} users into ${process.env.DATABASE_PATH} …`);
  const seeded = await server.scaleSeed(process.env.DATABASE_PATH, { users: USERS });
  console.log(
    `Seeded ${seeded.users} users, ${seeded.recipes} recipes, ${seeded.follows} follows, ${seeded.likes} likes, ` +
      `${seeded.comments} comments in ${(seeded.ms / 1000).toFixed(1)} s.`,
  );

  // A real username from the data, so the people queries hit something.
  const sample = await server.db
    .selectFrom("users")
    .select(["username", "name"])
    .where("id", "=", "scale-u42")
    .executeTakeFirst();
  const username = sample?.username ?? "maya";
  // Cast: split() always returns at least one piece.
  const lastName = /** @type {string} */ ((sample?.name ?? "x Garcia").split(" ").at(-1));

  /** @type {[label: string, q: string, page?: number][]} */
  const recipeQueries = [
    ["common word", "chicken"],
    ["common word, page 3", "chicken", 3],
    ["two words", "spicy chicken curry"],
    ["rare word", "yuzu"],
    ["ingredient", "coconut milk"],
    ["tag", "keto"],
    ["typing a prefix", "chick"],
    ["one letter", "c"],
    ["no match", "xylophone"],
    ["special characters", '"chicken" -(NEAR* curry:'],
    ["1000 characters", "chicken curry ".repeat(72).slice(0, 1000)],
    ["non-Latin + emoji", "寿司 🍣 ramen"],
    ["empty (random page 1)", ""],
    ["empty (random page 40)", "", 40],
  ];
  /** @type {[label: string, q: string][]} */
  const peopleQueries = [
    ["username prefix", username.slice(0, 5)],
    ["username exact", username],
    ["name substring", lastName.slice(1, 5)],
    ["full name", sample?.name ?? "Maya Garcia"],
    ["two letters", username.slice(0, 2)],
    ["no match", "zzqqxx"],
  ];

  /** @type {Timing[]} */
  const results = [];
  /**
   * @param {string} kind
   * @param {string} label
   * @param {(i: number) => Promise<number>} run  one query; resolves to its hit count
   */
  const time = async (kind, label, run) => {
    for (let i = 0; i < WARMUP; i++) await run(i);
    /** @type {number[]} */
    const samples = [];
    let count = 0;
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      count = await run(i);
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    // Casts: the index is clamped to the samples taken (RUNS of them).
    /** @param {number} p */
    const pct = (p) => /** @type {number} */ (samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]);
    results.push({ kind, label, results: count, p50: pct(50), p95: pct(95), max: /** @type {number} */ (samples.at(-1)) });
  };
  for (const [label, q, page = 1] of recipeQueries) {
    await time("recipes", `${label}: ${JSON.stringify(q.length > 30 ? `${q.slice(0, 27)}…` : q)}`, async (i) => {
      const result = await server.searchRecipes({ q, page, seed: 1000 + i });
      return result.items.length;
    });
  }
  for (const [label, q] of peopleQueries) {
    await time("people", `${label}: ${JSON.stringify(q)}`, async () => (await server.searchUsers({ q })).length);
  }

  /**
   * @param {string | number} text
   * @param {number} width
   */
  const pad = (text, width) => String(text).padEnd(width);
  /** @param {number} value */
  const ms = (value) => value.toFixed(2).padStart(7);
  console.log(`\n${RUNS} runs each after ${WARMUP} warm-up runs; times in ms.\n`);
  console.log(
    `${pad("kind", 8)}${pad("query", 52)}${pad("hits", 6)}${"p50".padStart(7)}${"p95".padStart(9)}${"max".padStart(9)}`,
  );
  for (const r of results) {
    console.log(`${pad(r.kind, 8)}${pad(r.label, 52)}${pad(r.results, 6)}${ms(r.p50)}  ${ms(r.p95)}  ${ms(r.max)}`);
  }
  const slow = results.filter((r) => r.p95 >= TARGET_MS);
  console.log(
    slow.length === 0
      ? `\nEvery query's p95 is under the ${TARGET_MS} ms target.`
      : `\nOver the ${TARGET_MS} ms target at p95: ${slow.map((r) => r.label).join("; ")}`,
  );
  await server.db.destroy();
} finally {
  if (!args.includes("--keep")) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`Kept the database in ${tmp}`);
}
