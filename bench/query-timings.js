// `node bench/query-timings.js --db FILE [--runs R]`: times the hot query functions (what each
// page's loader reads) in-process against a copy of a scale-seeded database, no HTTP. Use it to
// find which query makes a page slow; `npm run bench` measures the pages themselves.
//
// Build a database once with:
//   DATABASE_PATH=/tmp/x/recipals.db RECIPALS_SEED_FILE=../shared/data/recipals-seed.json \
//   node scripts/prepare.js --scale 10000
// The copy is migrated to the current schema on load (db/connection.server.ts migrates on import).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { loadModule } from "../scripts/load-module.js";

/**
 * What the bundle loaded below exports (loadModule imports it without types).
 * @typedef {object} QueryModules
 * @property {typeof import("~/server/db/connection.server").db} db
 * @property {typeof import("~/server/queries/feed.server")} feed
 * @property {typeof import("~/server/queries/search.server")} search
 * @property {typeof import("~/server/queries/profiles.server")} profiles
 * @property {typeof import("~/server/queries/posts.server")} posts
 * @property {typeof import("~/server/queries/recipes.server")} recipes
 * @property {typeof import("~/server/queries/saved.server")} saved
 * @property {typeof import("~/server/queries/admin.server")} admin
 * @property {typeof import("~/server/queries/comments.server")} comments
 * @property {typeof import("~/server/queries/likes.server")} likes
 * @property {typeof import("~/server/queries/users.server")} users
 * @property {typeof import("~/server/queries/notifications.server")} notifications
 * @property {typeof import("kysely").sql} sql
 */
/** @typedef {[name: string, run: () => Promise<unknown>]} Case */

const args = process.argv.slice(2);
/**
 * @template {string | number} T
 * @param {string} name
 * @param {T} fallback
 * @returns {string | T}
 */
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  // Cast: the value was just checked (TypeScript does not narrow `args[index + 1]`).
  return index >= 0 && args[index + 1] ? /** @type {string} */ (args[index + 1]) : fallback;
};
const source = option("db", "");
if (!source) {
  console.error("Usage: node bench/query-timings.js --db FILE [--runs R] [--only a,b]");
  process.exit(2);
}
const RUNS = Number(option("runs", 100));
const ONLY = option("only", "") ? new Set(option("only", "").split(",")) : null;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-query-timings-"));
process.env.DATABASE_PATH = path.join(tmp, "recipals.db");
fs.copyFileSync(source, process.env.DATABASE_PATH);
process.env.NODE_ENV = "production";
process.env.SESSION_SECRET ??= "bench-session-secret-0123456789abcdef";

