import { sql } from "kysely";

import { db, type DB } from "../db.server";

// Recipe and people search. SQLite-only (docs/rules.md#portability): FTS5 MATCH syntax, bm25 ranking and the
// tables of migrations/20261121T0100-search.ts (recipes_fts, users_fts, recipe_shuffle, all kept
// in step by triggers). A PostgreSQL port swaps this module and that migration, nothing else.
//
// User text never reaches FTS5 as syntax: each word becomes a quoted string ("" for a quote
// inside), so `"`, `*`, `-`, `(`, `:`, NEAR, AND, OR and NOT are plain text. Words without a
// letter or digit (punctuation, emoji) are dropped, and the number of words is capped.

export const SEARCH_PAGE_SIZE = 12;
export const PEOPLE_LIMIT = 20;
const MAX_TERMS = 12;
const MAX_TERM_LENGTH = 60;
/** Weights of the columns name, description, tags, ingredient lines: a name hit outweighs the rest. */
const RECIPE_BM25 = "bm25(recipes_fts, 10.0, 2.0, 4.0, 1.0)";

export interface RecipeCard {
  recipe_id: string;
  name: string;
  description: string;
  total_time: string;
  photo: string;
  author: { id: string; username: string } | null;
}

export interface RecipePage {
  items: RecipeCard[];
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

/** A word as an FTS5 string: plain text whatever it contains. */
export function ftsString(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

/**
 * The FTS5 expression for a recipe query: every word must match (implicit AND); the last word
 * also matches as a prefix while the user may still be typing it ("chick" finds chicken).
 */
export function recipeMatchExpression(query: string): string | null {
  const terms = searchTerms(query);
  if (terms.length === 0) return null;
  const stillTyping = !/\s$/u.test(query);
  return terms
    .map((term, index) => {
      const prefix = stillTyping && index === terms.length - 1 && [...term].length >= 2;
      return prefix ? `${ftsString(term)}*` : ftsString(term);
    })
    .join(" ");
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
  { q, page = 1, seed = 1 }: { q: string; page?: number; seed?: number },
  database: DB = db,
): Promise<RecipePage> {
  page = Math.max(1, Math.trunc(page));
  if (q.trim() === "") return randomRecipesPage(seed, page, database);
  const match = recipeMatchExpression(q);
  if (!match) return { items: [], page, hasMore: false };

  // One row more than a page tells whether there is a next page.
  const seqs = await matchingSeqs(q, match, (page - 1) * SEARCH_PAGE_SIZE, SEARCH_PAGE_SIZE + 1, database);
  return {
    items: await recipeCards(seqs.slice(0, SEARCH_PAGE_SIZE), database),
    page,
    hasMore: seqs.length > SEARCH_PAGE_SIZE,
  };
}

/**
 * The ids of the first `limit` recipes matching `q`, in searchRecipes' order (its pages laid end
 * to end), read in one pass over the tiers rather than page by page. For callers that want many
 * results at once (the JSON API's search). An empty or wordless query matches nothing here.
 */
export async function searchRecipeIds({ q, limit }: { q: string; limit: number }, database: DB = db): Promise<string[]> {
  const match = recipeMatchExpression(q);
  if (!match || limit <= 0) return [];
  const seqs = await matchingSeqs(q, match, 0, limit, database);
  if (seqs.length === 0) return [];
  const rows = await database.selectFrom("recipes").select(["seq", "id"]).where("seq", "in", seqs).execute();
  const idOf = new Map(rows.map((row) => [row.seq, row.id]));
  return seqs.flatMap((seq) => idOf.get(seq) ?? []);
}

/** `limit` recipe seqs from position `offset` of the three tiers of `q` (its FTS expression: `match`). */
async function matchingSeqs(q: string, match: string, offset: number, limit: number, database: DB): Promise<number[]> {
  const exact = await exactNameMatches(q, database);
  const inName = `name : (${match})`;
  const elsewhere = `(${match}) NOT name : (${match})`;
  const nameCount = await countMatches(inName, database);
  const tiers: Tier[] = [
    { count: exact.length, fetch: async (offset, limit) => exact.slice(offset, offset + limit) },
    {
      count: Math.max(0, nameCount - exact.length),
      fetch: (offset, limit) =>
        rankedMatches(inName, { offset, limit, exclude: exact, byScore: nameCount <= RANK_LIMIT }, database),
    },
    {
      count: Infinity, // only ever the last tier: counting it fully would cost more than reading it
      fetch: async (offset, limit) => {
        const byScore = (await countMatches(elsewhere, database, RANK_LIMIT + 1)) <= RANK_LIMIT;
        return rankedMatches(elsewhere, { offset, limit, exclude: [], byScore }, database);
      },
    },
  ];

  return readTiers(tiers, offset, limit);
}

/** Above this many matches a tier is listed newest first instead of scored (bm25 costs ~1 µs a row). */
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

/** How many recipes match (stopping at `upTo`, so a common word costs a bounded count). */
async function countMatches(match: string, database: DB, upTo?: number): Promise<number> {
  const capped = upTo === undefined ? sql`` : sql`limit ${upTo}`;
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from (select rowid from recipes_fts where recipes_fts match ${match} ${capped})`.execute(
    database,
  );
  return Number(rows[0]?.n ?? 0);
}

async function rankedMatches(
  match: string,
  { offset, limit, exclude, byScore }: { offset: number; limit: number; exclude: number[]; byScore: boolean },
  database: DB,
): Promise<number[]> {
  const excluded = exclude.length > 0 ? sql`and rowid not in (${sql.join(exclude)})` : sql``;
  const order = byScore ? sql`order by ${sql.raw(RECIPE_BM25)}, rowid desc` : sql`order by rowid desc`;
  const { rows } = await sql<{ seq: number }>`
    select rowid as seq from recipes_fts
    where recipes_fts match ${match} ${excluded}
    ${order}
    limit ${limit} offset ${offset}`.execute(database);
  return rows.map((row) => row.seq);
}

/** Seqs of recipes whose whole name is the query (few: the name must start with the phrase). */
async function exactNameMatches(q: string, database: DB): Promise<number[]> {
  const wanted = comparable(q);
  const terms = searchTerms(q);
  if (!wanted || terms.length === 0) return [];
  const phrase = `{name} : ^ ${ftsString(terms.join(" "))}`;
  const { rows } = await sql<{ seq: number; name: string }>`
    select r.seq, r.name from recipes_fts f join recipes r on r.seq = f.rowid
    where recipes_fts match ${phrase}
    order by r.seq
    limit 200`.execute(database);
  return rows.filter((row) => comparable(row.name) === wanted).map((row) => row.seq);
}

/**
 * Every recipe exactly once across the pages of one `seed`, in an order that looks random and
 * differs per seed: each recipe has a random key (recipe_shuffle, indexed); a seed picks a
 * starting key and a direction, and pages walk the index from there, wrapping around once.
 * Nothing sorts the table per request.
 */
export async function randomRecipesPage(seed: number, page: number, database: DB = db): Promise<RecipePage> {
  const { pivot, ascending } = shuffleStart(seed);
  const offset = (Math.max(1, page) - 1) * SEARCH_PAGE_SIZE;
  const want = SEARCH_PAGE_SIZE + 1;
  const order = ascending ? sql`order by shuffle_key, recipe_seq` : sql`order by shuffle_key desc, recipe_seq desc`;
  const fromPivot = ascending ? sql`shuffle_key >= ${pivot}` : sql`shuffle_key <= ${pivot}`;
  const beforePivot = ascending ? sql`shuffle_key < ${pivot}` : sql`shuffle_key > ${pivot}`;

  const first = await sql<{ seq: number }>`
    select recipe_seq as seq from recipe_shuffle where ${fromPivot} ${order}
    limit ${want} offset ${offset}`.execute(database);
  let seqs = first.rows.map((row) => row.seq);
  if (seqs.length < want) {
    // The walk wraps: continue from the other end of the key range.
    const fromPivotCount =
      seqs.length > 0
        ? offset + seqs.length
        : Number(
            (await sql<{ n: number }>`select count(*) as n from recipe_shuffle where ${fromPivot}`.execute(database))
              .rows[0]?.n ?? 0,
          );
    const rest = await sql<{ seq: number }>`
      select recipe_seq as seq from recipe_shuffle where ${beforePivot} ${order}
      limit ${want - seqs.length} offset ${Math.max(0, offset - fromPivotCount)}`.execute(database);
    seqs = [...seqs, ...rest.rows.map((row) => row.seq)];
  }
  return {
    items: await recipeCards(seqs.slice(0, SEARCH_PAGE_SIZE), database),
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

/** Cards for recipe seqs, in the order given. */
async function recipeCards(seqs: number[], database: DB): Promise<RecipeCard[]> {
  if (seqs.length === 0) return [];
  const rows = await database
    .selectFrom("recipes as r")
    .leftJoin("users as u", "u.id", "r.user_created")
    .select(["r.seq", "r.id", "r.name", "r.description", "r.total_time", "r.photo", "u.id as author_id", "u.username"])
    .where("r.seq", "in", seqs)
    .execute();
  const bySeq = new Map(rows.map((row) => [row.seq, row]));
  return seqs.flatMap((seq) => {
    const row = bySeq.get(seq);
    if (!row) return [];
    return [
      {
        recipe_id: row.id,
        name: row.name,
        description: row.description,
        total_time: row.total_time,
        photo: row.photo,
        author: row.author_id && row.username ? { id: row.author_id, username: row.username } : null,
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
export async function searchUsers(q: string, database: DB = db): Promise<UserCard[]> {
  const terms = searchTerms(q).slice(0, 6);
  if (terms.length === 0) return [];
  const whole = terms.join(" ").toLowerCase();
  const long = terms.filter((term) => [...term].length >= 3);
  const short = terms.filter((term) => [...term].length < 3);

  const likePattern = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
  const shortFilters = short.map((term) => {
    const t = likePattern(term);
    return long.length > 0
      ? sql`(u.username like ${`%${t}%`} escape '\\' or u.name like ${`%${t}%`} escape '\\')`
      : sql`(u.username like ${`${t}%`} escape '\\' or u.name like ${`${t}%`} escape '\\' or u.name like ${`% ${t}%`} escape '\\')`;
  });
  const first = likePattern(terms[0]!);
  const ordering = sql`order by
      case
        when lower(u.username) = ${whole} then 0
        when u.username like ${`${first}%`} escape '\\' then 1
        when u.name like ${`${first}%`} escape '\\' then 2
        when u.name like ${`% ${first}%`} escape '\\' then 3
        else 4
      end,
      length(u.username), u.username`;

  if (long.length > 0) {
    const match = long.map(ftsString).join(" ");
    const extra = shortFilters.length > 0 ? sql`and ${sql.join(shortFilters, sql` and `)}` : sql``;
    const { rows } = await sql<UserCard>`
      select u.id, u.username, u.name, u.profile
      from users_fts f join users u on u.seq = f.rowid
      where users_fts match ${match} ${extra}
      ${ordering}
      limit ${PEOPLE_LIMIT}`.execute(database);
    return rows;
  }
  const { rows } = await sql<UserCard>`
    select u.id, u.username, u.name, u.profile
    from users u
    where ${sql.join(shortFilters, sql` and `)}
    ${ordering}
    limit ${PEOPLE_LIMIT}`.execute(database);
  return rows;
}
