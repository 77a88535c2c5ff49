import { sql } from "kysely";

import { db, type DB } from "../db/connection.server";
import { commentCount, likeCount } from "./likes.server";
import { shownPerson } from "./visibility.server";

export const FEED_PAGE_SIZE = 12;
const MAX_SEED = 2_147_483_646;

// The shuffled part of the feed walks the expression index posts_feed_shuffle
// (migrations/20261121T0300-feed-shuffle.ts) from a seed-chosen key, so a page reads about a page
// of index entries and never sorts the posts table. The key is a bijection of seq onto 0…P-1
// (P prime: (x × a) mod P permutes it; `(x | m) - (x & m)` is x XOR m, which SQLite lacks), so
// every post has its own key and one seed's pages cover every post exactly once.
// SQLite uses the index only for the very same expression: keep this in step with the migration
// (tests/unit/query-plans.test.ts checks that the index is used).
const PRIME = 2_147_483_647;
const xorSql = (x: string, mask: number) => `((${x} | ${mask}) - (${x} & ${mask}))`;
const roundSql = (x: string, multiplier: number, mask: number) => xorSql(`((${x} * ${multiplier}) % ${PRIME})`, mask);
const FEED_SHUFFLE_KEY = sql.raw(roundSql(roundSql("p.seq", 1_588_635_695, 1_540_483_477), 1_223_106_847, 625_341_585));

export interface PostCardData {
  post_id: string;
  recipe_id: string;
  title: string;
  caption: string;
  photo: string;
  created_at: string | null;
  author: { id: string; username: string; profile: string } | null;
  likes: number;
  liked: boolean;
  comments: number;
  /** The recipe's facts, shown on the card when it has them ("" and null when not). */
  total_time: string;
  serves: number | null;
  /** The viewer has saved the recipe. */
  saved: boolean;
}

