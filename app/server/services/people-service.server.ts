import type { RawBuilder, SqlBool } from "kysely";

import { CacheScope, changing } from "../cache/scopes.server";
import { engineOf, type DB } from "../db/connection.server";
import { unfollow } from "../queries/follows.server";
import { getSessionUserById } from "../queries/users.server";
import { openBetween, reachOf, setBlocked, setMuted, UNAVAILABLE_ACCOUNT } from "../queries/visibility.server";
import { withdraw } from "./notifications-service.server";
import { done, refusal, RefusedError, type Actor, type Outcome, type Refusal } from "./outcome-service.server";

// Blocking and muting (docs/rules.md#blocking-and-muting), for the pages and the API alike. What
// a viewer sees is narrowed by their lens (queries/visibility.server.ts); what they may do to
// someone they are blocked from is refused here, inside each write's transaction
// (refuseIfBlocked), so a block landing at the same moment is never outrun.

export const PEOPLE_MESSAGES = {
  blockSelf: "You cannot block yourself.",
  muteSelf: "You cannot mute yourself.",
  missing: "User not found.",
  unavailable: UNAVAILABLE_ACCOUNT,
} as const;

/**
 * Throws the refusal of docs/rules.md#blocking-and-muting when either person blocked the other, or
 * the owner is suspended (docs/rules.md#suspension: a block of everyone); with `missing`, a 404
 * with that text when the owner does not exist. Call inside the write's transaction, wrapped in
 * `refusing`, so nothing is written.
 */
export async function refuseIfBlocked(trx: DB, actorId: string, ownerId: string | null, options: { missing?: string } = {}): Promise<void> {
  const owner = await lockPair(trx, actorId, ownerId, options);
  if (owner) await refuseOutOfReach(trx, actorId, owner, options);
}

/**
 * `write` — an insert that carries `openBetween(actorId, ownerId)` (null: no owner to be kept from)
 * in its own condition — under the lock a block between the two meets, as refuseIfBlocked takes it.
 * When it wrote nothing (`false`), the refusal says why, if a block or a suspension was the reason;
 * otherwise it was there already (idempotent). One statement where a check and an insert were two.
 */
export async function writeIfOpen<T>(
  trx: DB,
  actorId: string,
  ownerId: string | null,
  write: (condition: RawBuilder<SqlBool> | null) => Promise<T | false>,
  options: { missing?: string } = {},
): Promise<T | false> {
  const owner = await lockPair(trx, actorId, ownerId, options);
  if (!owner) return write(null);
  const wrote = await write(openBetween(actorId, owner));
  if (wrote === false) await refuseOutOfReach(trx, actorId, owner, options);
  return wrote;
}

/**
 * The owner a write between the two people must be checked against, with the pair's lock taken
 * (shared): a block between the two committing now waits for this write, or this write for it,
 * never both (docs/scaling.md, "How writers meet"); writes between the two go side by side. Null
 * when there is no one to be kept from (no owner, or oneself); with `missing`, no owner is a 404.
 */
async function lockPair(trx: DB, actorId: string, ownerId: string | null, { missing }: { missing?: string }): Promise<string | null> {
  if (!ownerId && missing) throw new RefusedError(refusal(404, missing));
  if (!ownerId || ownerId === actorId) return null;
  await engineOf(trx).writers.lock(trx, [pairKey(actorId, ownerId)], "shared");
  return ownerId;
}

/** The refusal of refuseIfBlocked, the pair's lock already held. */
async function refuseOutOfReach(trx: DB, actorId: string, ownerId: string, { missing }: { missing?: string }): Promise<void> {
  const reach = await reachOf(actorId, ownerId, trx);
  if (reach === "missing" && missing) throw new RefusedError(refusal(404, missing));
  if (reach === "out") throw new RefusedError(refusal(403, PEOPLE_MESSAGES.unavailable));
}

/** The lock a block and the writes it refuses meet on: one per pair of people, whoever acts. */
function pairKey(one: string, other: string): string {
  return `people:${[one, other].sort().join(":")}`;
}

async function checkTarget(actor: Actor, targetId: string, selfMessage: string): Promise<Refusal | null> {
  if (targetId === actor.id) return refusal(400, selfMessage);
  if (!(await getSessionUserById(targetId))) return refusal(404, PEOPLE_MESSAGES.missing);
  return null;
}

/**
 * The actor blocks or unblocks `targetId`. A block ends the follows between the two, both ways
 * (with their unread notifications), in the same transaction.
 */
export async function setBlock({ actor, targetId, blocked }: { actor: Actor; targetId: string; blocked: boolean }): Promise<Outcome<{ blocked: boolean }>> {
  const refused = await checkTarget(actor, targetId, PEOPLE_MESSAGES.blockSelf);
  if (refused) return refused;
  await changing([CacheScope.user(actor.id), CacheScope.user(targetId)], async (trx) => {
    await engineOf(trx).writers.lock(trx, [pairKey(actor.id, targetId)]);
    if (!(await setBlocked({ actorId: actor.id, targetId, on: blocked }, trx)) || !blocked) return;
    for (const [followerId, followeeId] of [
      [actor.id, targetId],
      [targetId, actor.id],
    ] as const) {
      if (await unfollow({ followerId, followeeId }, trx)) await withdraw({ kind: "follow", actorId: followerId, target: { userId: followeeId } }, trx);
    }
  });
  return done({ blocked });
}

/** The actor mutes or unmutes `targetId` (who is not told). */
export async function setMute({ actor, targetId, muted }: { actor: Actor; targetId: string; muted: boolean }): Promise<Outcome<{ muted: boolean }>> {
  const refused = await checkTarget(actor, targetId, PEOPLE_MESSAGES.muteSelf);
  if (refused) return refused;
  await changing([], (trx) => setMuted({ actorId: actor.id, targetId, on: muted }, trx));
  return done({ muted });
}
