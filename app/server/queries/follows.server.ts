import { sql, type RawBuilder, type SqlBool } from "kysely";

import { db, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";
import { nowIso } from "./seq.server";
import { shownPerson } from "./visibility.server";

// A follow is one row (follower → followee), so both users' lists always agree and a
// "remove follower" is the same delete seen from the other side.

/**
 * Follows; idempotent, so a double submit is still one follow. The schema refuses self-follows.
 * True when it changed something.
 */
export async function follow(
  { followerId, followeeId, onlyIf = null }: { followerId: string; followeeId: string; /** Written only while this holds (a block's). */ onlyIf?: RawBuilder<SqlBool> | null },
  database: DB = db,
): Promise<boolean> {
  const added = await database
    .insertInto("follows")
    .columns(["follower_id", "followee_id", "created_at"])
    .expression(database.selectNoFrom((eb) => [eb.val(followerId).as("follower_id"), eb.val(followeeId).as("followee_id"), eb.val(nowIso()).as("created_at")]).where(onlyIf ?? sql<SqlBool>`true`))
    .onConflict((oc) => oc.columns(["follower_id", "followee_id"]).doNothing())
    .executeTakeFirst();
  return Number(added.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Unfollows; idempotent. True when it changed something. */
export async function unfollow(
  { followerId, followeeId }: { followerId: string; followeeId: string },
  database: DB = db,
): Promise<boolean> {
  const removed = await database
    .deleteFrom("follows")
    .where("follower_id", "=", followerId)
    .where("followee_id", "=", followeeId)
    .executeTakeFirst();
  return Number(removed.numDeletedRows) > 0;
}

const followRow = preparedRead((database, followerId: string, followeeId: string) =>
  database.selectFrom("follows").select("follower_id").where("follower_id", "=", followerId).where("followee_id", "=", followeeId),
);

export async function isFollowing(
  { followerId, followeeId }: { followerId: string; followeeId: string },
  database: DB = db,
): Promise<boolean> {
  return (await followRow(database, followerId, followeeId)).length > 0;
}

export interface FollowCounts {
  followers: number;
  following: number;
}

const followCountsRow = preparedRead((database, userId: string) =>
  database.selectNoFrom((eb) => [
    eb
      .selectFrom("follows")
      .select((c) => c.fn.countAll<number>().as("n"))
      .where("followee_id", "=", userId)
      .as("followers"),
    eb
      .selectFrom("follows")
      .select((c) => c.fn.countAll<number>().as("n"))
      .where("follower_id", "=", userId)
      .as("following"),
  ]),
);

export async function getFollowCounts(userId: string, database: DB = db): Promise<FollowCounts> {
  const [row] = await followCountsRow(database, userId);
  return { followers: Number(row?.followers ?? 0), following: Number(row?.following ?? 0) };
}

/** One row of the Followers / Following dialogs. */
export interface FollowRow {
  id: string;
  username: string;
  name: string;
  profile: string;
  /** Whether the viewer follows this row's user (drives Follow / Following). */
  viewerFollows: boolean;
}

type Direction = "followers" | "following";

/** Whose list, who reads it, and whom the reader does not see (their lens: docs/rules.md#blocking-and-muting). */
type FollowListArgs = { userId: string; viewerId: string; without?: readonly string[] };

async function listFollows(
  direction: Direction,
  { userId, viewerId, without = [] }: FollowListArgs,
  database: DB,
): Promise<FollowRow[]> {
  // followers: rows whose followee is the user, listing the follower; following: the reverse.
  const [mine, theirs] = direction === "followers" ? (["followee_id", "follower_id"] as const) : (["follower_id", "followee_id"] as const);
  const rows = await database
    .selectFrom("follows as f")
    .innerJoin("users as u", "u.id", `f.${theirs}`)
    .leftJoin("follows as v", (join) => join.onRef("v.followee_id", "=", "u.id").on("v.follower_id", "=", viewerId))
    .select(["u.id", "u.username", "u.name", "u.profile", "v.follower_id as viewer_follow"])
    .where(`f.${mine}`, "=", userId)
    .where(shownPerson("u.id", without))
    .orderBy("f.created_at")
    .orderBy("u.username")
    .execute();
  return rows.map(({ viewer_follow, ...user }) => ({ ...user, viewerFollows: viewer_follow !== null }));
}

/** Who follows `userId`, oldest follow first, each flagged with whether the viewer follows them. */
export function listFollowers(args: FollowListArgs, database: DB = db): Promise<FollowRow[]> {
  return listFollows("followers", args, database);
}

/** Whom `userId` follows, oldest follow first, each flagged with whether the viewer follows them. */
export function listFollowing(args: FollowListArgs, database: DB = db): Promise<FollowRow[]> {
  return listFollows("following", args, database);
}
