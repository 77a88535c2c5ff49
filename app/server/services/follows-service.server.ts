import type { RawBuilder, SqlBool } from "kysely";

import { canActFor } from "~/lib/permissions";

import { CacheScope, changing } from "../cache/scopes.server";
import type { DB } from "../db/connection.server";
import { follow, unfollow } from "../queries/follows.server";
import { getSessionUserById } from "../queries/users.server";
import { notify, withdraw } from "./notifications-service.server";
import { done, refusal, RefusedError, refusing, type Actor, type Outcome } from "./outcome-service.server";
import { writeIfOpen } from "./people-service.server";

// Follows, for the profile pages and the API alike (docs/rules.md#follows). A follow is one row,
// so both people's lists always agree; every write here is idempotent. What a visitor's kept page
// shows of a follow is both people's lists in the JSON API (profiles are for signed-in people).

export const FOLLOW_MESSAGES = {
  self: "You cannot follow yourself.",
  selfRemove: "You cannot remove yourself from your followers.",
  missing: "User not found.",
  notYours: "You may only change your own followers.",
} as const;

/** Follows or unfollows inside `trx`, telling the person followed or taking that back when it changed something. */
async function storeFollowing(
  trx: DB,
  { followerId, followeeId, following, onlyIf = null }: { followerId: string; followeeId: string; following: boolean; /** A block's condition (writeIfOpen). */ onlyIf?: RawBuilder<SqlBool> | null },
): Promise<boolean> {
  const changed = following ? await follow({ followerId, followeeId, onlyIf }, trx) : await unfollow({ followerId, followeeId }, trx);
  if (!changed) return false;
  const notice = { kind: "follow", actorId: followerId, target: { userId: followeeId } } as const;
  await (following ? notify({ ...notice, about: { recipient: followeeId, post_id: null, recipe_id: null } }, trx) : withdraw(notice, trx));
  return true;
}

/** The actor starts or stops following `targetId`. Answers whether they follow them now. */
export async function setFollowing({ actor, targetId, following }: { actor: Actor; targetId: string; following: boolean }): Promise<Outcome<{ following: boolean }>> {
  if (targetId === actor.id) return refusal(400, FOLLOW_MESSAGES.self);
  // One transaction: the follow and its notification land together; a block between the two
  // refuses a follow. Whether they exist is read in it too, with the block (one query).
  return refusing(async () => {
    await changing([CacheScope.user(actor.id), CacheScope.user(targetId)], async (trx) => {
      // A follow carries the block's condition (and that they exist) in its own insert: nothing
      // written means a refusal, or a follow there already (writeIfOpen).
      if (following) {
        await writeIfOpen(trx, actor.id, targetId, (onlyIf) => storeFollowing(trx, { followerId: actor.id, followeeId: targetId, following, onlyIf }), { missing: FOLLOW_MESSAGES.missing });
      } else {
        if (!(await getSessionUserById(targetId, trx))) throw new RefusedError(refusal(404, FOLLOW_MESSAGES.missing));
        await storeFollowing(trx, { followerId: actor.id, followeeId: targetId, following });
      }
    });
    // Nothing refused: the follow is as asked (a follow is one row, written idempotently).
    return done({ following });
  });
}

/** `ownerId` stops being followed by `followerId`: the owner themselves, or an ADMIN. */
export async function removeFollower({ actor, ownerId, followerId }: { actor: Actor; ownerId: string; followerId: string }): Promise<Outcome> {
  if (!canActFor(actor, ownerId)) return refusal(403, FOLLOW_MESSAGES.notYours);
  if (followerId === ownerId) return refusal(400, FOLLOW_MESSAGES.selfRemove);
  if (!(await getSessionUserById(followerId))) return refusal(404, FOLLOW_MESSAGES.missing);
  await changing([CacheScope.user(ownerId), CacheScope.user(followerId)], (trx) => storeFollowing(trx, { followerId, followeeId: ownerId, following: false }));
  return done();
}
