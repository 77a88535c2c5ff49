import { sql } from "kysely";

import { db, engineOf, type DB } from "../db/connection.server";
import { likePattern, type RecipeQuery } from "../db/engines/engine.server";
import { cookStatsOf, type CookStats } from "./cooks.server";
import { amongPeople, isNobody, shownPerson } from "./visibility.server";

// Recipe and people search, the same on both engines: the tiers, paging and cards are here; the
// full-text matching and scoring are each engine's (app/server/db/engines/, over the tables of
// migrations/20261121T0100-search.ts, kept in step by triggers). Words without a letter or digit
// (punctuation, emoji) are dropped, and the number of words is capped; each engine turns the
// words into its own query syntax so that no typed text is ever read as syntax.

export const SEARCH_PAGE_SIZE = 12;
export const PEOPLE_LIMIT = 20;
const MAX_TERMS = 12;
const MAX_TERM_LENGTH = 60;

export interface RecipeCard {
  recipe_id: string;
  name: string;
  description: string;
  total_time: string;
  photo: string;
  author: { id: string; username: string } | null;
  /** "I made this": how many and their average rating; absent while no one has. */
  cooks?: CookStats;
}

/** A page of recipe cards; a loader may give each card more (its photo's placeholder). */
export interface RecipePage<Card extends RecipeCard = RecipeCard> {
  items: Card[];
  page: number;
  hasMore: boolean;
}

export interface UserCard {
  id: string;
  username: string;
  name: string;
  profile: string;
}

// ---------------------------------------------------------------------------------------------
// Query text

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/**
 * The searchable words of a query: split on whitespace and control characters, without words that
 * have no letter or digit. Control characters never reach FTS5: it reads its query as a C string,
 * so a NUL inside a quoted word cut the expression short ("unterminated string").
 */
export function searchTerms(query: string): string[] {
  return query
    .normalize("NFKC")
    .split(/[\s\p{Cc}]+/u)
    .filter((word) => WORD_CHARACTER.test(word))
    .map((word) => [...word].slice(0, MAX_TERM_LENGTH).join(""))
    .filter((word, index, words) => words.findIndex((other) => other.toLowerCase() === word.toLowerCase()) === index)
    .slice(0, MAX_TERMS);
}

/**
 * A recipe query: every word must match (anywhere in the recipe); the last word also matches as
 * a prefix while the user may still be typing it ("chick" finds chicken). Null without words.
 */
export function recipeQuery(query: string): RecipeQuery | null {
  const terms = searchTerms(query);
  return terms.length === 0 ? null : { terms, stillTyping: !/\s$/u.test(query) };
}

/** Case, accents and punctuation aside: "Yaki-Udon" and "yaki udon" are the same name. */
function comparable(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(" ");
}

// ---------------------------------------------------------------------------------------------
// Recipes

/**
 * Recipes matching `q` on name, description, tags and ingredient lines, paged, in three tiers:
 * exact name matches; then recipes with every word in the name; then the other matches. Within a
 * tier, bm25 (name weighted highest) orders the matches while they are few enough to score on
 * every request (RANK_LIMIT); a larger tier (a very common word) lists newest first instead, so a
 * query never costs more than a bounded number of scored rows. An empty query lists every recipe
 * in the random order of `seed` (see randomRecipesPage).
 */
export async function searchRecipes(
  { q, page = 1, seed = 1, without = [] }: { q: string; page?: number; seed?: number; without?: readonly string[] },
  database: DB = db,
): Promise<RecipePage> {
  page = Math.max(1, Math.trunc(page));
  if (q.trim() === "") return randomRecipesPage(seed, page, database, without);
  const match = recipeQuery(q);
  if (!match) return { items: [], page, hasMore: false };

  // One row more than a page tells whether there is a next page.
  const seqs = await matchingSeqs(q, match, (page - 1) * SEARCH_PAGE_SIZE, SEARCH_PAGE_SIZE + 1, database);
  return {
    items: await recipeCards(seqs.slice(0, SEARCH_PAGE_SIZE), database, without),
    page,
    hasMore: seqs.length > SEARCH_PAGE_SIZE,
  };
}

/**
 * The ids of the first `limit` recipes matching `q`, in searchRecipes' order (its pages laid end
 * to end), read in one pass over the tiers rather than page by page. For callers that want many
 * results at once (the JSON API's search). An empty or wordless query matches nothing here.
 */