/** Where a seed's walk of the shuffle index starts (a key in 0…P-1) and which way it goes. */
export function feedShuffleStart(seed: number): { pivot: number; ascending: boolean } {
  // splitmix64: nearby seeds start far apart.
  let z = (BigInt(Math.trunc(seed)) + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  z ^= z >> 31n;
  return { pivot: Number((z >> 1n) % BigInt(PRIME)), ascending: (z & 1n) === 0n };
}

/** A seed from the URL, or a fresh one: an integer in 1…P-1. */
export function parseFeedSeed(value: string | null): number {
  const n = value && /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (Number.isInteger(n) && n >= 1 && n <= MAX_SEED) return n;
  return 1 + Math.floor(Math.random() * MAX_SEED);
}

export function parsePage(value: string | null, max = 100_000): number {
  const n = value && /^\d{1,6}$/.test(value) ? Number(value) : 1;
  return Math.min(Math.max(n, 1), max);
}

/** Columns of a post card, with counts and the viewer's like as correlated subqueries. */
export function postCardQuery(database: DB, viewerId: string | null) {
  return database
    .selectFrom("posts as p")
    .leftJoin("users as u", "u.id", "p.created_by")
    .leftJoin("recipes as r", "r.id", "p.recipe_id")
    .select([
      "p.id as post_id",
      "p.recipe_id",
      "p.title",
      "p.caption",
      "p.photo",
      "p.created_at",
      "u.id as author_id",
      "u.username as author_username",
      "u.profile as author_profile",
      "r.total_time",
      "r.serves",
      likeCount("p.id").as("likes"),
      commentCount("p.id").as("comments"),
      (eb) =>
        eb
          .selectFrom("likes")
          .select(sql<number>`1`.as("one"))
          .whereRef("likes.post_id", "=", "p.id")
          .where("likes.user_id", "=", viewerId ?? "")
          .as("liked"),
      (eb) =>
        eb
          .selectFrom("saved_recipes as s")
          .select(sql<number>`1`.as("one"))
          .whereRef("s.recipe_id", "=", "p.recipe_id")
          .where("s.user_id", "=", viewerId ?? "")
          .as("saved"),
    ]);
}

type PostCardRow = {
  post_id: string;
  recipe_id: string;
  title: string;
  caption: string;
  photo: string;
  created_at: string | null;
  author_id: string | null;
  author_username: string | null;
  author_profile: string | null;
  likes: number | null;
  comments: number | null;
  liked: number | null;
  total_time: string | null;
  serves: number | null;
  saved: number | null;
};

export function toPostCard(row: PostCardRow): PostCardData {
  return {
    post_id: row.post_id,
    recipe_id: row.recipe_id,
    title: row.title,
    caption: row.caption,
    photo: row.photo,
    created_at: row.created_at,
    author:
      row.author_id && row.author_username
        ? { id: row.author_id, username: row.author_username, profile: row.author_profile ?? "" }
        : null,
    likes: Number(row.likes ?? 0),
    liked: row.liked !== null,
    comments: Number(row.comments ?? 0),
    total_time: row.total_time ?? "",
    serves: row.serves === null ? null : Number(row.serves),
    saved: row.saved !== null,
  };
}

/** Posts by people `viewerId` follows (one row per post: a follow is one row), but not by the people in `without`. */
export function followedPostsQuery(database: DB, viewerId: string, without: readonly string[] = []) {
  return database
    .selectFrom("follows as f")
    .innerJoin("posts as p", "p.created_by", "f.followee_id")
    .where("f.follower_id", "=", viewerId)
    .where(shownPerson("p.created_by", without));
}

/**
 * One of the two stretches of a seed's walk: keys from the pivot onwards (`from`), then, after
 * wrapping around, the keys before it (`before`). Posts by people the viewer follows are left
 * out: they come first in the feed, in their own order. So are posts by the people in `without`.
 */
export function shuffledPostsQuery(
  database: DB,
  { viewerId, pivot, ascending, stretch, without = [] }: ShuffleWalk,
) {
  const op = ascending ? (stretch === "from" ? ">=" : "<") : stretch === "from" ? "<=" : ">";
  const query = database
    .selectFrom("posts as p")
    .where(sql<boolean>`${FEED_SHUFFLE_KEY} ${sql.raw(op)} ${pivot}`)
    .where(shownPerson("p.created_by", without));
  if (!viewerId) return query;
  return query.where((eb) =>
    eb.or([
      eb("p.created_by", "is", null),
      eb("p.created_by", "not in", eb.selectFrom("follows").select("followee_id").where("follower_id", "=", viewerId)),
    ]),
  );
}

interface ShuffleWalk {
  viewerId: string | null;
  pivot: number;
  ascending: boolean;
  stretch: "from" | "before";
  /** People whose posts the viewer does not see (docs/rules.md#blocking-and-muting). */
  without?: readonly string[];
}

/** `limit` seqs of one stretch in walk order, from position `offset`. */
export function shuffledSeqsQuery(
  database: DB,
  options: ShuffleWalk,
  { offset, limit }: { offset: number; limit: number },
) {
  return shuffledPostsQuery(database, options)
    .select("p.seq")
    .orderBy(sql`${FEED_SHUFFLE_KEY}`, options.ascending ? "asc" : "desc")
    .limit(limit)
    .offset(offset);
}

/** Seqs of followed people's posts, newest first. */
export function followedSeqsQuery(
  database: DB,
  viewerId: string,
  { offset, limit, without = [] }: { offset: number; limit: number; without?: readonly string[] },
) {
  return followedPostsQuery(database, viewerId, without).select("p.seq").orderBy("p.seq", "desc").limit(limit).offset(offset);
}

/** `limit` seqs of the shuffled part of the feed from position `offset`, wrapping around the key space once. */
async function shuffledSeqs(
  database: DB,
  { viewerId, seed, offset, limit, without }: { viewerId: string | null; seed: number; offset: number; limit: number; without: readonly string[] },
): Promise<number[]> {
  const { pivot, ascending } = feedShuffleStart(seed);
  const from = { viewerId, pivot, ascending, stretch: "from", without } as const;
  const first = (await shuffledSeqsQuery(database, from, { offset, limit }).execute()).map((row) => row.seq);
  if (first.length >= limit) return first;
  // Past the end of the first stretch: how long was it? (Counted only this once per walk.)
  let fromLength = offset + first.length;
  if (first.length === 0) {
    const inRange = sql<boolean>`${FEED_SHUFFLE_KEY} ${sql.raw(ascending ? ">=" : "<=")} ${pivot}`;
    const all = await shuffledPostsQuery(database, { ...from, viewerId: null })
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const followed = viewerId
      ? await followedPostsQuery(database, viewerId, without)
          .where(inRange)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      : { n: 0 };
    fromLength = Number(all.n) - Number(followed.n);
  }
  const rest = await shuffledSeqsQuery(
    database,
    { ...from, stretch: "before" },
    { offset: Math.max(0, offset - fromLength), limit: limit - first.length },
  ).execute();
  return [...first, ...rest.map((row) => row.seq)];
}

/**
 * One page of the Home feed: posts by people the viewer follows first (newest first), then
 * every other post in the order fixed by `seed`. Only the page's rows are read: index walks
 * pick the page's posts, then one query reads their cards. Posts by the people in `without` (the
 * viewer's lens: blocked either way, muted) are left out.
 */
export async function getFeedPage(
  { viewerId, seed, page, without = [] }: { viewerId: string | null; seed: number; page: number; without?: readonly string[] },
  database: DB = db,
): Promise<{ posts: PostCardData[]; hasMore: boolean }> {
  const offset = (page - 1) * FEED_PAGE_SIZE;
  const want = FEED_PAGE_SIZE + 1; // one more than a page tells whether there is a next page
  let seqs: number[] = [];
  let shuffledOffset = offset;
  if (viewerId) {
    seqs = (await followedSeqsQuery(database, viewerId, { offset, limit: want, without }).execute()).map((row) => row.seq);
    if (seqs.length > 0) {
      shuffledOffset = 0;
    } else {
      const { n } = await followedPostsQuery(database, viewerId, without)
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      shuffledOffset = Math.max(0, offset - Number(n)); // (a follow added between the two reads)
    }
  }
  if (seqs.length < want) {
    seqs = [...seqs, ...(await shuffledSeqs(database, { viewerId, seed, offset: shuffledOffset, limit: want - seqs.length, without }))];
  }
  const pageSeqs = seqs.slice(0, FEED_PAGE_SIZE);
  const rows = pageSeqs.length > 0 ? await postCardQuery(database, viewerId).select("p.seq").where("p.seq", "in", pageSeqs).execute() : [];
  const bySeq = new Map(rows.map((row) => [row.seq, row]));
  const posts = pageSeqs.flatMap((seq) => {
    const row = bySeq.get(seq);
    return row ? [toPostCard(row)] : [];
  });
  return { posts, hasMore: seqs.length > FEED_PAGE_SIZE };
}

export async function getPostCard(postId: string, viewerId: string | null, database: DB = db): Promise<PostCardData | undefined> {
  const row = await postCardQuery(database, viewerId).where("p.id", "=", postId).executeTakeFirst();
  return row ? toPostCard(row) : undefined;
}
