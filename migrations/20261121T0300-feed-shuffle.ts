import { sql, type Kysely } from "kysely";

// Frozen once merged: change these indexes with a new migration, never by editing this one.
//
// posts_feed_shuffle: the Home feed's shuffled order (app/server/queries/feed.server.ts) is a
//   walk of this index from a seed-chosen starting key, so no request sorts the posts table.
//   The key is a fixed bijection of `seq` (two rounds of multiply-mod-prime then XOR, written
//   as `(x | m) - (x & m)` because SQLite has no XOR operator): every post has a distinct key,
//   new posts get theirs with no trigger or extra column, and the order is the same on every
//   database. The feed query must spell the expression exactly like this (feedShuffleKey) or
//   SQLite will not use the index; tests/unit/query-plans.test.ts fails if that ever happens.
//   created_by and seq make it covering: a page's walk, including skipping the posts of people the
//   viewer follows, reads only this index. PostgreSQL has expression indexes too (`#` is XOR).
// comments_seq, saved_recipes_seq: `max(seq) + 1` (seq.server.ts nextSeq) on every comment and
//   save read the whole table without them.
// saved_recipes_user_seq: a user's saved recipes, most recently saved first, straight from the index.

const P = 2_147_483_647;
const xor = (x: string, mask: number) => `((${x} | ${mask}) - (${x} & ${mask}))`;
const round = (x: string, multiplier: number, mask: number) => xor(`((${x} * ${multiplier}) % ${P})`, mask);
const feedShuffleKey = round(round("seq", 1_588_635_695, 1_540_483_477), 1_223_106_847, 625_341_585);

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`CREATE INDEX posts_feed_shuffle ON posts (${feedShuffleKey}, created_by, seq)`).execute(db);
  await db.schema.createIndex("comments_seq").on("comments").column("seq").execute();
  await db.schema.createIndex("saved_recipes_seq").on("saved_recipes").column("seq").execute();
  await db.schema.createIndex("saved_recipes_user_seq").on("saved_recipes").columns(["user_id", "seq"]).execute();
}

export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