export async function searchRecipeIds(
  { q, limit, without = [] }: { q: string; limit: number; without?: readonly string[] },
  database: DB = db,
): Promise<string[]> {
  const match = recipeQuery(q);
  if (!match || limit <= 0) return [];
  const seqs = await matchingSeqs(q, match, 0, limit, database);
  if (seqs.length === 0) return [];
  const rows = await database
    .selectFrom("recipes")
    .select(["seq", "id"])
    .where("seq", "in", seqs)
    .where(shownPerson("recipes.user_created", without))
    .execute();
  const idOf = new Map(rows.map((row) => [row.seq, row.id]));
  return seqs.flatMap((seq) => idOf.get(seq) ?? []);
}

/** `limit` recipe seqs from position `offset` of the three tiers of `q` (its words: `match`). */
async function matchingSeqs(q: string, match: RecipeQuery, offset: number, limit: number, database: DB): Promise<number[]> {
  const search = engineOf(database).recipeSearch;
  const exact = await exactNameMatches(q, database);
  const nameCount = await search.count(database, match, "name");
  const tiers: Tier[] = [
    { count: exact.length, fetch: async (offset, limit) => exact.slice(offset, offset + limit) },
    {
      count: Math.max(0, nameCount - exact.length),
      fetch: (offset, limit) => search.ranked(database, match, "name", { offset, limit, exclude: exact, byScore: nameCount <= RANK_LIMIT }),
    },
    {
      count: Infinity, // only ever the last tier: counting it fully would cost more than reading it
      fetch: async (offset, limit) => {
        const byScore = (await search.count(database, match, "elsewhere", RANK_LIMIT + 1)) <= RANK_LIMIT;
        return search.ranked(database, match, "elsewhere", { offset, limit, exclude: [], byScore });
      },
    },
  ];

  return readTiers(tiers, offset, limit);
}

/** Above this many matches a tier is listed newest first instead of scored, so no query pays to score more rows. */
const RANK_LIMIT = 3000;

interface Tier {
  count: number;
  fetch: (offset: number, limit: number) => Promise<number[]>;
}

/** `limit` seqs from position `offset` of the tiers laid end to end. */
async function readTiers(tiers: Tier[], offset: number, limit: number): Promise<number[]> {
  const seqs: number[] = [];
  for (const tier of tiers) {
    if (seqs.length >= limit) break;
    if (offset >= tier.count) {
      offset -= tier.count;
      continue;
    }
    seqs.push(...(await tier.fetch(offset, Math.min(limit - seqs.length, tier.count - offset))));
    offset = 0;
  }
  return seqs;
}

/** Seqs of recipes whose whole name is the query, oldest first (few: candidates are checked exactly). */
async function exactNameMatches(q: string, database: DB): Promise<number[]> {
  const wanted = comparable(q);
  const terms = searchTerms(q);
  if (!wanted || terms.length === 0) return [];
  const candidates = await engineOf(database).recipeSearch.nameCandidates(database, terms, 200);
  return candidates
    .filter((row) => comparable(row.name) === wanted)
    .map((row) => Number(row.seq))
    .sort((a, b) => a - b);
}

/**
 * Every recipe exactly once across the pages of one `seed`, in an order that looks random and
 * differs per seed: each recipe has a random key (recipe_shuffle, indexed); a seed picks a
 * starting key and a direction, and pages walk the index from there, wrapping around once.
 * Nothing sorts the table per request. Recipes by the people in `without` (the viewer's lens) are
 * skipped by the walk itself, so every page but the last is full (docs/rules.md#blocking-and-muting).
 */
export async function randomRecipesPage(seed: number, page: number, database: DB = db, without: readonly string[] = []): Promise<RecipePage> {
  const { pivot, ascending } = shuffleStart(seed);
  const offset = (Math.max(1, page) - 1) * SEARCH_PAGE_SIZE;
  const want = SEARCH_PAGE_SIZE + 1;
  const order = ascending ? sql`order by shuffle_key, recipe_seq` : sql`order by shuffle_key desc, recipe_seq desc`;
  const fromPivot = ascending ? sql`shuffle_key >= ${pivot}` : sql`shuffle_key <= ${pivot}`;
  const beforePivot = ascending ? sql`shuffle_key < ${pivot}` : sql`shuffle_key > ${pivot}`;
  // For the many whose lens is empty the walk reads the shuffle index alone.
  const shown =
    isNobody(without)
      ? sql``
      : sql`and recipe_seq not in (select seq from recipes where ${amongPeople("recipes.user_created", without)})`;

  const first = await sql<{ seq: number }>`
    select recipe_seq as seq from recipe_shuffle where ${fromPivot} ${shown} ${order}
    limit ${want} offset ${offset}`.execute(database);
  let seqs = first.rows.map((row) => row.seq);
  if (seqs.length < want) {
    // The walk wraps: continue from the other end of the key range.
    const fromPivotCount =
      seqs.length > 0
        ? offset + seqs.length
        : Number(
            (await sql<{ n: number }>`select count(*) as n from recipe_shuffle where ${fromPivot} ${shown}`.execute(database))
              .rows[0]?.n ?? 0,
          );
    const rest = await sql<{ seq: number }>`
      select recipe_seq as seq from recipe_shuffle where ${beforePivot} ${shown} ${order}
      limit ${want - seqs.length} offset ${Math.max(0, offset - fromPivotCount)}`.execute(database);
    seqs = [...seqs, ...rest.rows.map((row) => row.seq)];
  }
  return {
    items: await recipeCards(seqs.slice(0, SEARCH_PAGE_SIZE), database, without),
    page,
    hasMore: seqs.length > SEARCH_PAGE_SIZE,
  };
}

