import { CompiledQuery, type KyselyPlugin } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";

import { db, type DB } from "~/server/db/connection.server";
import { listRecipesForAdmin, listUsersForAdmin } from "~/server/queries/admin.server";
import { addComment, listComments } from "~/server/queries/comments.server";
import {
  feedShuffleStart,
  followedPostsQuery,
  followedSeqsQuery,
  getFeedPage,
  getPostCard,
  shuffledSeqsQuery,
} from "~/server/queries/feed.server";
import { follow as followUser, getFollowCounts, listFollowers, listFollowing } from "~/server/queries/follows.server";
import { countLikes, listLikers, setPostLiked } from "~/server/queries/likes.server";
import { getPostForRecipe, getPostWithLikes, listUserPosts, postExists } from "~/server/queries/posts.server";
import { getProfilePage } from "~/server/queries/profiles.server";
import { getRecipeDetail } from "~/server/queries/recipes.server";
import { isRecipeSaved, listSavedRecipes, setRecipeSaved } from "~/server/queries/saved.server";
import { searchRecipeIds, searchRecipes, searchUsers } from "~/server/queries/search.server";
import { countUnread, listNotifications, markRead } from "~/server/queries/notifications.server";
import { getSessionUserById, getUserProfile } from "~/server/queries/users.server";
import { isOutOfReach } from "~/server/queries/visibility.server";
import { isOnShoppingList } from "~/server/queries/shopping-list.server";
import { getShoppingList } from "~/server/services/shopping-service.server";

import { makeRecipeWithPost } from "../support/factories";
import { makeUser } from "../support/app";

// Query health (issue 9): EXPLAIN QUERY PLAN of every query the hot pages run, taken from the
// real query functions. A Kysely plugin on the test database compiles each query exactly as the
// code builds it (Kysely's own compiler, builders and raw `sql` alike), so nothing here restates
// SQL by hand. A plan fails when it
//   - reads a whole table (`SCAN t` without an index; FTS5 virtual-table scans are index
//     lookups and allowed), or
//   - sorts with a temporary B-tree whatever a whole-table scan produced (an ORDER BY over all
//     posts, as the old shuffled feed did).
// Without ANALYZE statistics (the app never runs it) SQLite plans from the schema alone, so a
// small database gives the same plans as a large one.

interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

interface Captured {
  label: string;
  sql: string;
  parameters: readonly unknown[];
}

/** Runs `work` against a handle that records every statement it sends (same connection as `db`). */
async function capture(label: string, work: (database: DB) => Promise<unknown>): Promise<Captured[]> {
  const queries: Captured[] = [];
  const recorder: KyselyPlugin = {
    transformQuery(args) {
      const compiled = db.getExecutor().compileQuery(args.node, args.queryId);
      queries.push({ label, sql: compiled.sql, parameters: compiled.parameters });
      return args.node;
    },
    async transformResult(args) {
      return args.result;
    },
  };
  await work(db.withPlugin(recorder));
  return queries;
}

async function planOf(query: { sql: string; parameters: readonly unknown[] }): Promise<PlanRow[]> {
  const { rows } = await db.executeQuery<PlanRow>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]));
  return rows;
}

