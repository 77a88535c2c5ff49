import { sql, type RawBuilder, type SqlBool } from "kysely";

import { db, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";
import { federationEnabled } from "../federation/handles.server";
import { nowIso } from "./seq.server";
import { shownPerson } from "./visibility.server";

export interface Liker {
  id: string;
  username: string;
  name: string;
  profile: string;
}

/**
 * Likes or unlikes as the given user; idempotent, so a repeated submit changes nothing. True when
 * a row was added or removed (the service then tells the post's creator, or takes that back); a
 * like is not added while `onlyIf` does not hold.
 */
export async function setPostLiked(
  { postId, userId, liked, onlyIf = null }: { postId: string; userId: string; liked: boolean; /** A like is written only while this holds (a block's). */ onlyIf?: RawBuilder<SqlBool> | null },
  database: DB = db,
): Promise<boolean> {
  if (liked) {
    const added = await database
      .insertInto("likes")
      .columns(["post_id", "user_id", "created_at"])
      .expression(database.selectNoFrom((eb) => [eb.val(postId).as("post_id"), eb.val(userId).as("user_id"), eb.val(nowIso()).as("created_at")]).where(onlyIf ?? sql<SqlBool>`true`))
      .onConflict((oc) => oc.columns(["post_id", "user_id"]).doNothing())
      .executeTakeFirst();
    return Number(added.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  const removed = await database.deleteFrom("likes").where("post_id", "=", postId).where("user_id", "=", userId).executeTakeFirst();
  return Number(removed.numDeletedRows) > 0;
}

/**
 * A post's likes as a column: people's here and, over federation, people's on other servers
 * (docs/federation.md; not while federation is off, as the Likes dialog then lists none of them).
 * `postColumn` names the post's id in the enclosing query.
 */
export function likeCount(postColumn: string): RawBuilder<number> {
  const post = sql.ref(postColumn);
  // Without federation the likes from elsewhere are neither listed nor counted (and every card
  // is spared a second count).
  if (!federationEnabled()) return sql<number>`(select count(*) from likes where likes.post_id = ${post})`;
  return sql<number>`((select count(*) from likes where likes.post_id = ${post}) + (select count(*) from remote_likes where remote_likes.post_id = ${post}))`;
}

/** A post's comments as a column: written here and, with federation, replies from other servers. */
export function commentCount(postColumn: string): RawBuilder<number> {
  const post = sql.ref(postColumn);
  if (!federationEnabled()) return sql<number>`(select count(*) from comments where comments.post_id = ${post})`;
  return sql<number>`((select count(*) from comments where comments.post_id = ${post}) + (select count(*) from remote_comments where remote_comments.post_id = ${post}))`;
}

/** A post's likes, from here and elsewhere. */
export async function countLikes(postId: string, database: DB = db): Promise<number> {
  const row = await database.selectFrom("posts as p").select(likeCount("p.id").as("n")).where("p.id", "=", postId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

const likeRow = preparedRead((database, postId: string, userId: string) =>
  database.selectFrom("likes").select("user_id").where("post_id", "=", postId).where("user_id", "=", userId),
);

/** Whether `userId` likes the post. */
export async function hasLiked(postId: string, userId: string, database: DB = db): Promise<boolean> {
  return (await likeRow(database, postId, userId)).length > 0;
}

/** Who liked a post, in the order they liked it, but not the people in `without` (the reader's lens). */
export async function listLikers(postId: string, { without = [] }: { without?: readonly string[] } = {}, database: DB = db): Promise<Liker[]> {
  return database
    .selectFrom("likes as l")
    .innerJoin("users as u", "u.id", "l.user_id")
    .select(["u.id", "u.username", "u.name", "u.profile"])
    .where("l.post_id", "=", postId)
    .where(shownPerson("u.id", without))
    .orderBy("l.created_at")
    .orderBy("u.seq")
    .execute();
}