/** A seed's starting point in the 64-bit key space of random(), and its direction. */
function shuffleStart(seed: number): { pivot: bigint; ascending: boolean } {
  // splitmix64: nearby seeds land far apart.
  let z = (BigInt(Math.trunc(seed)) + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  z ^= z >> 31n;
  return { pivot: BigInt.asIntN(64, z), ascending: (z & 1n) === 0n };
}

/**
 * Cards for recipe seqs, in the order given. Recipes by the people in `without` are dropped here,
 * after the page's positions were chosen, so a page holding some shows fewer cards but no recipe
 * moves to another page or shows twice (docs/rules.md#blocking-and-muting).
 */
async function recipeCards(seqs: number[], database: DB, without: readonly string[]): Promise<RecipeCard[]> {
  if (seqs.length === 0) return [];
  const rows = await database
    .selectFrom("recipes as r")
    .leftJoin("users as u", "u.id", "r.user_created")
    .select(["r.seq", "r.id", "r.name", "r.description", "r.total_time", "r.photo", "u.id as author_id", "u.username"])
    .where("r.seq", "in", seqs)
    .where(shownPerson("r.user_created", without))
    .execute();
  const bySeq = new Map(rows.map((row) => [row.seq, row]));
  const cooks = await cookStatsOf(
    rows.map((row) => row.id),
    { without },
    database,
  );
  return seqs.flatMap((seq) => {
    const row = bySeq.get(seq);
    if (!row) return [];
    const stats = cooks.get(row.id);
    return [
      {
        recipe_id: row.id,
        name: row.name,
        description: row.description,
        total_time: row.total_time,
        photo: row.photo,
        author: row.author_id && row.username ? { id: row.author_id, username: row.username } : null,
        ...(stats ? { cooks: stats } : {}),
      },
    ];
  });
}

// ---------------------------------------------------------------------------------------------
// People

/**
 * Users whose username or name contains the query's words (trigram index; words shorter than
 * three characters match as a prefix of the username or of a word of the name). Exact username
 * first, then username prefixes, then name prefixes, then the rest; shorter usernames first.
 */
export async function searchUsers({ q, without = [] }: { q: string; without?: readonly string[] }, database: DB = db): Promise<UserCard[]> {
  const terms = searchTerms(q).slice(0, 6);
  if (terms.length === 0) return [];
  const whole = terms.join(" ").toLowerCase();
  const long = terms.filter((term) => [...term].length >= 3);
  const short = terms.filter((term) => [...term].length < 3);

  const like = (column: string, pattern: string) => engineOf(database).likeIgnoringCase(column, pattern);
  const shortFilters = short.map((term) => {
    const t = likePattern(term);
    return long.length > 0
      ? sql`(${like("u.username", `%${t}%`)} or ${like("u.name", `%${t}%`)})`
      : sql`(${like("u.username", `${t}%`)} or ${like("u.name", `${t}%`)} or ${like("u.name", `% ${t}%`)})`;
  });
  const first = likePattern(terms[0]!);
  const ordering = sql`order by
      case
        when lower(u.username) = ${whole} then 0
        when ${like("u.username", `${first}%`)} then 1
        when ${like("u.name", `${first}%`)} then 2
        when ${like("u.name", `% ${first}%`)} then 3
        else 4
      end,
      length(u.username), u.username`;

  const filters = [...(long.length > 0 ? [engineOf(database).peopleContaining(long)] : []), ...shortFilters];
  const { rows } = await sql<UserCard>`
    select u.id, u.username, u.name, u.profile
    from users u
    where ${sql.join([...filters, shownPerson("u.id", without)], sql` and `)}
    ${ordering}
    limit ${PEOPLE_LIMIT}`.execute(database);
  return rows;
}