const FULL_SCAN = /^SCAN (?!.*\bVIRTUAL TABLE\b)(?!.*\bUSING (COVERING )?INDEX\b)(?!.*\bUSING INTEGER PRIMARY KEY\b)(?!CONSTANT ROW)(?!\(subquery)/;
const TEMP_SORT = /^USE TEMP B-TREE FOR (.* )?ORDER BY/;
const TABLE_SCAN = /^SCAN (?!.*\bVIRTUAL TABLE\b)(?!CONSTANT ROW)(?!\(subquery)/;

/** What is wrong with a plan, as readable lines (empty: healthy). */
function planProblems(plan: PlanRow[]): string[] {
  const problems: string[] = [];
  for (const row of plan) {
    if (FULL_SCAN.test(row.detail)) problems.push(`full table scan: ${row.detail}`);
    if (TEMP_SORT.test(row.detail)) {
      // The sort's inputs are its siblings: a scan over a real table there sorts the whole table.
      const scans = plan.filter((other) => other.parent === row.parent && TABLE_SCAN.test(other.detail));
      if (scans.length > 0) problems.push(`sorts a whole table (${scans.map((s) => s.detail).join("; ")})`);
    }
  }
  return problems;
}

/**
 * Whole-table reads we accept, each with its reason. Keep this list short: a new entry needs a
 * reason that holds at 10,000 users / 100,000 posts.
 */
const ACCEPTED: { label: string; problem: RegExp; reason: string }[] = [
  {
    label: "unread count",
    problem: /SCAN unread\b/,
    reason:
      "`unread` is the count's own subquery (its alias, not a table): at most 100 rows read from " +
      "the partial index of unread notifications, so the count stays short however many there are",
  },
  {
    label: "unread count, someone hidden",
    problem: /SCAN unread\b/,
    reason: "the same subquery as the unread count, with the hidden people's notifications left out of its at most 100 rows",
  },
  {
    label: "search people, short words",
    problem: /SCAN u\b/,
    reason:
      "one- and two-letter words match the start of any word of a name (LIKE '% ab%'), which neither " +
      "a B-tree nor the trigram index (three characters or more) can answer; a scan of the users " +
      "alone, ~1–3 ms at 10,000 users, only while someone has typed one or two letters",
  },
  {
    label: "admin recipes, search",
    problem: /SCAN users\b/,
    reason:
      "admin search is a substring match on usernames (LIKE '%ab%'), run once per admin search into " +
      "a Bloom filter; admin pages only",
  },
];

const render = (plan: PlanRow[]) => plan.map((row) => `  ${row.parent}→${row.id} ${row.detail}`).join("\n");

type U = Awaited<ReturnType<typeof makeUser>>;
let alice: U, bob: U, viewer: U;
const posts: { recipeId: string; postId: string }[] = [];
const hot: Captured[] = [];

beforeAll(async () => {
  [alice, bob, viewer] = await Promise.all([makeUser({ name: "Alice Cook" }), makeUser({ name: "Bob Baker" }), makeUser()]);
  for (let i = 0; i < 24; i++) {
    const { recipeId, postId } = await makeRecipeWithPost({ userId: i % 2 ? alice.id : bob.id, name: `Chicken Dish ${i}` });
    posts.push({ recipeId, postId: postId! });
  }
  await followUser({ followerId: viewer.id, followeeId: alice.id });
  await setPostLiked({ postId: posts[0]!.postId, userId: viewer.id, liked: true });
  await addComment({ postId: posts[0]!.postId, userId: viewer.id, text: "Lovely" });
  await setRecipeSaved({ userId: viewer.id, recipeId: posts[1]!.recipeId, saved: true });

  const [first, second] = posts as [(typeof posts)[0], (typeof posts)[0]];
  const runs: [string, (database: DB) => Promise<unknown>][] = [
    // Every page: the root loader's session user.
    ["session user", (d) => getSessionUserById(viewer.id, d)],
    // Home
    ["feed, visitor, page 1", (d) => getFeedPage({ viewerId: null, seed: 42, page: 1 }, d)],
    ["feed, visitor, past the wrap", (d) => getFeedPage({ viewerId: null, seed: 42, page: 3 }, d)],
    ["feed, signed in, page 1", (d) => getFeedPage({ viewerId: viewer.id, seed: 42, page: 1 }, d)],
    ["feed, signed in, page 2", (d) => getFeedPage({ viewerId: viewer.id, seed: 42, page: 2 }, d)],
    ["feed, signed in, far page", (d) => getFeedPage({ viewerId: viewer.id, seed: 43, page: 50 }, d)],
    ["likes dialog", (d) => listLikers(first.postId, {}, d)],
    // A viewer who blocked or muted someone: the same plans with the filter added
    ["feed, signed in, someone hidden", (d) => getFeedPage({ viewerId: viewer.id, seed: 42, page: 2, without: [alice.id] }, d)],
    ["comments, someone hidden", (d) => listComments(first.postId, { without: [alice.id] }, d)],
    ["unread count, someone hidden", (d) => countUnread(viewer.id, { without: [alice.id] }, d)],
    ["search, someone hidden", (d) => searchRecipes({ q: "chicken", without: [alice.id] }, d)],
    // Recipe detail
    ["recipe detail", (d) => getRecipeDetail(first.recipeId, d)],
    ["recipe comments", (d) => listComments(first.postId, {}, d)],
    ["recipe likes", (d) => countLikes(first.postId, d)],
    ["recipe saved?", (d) => isRecipeSaved(viewer.id, first.recipeId, d)],
    ["recipe post", (d) => getPostForRecipe(first.recipeId, d)],
    ["post with its like count", (d) => getPostWithLikes(first.postId, d)],
    // Profile and post viewer
    ["profile, recipes tab", (d) => getProfilePage({ userId: alice.id, viewerId: viewer.id, tab: "recipes" }, d)],
    ["profile, recipes tab, page 2", (d) => getProfilePage({ userId: alice.id, viewerId: viewer.id, tab: "recipes", page: 2 }, d)],
    ["profile, saved tab", (d) => getProfilePage({ userId: viewer.id, viewerId: viewer.id, tab: "saved" }, d)],
    ["profile user", (d) => getUserProfile(alice.id, d)],
    ["follow counts", (d) => getFollowCounts(alice.id, d)],
    ["followers dialog", (d) => listFollowers({ userId: alice.id, viewerId: viewer.id }, d)],
    ["following dialog", (d) => listFollowing({ userId: viewer.id, viewerId: viewer.id }, d)],
    ["post viewer, author's posts", (d) => listUserPosts(alice.id, d)],
    ["post viewer, card", (d) => getPostCard(second.postId, viewer.id, d)],
    // Saved
    ["saved page", (d) => listSavedRecipes(viewer.id, {}, d)],
    // Notifications: the navigation's unread count on every page, the page, marking read
    ["unread count", (d) => countUnread(alice.id, {}, d)],
    ["notifications page", (d) => listNotifications(alice.id, { offset: 0, limit: 31 }, d)],
    ["mark notifications read", (d) => markRead(alice.id, "all", {}, d)],
    // Shopping list
    ["shopping list", (d) => getShoppingList(viewer.id, d)],
    ["on the shopping list?", (d) => isOnShoppingList(viewer.id, first.recipeId, d)],
    // Search
    ["search, common word", (d) => searchRecipes({ q: "chicken", page: 1, seed: 7 }, d)],
    ["search, exact name", (d) => searchRecipes({ q: "Chicken Dish 3", page: 1, seed: 7 }, d)],
    ["search, page 2", (d) => searchRecipes({ q: "dish ", page: 2, seed: 7 }, d)],
    ["search, empty (random order)", (d) => searchRecipes({ q: "", page: 2, seed: 7 }, d)],
    ["search, many at once (API)", (d) => searchRecipeIds({ q: "chicken", limit: 120 }, d)],
    ["search people", (d) => searchUsers({ q: "alice" }, d)],
    ["search people, short words", (d) => searchUsers({ q: "al co" }, d)],
    // Admin tables
    ["admin users", (d) => listUsersForAdmin({ q: "", page: 1 }, d)],
    ["admin users, search", (d) => listUsersForAdmin({ q: "ali", page: 1 }, d)],
    ["admin recipes", (d) => listRecipesForAdmin({ q: "", page: 1 }, d)],
    ["admin recipes, search", (d) => listRecipesForAdmin({ q: "dish", page: 1 }, d)],
    // Writes under load: likes, comments, saves
    ["like", (d) => setPostLiked({ postId: second.postId, userId: viewer.id, liked: true }, d)],
    ["unlike", (d) => setPostLiked({ postId: second.postId, userId: viewer.id, liked: false }, d)],
    ["comment", (d) => addComment({ postId: second.postId, userId: viewer.id, text: "Nice" }, d)],
    ["save", (d) => setRecipeSaved({ userId: viewer.id, recipeId: second.recipeId, saved: true }, d)],
    ["post exists", (d) => postExists(second.postId, d)],
    ["out of reach (a block either way, a suspension)", (d) => isOutOfReach(viewer.id, alice.id, d)],
  ];
  for (const [label, work] of runs) hot.push(...(await capture(label, work)));
});

describe("query plans of the hot queries", () => {
  it("captures the queries of every hot path", () => {
    const labels = new Set(hot.map((q) => q.label));
    // Every run above issued at least one statement (a function that stopped querying would hide here).
    expect(labels.size).toBe(49);
    expect(hot.length).toBeGreaterThan(50);
  });

  it("never scans a whole table nor sorts one", async () => {
    const failures: string[] = [];
    for (const query of hot) {
      const plan = await planOf(query);
      const accepted = ACCEPTED.filter((a) => a.label === query.label);
      const problems = planProblems(plan).filter((problem) => !accepted.some((a) => a.problem.test(problem)));
      if (problems.length > 0) failures.push(`${query.label}: ${problems.join("; ")}\n  ${query.sql}\n${render(plan)}`);
    }
    expect(failures, failures.join("\n\n")).toEqual([]);
  });

  it("walks the shuffle index for the feed, never sorting the posts", async () => {
    const { pivot, ascending } = feedShuffleStart(42);
    for (const viewerId of [null, viewer.id]) {
      for (const stretch of ["from", "before"] as const) {
        const plan = await planOf(shuffledSeqsQuery(db, { viewerId, pivot, ascending, stretch }, { offset: 24, limit: 13 }).compile());
        const text = render(plan);
        expect(text).toMatch(/SEARCH p USING COVERING INDEX posts_feed_shuffle/);
        expect(text).not.toMatch(/TEMP B-TREE/);
        expect(planProblems(plan)).toEqual([]);
      }
    }
    const followed = render(await planOf(followedSeqsQuery(db, viewer.id, { offset: 0, limit: 13 }).compile()));
    expect(followed).toMatch(/SEARCH f USING COVERING INDEX sqlite_autoindex_follows_1 \(follower_id=\?\)/);
    expect(followed).toMatch(/SEARCH p USING (COVERING )?INDEX posts_created_by \(created_by=\?\)/);
    const count = render(
      await planOf(followedPostsQuery(db, viewer.id).select((eb) => eb.fn.countAll().as("n")).compile()),
    );
    expect(count).toMatch(/USING COVERING INDEX posts_created_by/);
  });

  it("catches what it is meant to catch", async () => {
    // The checker itself: the old shuffled feed (a sort of every post per request) and a LIKE
    // over a whole table must fail; an FTS5 match and an indexed lookup must pass.
    const sortAll = await planOf({ sql: "select id from posts order by (seq * 7) % 11 limit 12", parameters: [] });
    expect(planProblems(sortAll).join()).toMatch(/full table scan: SCAN posts.*sorts a whole table/);
    const likeAll = await planOf({ sql: "select id from recipes where description like ?", parameters: ["%x%"] });
    expect(planProblems(likeAll)).toHaveLength(1);
    const fts = await planOf({
      sql: "select rowid from recipes_fts where recipes_fts match ? order by bm25(recipes_fts) limit 12",
      parameters: ['"chicken"'],
    });
    expect(planProblems(fts)).toEqual([]);
    const lookup = await planOf({ sql: "select id from posts where created_by = ? order by seq desc", parameters: ["x"] });
    expect(planProblems(lookup)).toEqual([]);
  });
});
