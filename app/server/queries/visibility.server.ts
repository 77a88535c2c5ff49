import { sql, type RawBuilder } from "kysely";

import { UNAVAILABLE_ACCOUNT, UNAVAILABLE_RECIPE } from "~/lib/blocking";

import { db, type DB } from "../db/connection.server";

export { UNAVAILABLE_ACCOUNT, UNAVAILABLE_RECIPE };

// Who a viewer does not see (docs/rules.md#blocking-and-muting). A request reads its viewer's lens
// once (auth/session.server.ts, getLens); every list of people or of what people wrote narrows
// itself with `shownPerson`, so each surface states the same rule in one line. Most people block
// and mute nobody: their lens is empty and the filter is `true`, the query unchanged.

export interface Lens {
  viewerId: string | null;
  /** Blocked by the viewer or blocking them (neither sees the other anywhere), and suspended accounts for all but admins. */
  hidden: readonly string[];
  /** `hidden` and the people the viewer muted: left out of the feed, comments and notifications. */
  quiet: readonly string[];
  /** Whom the viewer blocked (their profile offers Unblock). */
  blocking: readonly string[];
  /** Whom the viewer muted. */
  muting: readonly string[];
}

/** Whether `userId` is hidden from the lens's viewer (a block, either way). */
export function isHidden(lens: Lens, userId: string | null | undefined): boolean {
  return userId != null && lens.hidden.includes(userId);
}

export const OPEN_LENS: Lens = { viewerId: null, hidden: [], quiet: [], blocking: [], muting: [] };

/**
 * The viewer's lens: one query over both ends of their blocks, their mutes and, unless they are an
 * ADMIN, the suspended accounts (docs/rules.md#suspension), which everyone else sees as blocked.
 * A visitor's lens holds the suspended accounts only.
 */
export async function readLens(viewerId: string | null, { admin = false }: { admin?: boolean } = {}, database: DB = db): Promise<Lens> {
  const suspended = database.selectFrom("users").select(["id", sql<string>`'suspended'`.as("kind")]).where("suspended_at", "is not", null);
  if (!viewerId) {
    const rows = admin ? [] : await suspended.execute();
    if (rows.length === 0) return OPEN_LENS;
    const ids = rows.map((row) => row.id);
    return { ...OPEN_LENS, hidden: ids, quiet: ids };
  }
  let query = database
    .selectFrom("blocks")
    .select(["blocked_id as id", sql<string>`'blocking'`.as("kind")])
    .where("blocker_id", "=", viewerId)
    .unionAll((eb) => eb.selectFrom("blocks").select(["blocker_id as id", sql<string>`'blocked'`.as("kind")]).where("blocked_id", "=", viewerId))
    .unionAll((eb) => eb.selectFrom("mutes").select(["muted_id as id", sql<string>`'muting'`.as("kind")]).where("muter_id", "=", viewerId));
  if (!admin) query = query.unionAll(suspended);
  const rows = await query.execute();
  if (rows.length === 0) return { ...OPEN_LENS, viewerId };
  const of = (...kinds: string[]) => [...new Set(rows.filter((row) => kinds.includes(row.kind)).map((row) => row.id))];
  return {
    viewerId,
    hidden: of("blocking", "blocked", "suspended"),
    quiet: of("blocking", "blocked", "suspended", "muting"),
    blocking: of("blocking"),
    muting: of("muting"),
  };
}

/**
 * A condition: the person in `column` is not one of `people`. Rows with no person (an account that
 * was deleted) stay. `true` when nobody is left out.
 */
export function shownPerson(column: string, people: readonly string[]): RawBuilder<boolean> {
  if (people.length === 0) return sql<boolean>`true`;
  const ref = sql.ref(column);
  return sql<boolean>`(${ref} is null or ${ref} not in (${sql.join(people.map((id) => sql`${id}`))}))`;
}

/** Whether an admin suspended the person (docs/rules.md#suspension). */
export async function isSuspendedPerson(userId: string, database: DB = db): Promise<boolean> {
  const row = await database.selectFrom("users").select("suspended_at").where("id", "=", userId).executeTakeFirst();
  return Boolean(row?.suspended_at);
}