try {
  // Cast: the bundle's exports are the ones named in its text below.
  const q = /** @type {QueryModules} */ (await loadModule("query-timings", `
        export { db } from "~/server/db/connection.server";
        export * as feed from "~/server/queries/feed.server";
        export * as search from "~/server/queries/search.server";
        export * as profiles from "~/server/queries/profiles.server";
        export * as posts from "~/server/queries/posts.server";
        export * as recipes from "~/server/queries/recipes.server";
        export * as saved from "~/server/queries/saved.server";
        export * as admin from "~/server/queries/admin.server";
        export * as comments from "~/server/queries/comments.server";
        export * as likes from "~/server/queries/likes.server";
        export * as users from "~/server/queries/users.server";
        export * as notifications from "~/server/queries/notifications.server";
        export { sql } from "kysely";
      `));
  /**
   * The first row, or an empty object when there is none.
   * @template R
   * @param {{ executeTakeFirst(): Promise<R | undefined> }} query
   * @returns {Promise<Partial<R>>}
   */
  const one = async (query) => (await query.executeTakeFirst()) ?? {};
  const heavy = "scale-u0";
  // Casts (popular, post, busiest, busiestRecipe, unreadTop): a scale-seeded database has these
  // rows; were one missing, `one` gives {} and the query functions get undefined.
  const popular = /** @type {string} */ ((await one(q.db.selectFrom("follows").select("followee_id").groupBy("followee_id").orderBy((eb) => eb.fn.countAll(), "desc").limit(1))).followee_id);
  const post = /** @type {{ id: string, recipe_id: string, created_by: string }} */ (
    await one(q.db.selectFrom("posts").select(["id", "recipe_id", "created_by"]).where("id", "=", "scale-p1000"))
  );
  const busiest = /** @type {string} */ ((await one(q.db.selectFrom("comments").select("post_id").groupBy("post_id").orderBy((eb) => eb.fn.countAll(), "desc").limit(1))).post_id);
  const busiestRecipe = /** @type {string} */ ((await one(q.db.selectFrom("posts").select("recipe_id").where("id", "=", busiest ?? ""))).recipe_id);
  const saver = (await one(q.db.selectFrom("saved_recipes").select("user_id").groupBy("user_id").orderBy((eb) => eb.fn.countAll(), "desc").limit(1))).user_id ?? heavy;

  // Notifications at scale: the scale seed writes none, so every like becomes one (its post's
  // creator is told), half of them read — about as many as the community's likes.
  const noted = Number((await one(q.db.selectFrom("notifications").select((eb) => eb.fn.countAll().as("n")))).n ?? 0);
  if (noted === 0) {
    await q.sql`insert into notifications (id, user_id, actor_id, kind, post_id, recipe_id, created_at, read_at, seq)
      select 'bench-' || l.post_id || '-' || l.user_id, p.created_by, l.user_id, 'like', l.post_id, p.recipe_id, l.created_at,
             case when abs(random()) % 2 = 0 then l.created_at end, row_number() over ()
      from likes l join posts p on p.id = l.post_id
      where p.created_by is not null and p.created_by <> l.user_id`.execute(q.db);
  }
  const unreadTop = /** @type {{ user_id: string, n: string | number | bigint }} */ (
    await one(
      q.db.selectFrom("notifications").select(["user_id", (eb) => eb.fn.countAll().as("n")]).where("read_at", "is", null).groupBy("user_id").orderBy("n", "desc").limit(1),
    )
  );
  const notificationsTotal = Number((await one(q.db.selectFrom("notifications").select((eb) => eb.fn.countAll().as("n")))).n);
  console.log(`notifications: ${notificationsTotal} rows; most unread: ${unreadTop.n} (${unreadTop.user_id})`);

  let seed = 1;
  const cases = /** @type {Case[]} */ ([
    ["unread count (most unread)", () => q.notifications.countUnread(unreadTop.user_id)],
    ["unread count (typical)", () => q.notifications.countUnread(post.created_by)],
    ["notifications page 1", () => q.notifications.listNotifications(unreadTop.user_id, { offset: 0, limit: 31 })],
    ["feed anon p1", () => q.feed.getFeedPage({ viewerId: null, seed: seed++, page: 1 })],
    ["feed anon p40", () => q.feed.getFeedPage({ viewerId: null, seed: seed++, page: 40 })],
    ["feed signed-in p1", () => q.feed.getFeedPage({ viewerId: heavy, seed: seed++, page: 1 })],
    ["feed signed-in p30", () => q.feed.getFeedPage({ viewerId: heavy, seed: seed++, page: 30 })],
    ["post card", () => q.feed.getPostCard(post.id, heavy)],
    ["user posts (viewer)", () => q.posts.listUserPosts(post.created_by)],
    ["profile (popular)", () => q.profiles.getProfilePage({ userId: popular, viewerId: heavy, tab: "recipes" })],
    ["profile saved tab", () => q.profiles.getProfilePage({ userId: saver, viewerId: heavy, tab: "saved" })],
    ["saved page", () => q.saved.listSavedRecipes(saver)],
    ["recipe detail", () => q.recipes.getRecipeDetail(post.recipe_id)],
    ["comments (typical)", () => q.comments.listComments(post.id)],
    ["comments (busiest)", () => q.comments.listComments(busiest)],
    ["recipe detail (busiest)", () => q.recipes.getRecipeDetail(busiestRecipe)],
    ["count likes", () => q.likes.countLikes(busiest)],
    ["search chicken", () => q.search.searchRecipes({ q: "chicken", page: 1, seed: seed++ })],
    ["search people", () => q.search.searchUsers({ q: "chicken" })],
    ["search ids x120 (API)", () => q.search.searchRecipeIds({ q: "chicken", limit: 120 })],
    ["search people short", () => q.search.searchUsers({ q: "al" })],
    ["search people 1 letter", () => q.search.searchUsers({ q: "m" })],
    ["search empty", () => q.search.searchRecipes({ q: "", page: 1, seed: seed++ })],
    ["admin users p1", () => q.admin.listUsersForAdmin({ q: "", page: 1 })],
    ["admin users q", () => q.admin.listUsersForAdmin({ q: "garcia", page: 1 })],
    ["admin recipes p1", () => q.admin.listRecipesForAdmin({ q: "", page: 1 })],
    ["admin recipes q", () => q.admin.listRecipesForAdmin({ q: "curry", page: 1 })],
    ["session user", () => q.users.getSessionUserById(heavy)],
  ]).filter(([name]) => !ONLY || ONLY.has(name));

  if (args.includes("--check-search")) {
    // searchRecipeIds (one pass) must list exactly what searchRecipes' pages list, in order.
    for (const text of ["chicken", "spicy chicken curry", "chick", "yuzu", "keto", "c"]) {
      /** @type {string[]} */
      const paged = [];
      for (let page = 1; paged.length < 120; page++) {
        const result = await q.search.searchRecipes({ q: text, page });
        paged.push(...result.items.map((card) => card.recipe_id));
        if (!result.hasMore) break;
      }
      const once = await q.search.searchRecipeIds({ q: text, limit: 120 });
      const same = JSON.stringify(paged.slice(0, 120)) === JSON.stringify(once);
      console.log(`search check ${same ? "ok" : "MISMATCH"}: ${JSON.stringify(text)} ${once.length} ids`);
      if (!same) process.exitCode = 1;
    }
  }

  if (args.includes("--check-feed")) {
    // Walks whole feeds page by page: every post exactly once, followed people's posts first.
    const total = Number((await one(q.db.selectFrom("posts").select((eb) => eb.fn.countAll().as("n")))).n);
    for (const [viewerId, seedValue] of /** @type {[viewerId: string | null, seed: number][]} */ ([[null, 4242], [heavy, 7], [heavy, 123456789]])) {
      const followed = new Set(
        (await q.feed.followedPostsQuery(q.db, heavy).select("p.id").execute()).map((row) => row.id),
      );
      /** @type {Set<string>} */
      const seen = new Set();
      let pages = 0;
      const t = performance.now();
      for (let page = 1; ; page++) {
        const { posts: cards, hasMore } = await q.feed.getFeedPage({ viewerId, seed: seedValue, page });
        pages++;
        for (const card of cards) {
          if (seen.has(card.post_id)) throw new Error(`Post ${card.post_id} twice (page ${page})`);
          if (viewerId && seen.size < followed.size && !followed.has(card.post_id)) throw new Error(`Unfollowed ${card.post_id} before the followed ones end`);
          seen.add(card.post_id);
        }
        if (!hasMore) break;
      }
      if (seen.size !== total) throw new Error(`Saw ${seen.size} of ${total} posts`);
      console.log(`feed check ok: viewer ${viewerId ?? "anonymous"}, seed ${seedValue}: ${pages} pages, ${seen.size} posts, ${((performance.now() - t) / pages).toFixed(2)} ms a page`);
    }
  }

  console.log(`${RUNS} runs each, ms (db: ${source})\n`);
  console.log(`${"query".padEnd(26)}${"p50".padStart(9)}${"p95".padStart(9)}${"max".padStart(9)}`);
  for (const [name, run] of cases) {
    for (let i = 0; i < 5; i++) await run();
    /** @type {number[]} */
    const samples = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await run();
      samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    // Casts: the index is clamped to the samples taken (RUNS of them).
    /** @param {number} p */
    const pct = (p) => /** @type {number} */ (samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]);
    console.log(`${name.padEnd(26)}${pct(50).toFixed(2).padStart(9)}${pct(95).toFixed(2).padStart(9)}${/** @type {number} */ (samples.at(-1)).toFixed(2).padStart(9)}`);
  }
  await q.db.destroy();
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
