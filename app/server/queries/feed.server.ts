import { sql } from "kysely";

import { db, type DB } from "../db.server";

export const FEED_PAGE_SIZE = 12;
const MAX_SEED = 2_147_483_646;
// A prime modulus: (seq × a) mod P is a permutation of the posts for every a in 1…P-1,
// so one seed gives one fixed shuffle and paging never repeats or skips a post.
const PRIME = 2_147_483_647;

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
}

/**
 * The sort key of the seed's shuffle, as portable SQL (`(x | m) - (x & m)` is x XOR m;
 * SQLite has no XOR operator).
 */
export function shuffleKey(seed: number) {
  const hash = (value: number) => {
    let h = Math.imul(value ^ (value >>> 16), 0x7feb352d);
    h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
    return (h ^ (h >>> 16)) >>> 0;
  };
  const xor = (x: ReturnType<typeof sql<number>>, mask: number) => sql<number>`((${x} | ${mask}) - (${x} & ${mask}))`;
  const key = (round: number) => hash(seed + round * 0x9e3779b9);
  // Two rounds of multiply-then-XOR: each step is a bijection on 0…2^31-1 (products stay
  // below 2^62), and mixing the two operations hides the arithmetic progressions that a
  // single multiplication leaves in the order.
  let x = sql<number>`p.seq`;
  for (const round of [1, 2]) {
    const multiplier = 2 ** 20 + (key(round) % (PRIME - 2 ** 20 - 1));
    x = xor(sql<number>`((${x} * ${multiplier}) % ${PRIME})`, key(round + 10) & 0x7fffffff);
  }
  return x;
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
      (eb) =>
        eb
          .selectFrom("likes")
          .select((e) => e.fn.countAll<number>().as("n"))
          .whereRef("likes.post_id", "=", "p.id")
          .as("likes"),
      (eb) =>
        eb
          .selectFrom("comments")
          .select((e) => e.fn.countAll<number>().as("n"))
          .whereRef("comments.post_id", "=", "p.id")
          .as("comments"),
      (eb) =>
        eb
          .selectFrom("likes")
          .select(sql<number>`1`.as("one"))
          .whereRef("likes.post_id", "=", "p.id")
          .where("likes.user_id", "=", viewerId ?? "")
          .as("liked"),
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
  };
}

/**
 * One page of the Home feed: posts by people the viewer follows first (newest first), then
 * every other post in the order fixed by `seed`. Only the page's rows are read.
 */
export async function getFeedPage(
  { viewerId, seed, page }: { viewerId: string | null; seed: number; page: number },
  database: DB = db,
): Promise<{ posts: PostCardData[]; hasMore: boolean }> {
  const followed = sql<number>`(p.created_by in (select followee_id from follows where follower_id = ${viewerId ?? ""}))`;
  const rows = await postCardQuery(database, viewerId)
    .orderBy(sql`${followed} desc`)
    .orderBy(sql`case when ${followed} then -p.seq else ${shuffleKey(seed)} end`)
    .orderBy("p.seq")
    .limit(FEED_PAGE_SIZE + 1)
    .offset((page - 1) * FEED_PAGE_SIZE)
    .execute();
  return { posts: rows.slice(0, FEED_PAGE_SIZE).map(toPostCard), hasMore: rows.length > FEED_PAGE_SIZE };
}

export async function getPostCard(postId: string, viewerId: string | null, database: DB = db): Promise<PostCardData | undefined> {
  const row = await postCardQuery(database, viewerId).where("p.id", "=", postId).executeTakeFirst();
  return row ? toPostCard(row) : undefined;
}