/**
 * Whether what `ownerId` made is out of `actorId`'s reach: either blocked the other, or the owner is
 * suspended (docs/rules.md#suspension). Read inside a write's transaction, so a block or a
 * suspension landing meanwhile counts; one query, as it sits on every like, comment and follow.
 */
export async function isOutOfReach(actorId: string, ownerId: string, database: DB = db): Promise<boolean> {
  return (await reachOf(actorId, ownerId, database)) === "out";
}

/** `isOutOfReach` told apart from an owner who does not exist (a follow of nobody is a 404, not a 403). */
export async function reachOf(actorId: string, ownerId: string, database: DB = db): Promise<"missing" | "out" | "open"> {
  const row = await database
    .selectFrom("users as owner")
    .select((eb) => [
      "owner.suspended_at",
      eb
        .exists(
          eb
            .selectFrom("blocks")
            .select("blocker_id")
            .where((b) =>
              b.or([
                b.and([b("blocker_id", "=", actorId), b("blocked_id", "=", ownerId)]),
                b.and([b("blocker_id", "=", ownerId), b("blocked_id", "=", actorId)]),
              ]),
            ),
        )
        .as("blocked"),
    ])
    .where("owner.id", "=", ownerId)
    .executeTakeFirst();
  if (!row) return "missing";
  // SQLite answers `exists` as 0 or 1, PostgreSQL as a boolean.
  return row.suspended_at || Number(row.blocked) === 1 ? "out" : "open";
}

/** Blocks or unblocks; idempotent. True when it changed something. */
export async function setBlocked({ actorId, targetId, on }: { actorId: string; targetId: string; on: boolean }, database: DB = db): Promise<boolean> {
  if (on) {
    const added = await database
      .insertInto("blocks")
      .values({ blocker_id: actorId, blocked_id: targetId, created_at: new Date().toISOString() })
      .onConflict((oc) => oc.columns(["blocker_id", "blocked_id"]).doNothing())
      .executeTakeFirst();
    return Number(added.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  const removed = await database.deleteFrom("blocks").where("blocker_id", "=", actorId).where("blocked_id", "=", targetId).executeTakeFirst();
  return Number(removed.numDeletedRows) > 0;
}

/** Mutes or unmutes; idempotent. True when it changed something. */
export async function setMuted({ actorId, targetId, on }: { actorId: string; targetId: string; on: boolean }, database: DB = db): Promise<boolean> {
  if (on) {
    const added = await database
      .insertInto("mutes")
      .values({ muter_id: actorId, muted_id: targetId, created_at: new Date().toISOString() })
      .onConflict((oc) => oc.columns(["muter_id", "muted_id"]).doNothing())
      .executeTakeFirst();
    return Number(added.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  const removed = await database.deleteFrom("mutes").where("muter_id", "=", actorId).where("muted_id", "=", targetId).executeTakeFirst();
  return Number(removed.numDeletedRows) > 0;
}

export interface RelatedPerson {
  id: string;
  username: string;
  name: string;
  profile: string;
}

/** The people `actorId` blocked, most recent first. */
export async function listBlocked(actorId: string, database: DB = db): Promise<RelatedPerson[]> {
  return database
    .selectFrom("blocks as b")
    .innerJoin("users as u", "u.id", "b.blocked_id")
    .select(["u.id", "u.username", "u.name", "u.profile"])
    .where("b.blocker_id", "=", actorId)
    .orderBy("b.created_at", "desc")
    .orderBy("u.username")
    .execute();
}

/** The people `actorId` muted, most recent first. */
export async function listMuted(actorId: string, database: DB = db): Promise<RelatedPerson[]> {
  return database
    .selectFrom("mutes as m")
    .innerJoin("users as u", "u.id", "m.muted_id")
    .select(["u.id", "u.username", "u.name", "u.profile"])
    .where("m.muter_id", "=", actorId)
    .orderBy("m.created_at", "desc")
    .orderBy("u.username")
    .execute();
}
