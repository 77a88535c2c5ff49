import { sql, type RawBuilder, type SqlBool } from "kysely";

import { UNAVAILABLE_ACCOUNT, UNAVAILABLE_RECIPE } from "~/lib/blocking";

import { db, onPrimary, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";

export { UNAVAILABLE_ACCOUNT, UNAVAILABLE_RECIPE };

// Who a viewer does not see (docs/rules.md#blocking-and-muting). A request reads its viewer's lens
// once (auth/session.server.ts, getLens); every list of people or of what people wrote narrows
// itself with `shownPerson`, so each surface states the same rule in one line. Most people block
// and mute nobody: their lens is empty and the filter is `true`, the query unchanged.

export interface Lens {
  viewerId: string | null;
  /** Blocked by the viewer or blocking them (neither sees the other anywhere), and suspended accounts for all but admins. */
  hidden: PersonList;
  /** `hidden` and the people the viewer muted: left out of the feed, comments and notifications. */
  quiet: PersonList;
  /** Whom the viewer blocked (their profile offers Unblock). */
  blocking: PersonList;
  /** Whom the viewer muted. */
  muting: PersonList;
}

/**
 * People a lens leaves out. Short lists (nearly everyone's) hold every id. A part longer than
 * LENS_INLINE_MAX — thousands of throwaway accounts blocking one person, thousands of suspended
 * spammers — is not read at all: the list then holds the ids of its short parts only and remembers
 * what the whole is (`sources`), so a query asks the tables about each row it reads instead of
 * carrying the ids (a long NOT IN list would pass SQLite's or PostgreSQL's parameter limit, and
 * reading it per request made every page of its viewer slow), and a question about one person
 * goes to the database (`contains`). Ask through the functions below, never with `.includes`.
 */
export type PersonList = readonly string[];

export const LENS_INLINE_MAX = 100;

/** What a lens list lists: whose lens, and which of its parts. */
interface LensSource {
  viewerId: string | null;
  /** Whom the viewer blocks, and who blocks the viewer. */
  blocking: boolean;
  blockedBy: boolean;
  muting: boolean;
  /** Suspended accounts (in everyone's lens but an admin's). */
  suspended: boolean;
}
const sources = new WeakMap<PersonList, LensSource>();

const NOBODY: PersonList = [];
export const OPEN_LENS: Lens = { viewerId: null, hidden: NOBODY, quiet: NOBODY, blocking: NOBODY, muting: NOBODY };

/** Whether the list holds every id it stands for. */
const isComplete = (people: PersonList) => !sources.has(people);

/** Whether the list leaves nobody out (nearly everyone's lens: queries then skip the filter). */
export const isNobody = (people: PersonList) => people.length === 0 && isComplete(people);

/** Whether `id` is among `people`: from memory, or one indexed query for a long list. */
export async function contains(people: PersonList, id: string | null | undefined, database: DB = db): Promise<boolean> {
  if (id == null) return false;
  if (people.includes(id)) return true;
  const source = sources.get(people);
  if (!source) return false;
  const found = await onPrimary(() => sql<{ id: string }>`select asked.id from users as asked where asked.id = ${id} and ${inLongList(sql.ref("asked.id"), source)}`.execute(database));
  return found.rows.length > 0;
}

/** Whether `userId` is hidden from the lens's viewer (a block either way, or a suspension). */
export function isHidden(lens: Lens, userId: string | null | undefined, database: DB = db): Promise<boolean> {
  return contains(lens.hidden, userId, database);
}

/**
 * The viewer's lens: one query over both ends of their blocks, their mutes and, unless they are an
 * ADMIN, the suspended accounts (docs/rules.md#suspension), which everyone else sees as blocked.
 * A visitor's lens holds the suspended accounts only. Each part is read up to LENS_INLINE_MAX + 1
 * rows: a longer part is not read (PersonList above). Read from the primary.
 */
export async function readLens(viewerId: string | null, { admin = false }: { admin?: boolean } = {}, database: DB = db): Promise<Lens> {
  if (viewerId && admin) return lensOf(viewerId, admin, await onPrimary(() => adminLensRows(database, viewerId)));
  if (viewerId) return lensOf(viewerId, admin, await onPrimary(() => viewerLensRows(database, viewerId)));
  return admin ? OPEN_LENS : lensOf(null, admin, await onPrimary(() => visitorLensRows(database)));
}

type LensKind = "blocking" | "blockedBy" | "muting" | "suspended";

/** The parts of a lens in one union: each read up to LENS_INLINE_MAX + 1 rows, so a long part shows. */
function lensUnion(viewerId: string | null, admin: boolean): RawBuilder<{ id: string; kind: LensKind }> {
  const limit = LENS_INLINE_MAX + 1;
  const part = (kind: LensKind, query: RawBuilder<unknown>) => sql`select id, ${sql.lit(kind)} as kind from (${query} limit ${limit}) as ${sql.ref(`lens_${kind}`)}`;
  const parts: RawBuilder<unknown>[] = [];
  if (viewerId !== null) {
    parts.push(
      part("blocking", sql`select blocked_id as id from blocks where blocker_id = ${viewerId}`),
      part("blockedBy", sql`select blocker_id as id from blocks where blocked_id = ${viewerId}`),
      part("muting", sql`select muted_id as id from mutes where muter_id = ${viewerId}`),
    );
  }
  if (!admin) parts.push(part("suspended", sql`select id from users where suspended_at is not null`));
  return sql<{ id: string; kind: LensKind }>`${sql.join(parts, sql` union all `)}`;
}

// From the primary even where a request's reads go to replicas, like the session: a block or a
// suspension hides at once, never after a replica's lag. Three shapes, each prepared once.
const viewerLensRows = preparedRead((_database, viewerId: string) => lensUnion(viewerId, false));
const adminLensRows = preparedRead((_database, viewerId: string) => lensUnion(viewerId, true));
const visitorLensRows = preparedRead(() => lensUnion(null, false));

/** The lens of `viewerId` from the rows its parts gave. */
function lensOf(viewerId: string | null, admin: boolean, rows: ReadonlyArray<{ id: string; kind: LensKind }>): Lens {
  if (rows.length === 0) return viewerId ? { ...OPEN_LENS, viewerId } : OPEN_LENS;
  const found = new Map<LensKind, string[]>();
  for (const row of rows) found.set(row.kind, [...(found.get(row.kind) ?? []), row.id]);
  const long = (kind: LensKind) => (found.get(kind)?.length ?? 0) > LENS_INLINE_MAX;
  /** The ids of `kinds`, remembering what the whole is when a part is long. */
  const list = (...kinds: LensKind[]): PersonList => {
    const ids = [...new Set(kinds.flatMap((kind) => (long(kind) ? [] : (found.get(kind) ?? []))))];
    if (kinds.some(long)) {
      sources.set(ids, {
        viewerId,
        blocking: kinds.includes("blocking"),
        blockedBy: kinds.includes("blockedBy"),
        muting: kinds.includes("muting"),
        suspended: kinds.includes("suspended"),
      });
    }
    return ids;
  };
  const everyone: LensKind[] = admin ? ["blocking", "blockedBy"] : ["blocking", "blockedBy", "suspended"];
  return {
    viewerId,
    hidden: viewerId ? list(...everyone) : list("suspended"),
    quiet: viewerId ? list(...everyone, "muting") : list("suspended"),
    blocking: viewerId ? list("blocking") : NOBODY,
    muting: viewerId ? list("muting") : NOBODY,
  };
}

/**
 * A condition: the person in `column` is not one of `people`. Rows with no person (an account that
 * was deleted) stay. `true` when nobody is left out. `column` is qualified ("c.user_id"): a long
 * list is written as probes that name it from inside their own tables.
 */
export function shownPerson(column: string, people: PersonList): RawBuilder<boolean> {
  const ref = qualified(column);
  if (isComplete(people)) {
    if (people.length === 0) return sql<boolean>`true`;
    return sql<boolean>`(${ref} is null or ${ref} not in (${sql.join(people.map((id) => sql`${id}`))}))`;
  }
  return sql<boolean>`(${ref} is null or not ${inLongList(ref, sources.get(people)!)})`;
}

/** A condition: the person in `column` (qualified) is one of `people`; `false` when `people` is nobody. */
export function amongPeople(column: string, people: PersonList): RawBuilder<boolean> {
  const ref = qualified(column);
  if (isComplete(people)) {
    if (people.length === 0) return sql<boolean>`false`;
    return sql<boolean>`${ref} in (${sql.join(people.map((id) => sql`${id}`))})`;
  }
  return inLongList(ref, sources.get(people)!);
}

function qualified(column: string): RawBuilder<unknown> {
  if (!column.includes(".")) throw new Error(`A lens condition needs a qualified column, not "${column}"`);
  return sql.ref(column);
}

/**
 * Whether the person `ref` names is in a long lens list: one probe per part, each on a key (blocks'
 * and mutes' primary keys, users' id), so its cost follows the rows the query reads, not the
 * length of the list.
 */
function inLongList(ref: RawBuilder<unknown>, { viewerId, blocking, blockedBy, muting, suspended }: LensSource): RawBuilder<boolean> {
  const probes: RawBuilder<boolean>[] = [];
  if (viewerId !== null) {
    if (blocking) probes.push(sql`exists (select 1 from blocks as lens_b where lens_b.blocker_id = ${viewerId} and lens_b.blocked_id = ${ref})`);
    if (blockedBy) probes.push(sql`exists (select 1 from blocks as lens_b where lens_b.blocker_id = ${ref} and lens_b.blocked_id = ${viewerId})`);
    if (muting) probes.push(sql`exists (select 1 from mutes as lens_m where lens_m.muter_id = ${viewerId} and lens_m.muted_id = ${ref})`);
  }
  if (suspended) probes.push(sql`exists (select 1 from users as lens_u where lens_u.id = ${ref} and lens_u.suspended_at is not null)`);
  return sql<boolean>`(${sql.join(probes, sql` or `)})`;
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

/**
 * reachOf's "open" inside a statement: `ownerId` is there and not suspended, and neither of the two
 * blocked the other. A write that must not happen across a block carries it in its own condition.
 */
export function openBetween(actorId: string, ownerId: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 from users as owner where owner.id = ${ownerId} and owner.suspended_at is null and not exists (select 1 from blocks where (blocker_id = ${actorId} and blocked_id = ${ownerId}) or (blocker_id = ${ownerId} and blocked_id = ${actorId})))`;
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
