import { COOK_MESSAGES } from "~/lib/cook-limits";
import { canActFor } from "~/lib/permissions";

import { LimitReachedError, takeUploadSlot } from "../auth/limits.server";
import { CacheScope, changing } from "../cache/scopes.server";
import { ImageError, processImage } from "../media/images.server";
import { applyPicture, type PicturePlan } from "../media/pictures.server";
import { storedNameOf } from "../media/storage.server";
import { deleteImageIfUnreferenced } from "../media/uploads.server";
import { deleteCook, getOwnCook, insertCook, updateCook, type CookFields } from "../queries/cooks.server";
import { getRecipeCreator } from "../queries/recipes.server";
import { writeLog } from "../queries/reports.server";
import { CookSchema } from "../validation/cook-schema.server";
import { notify, withdraw } from "./notifications-service.server";
import { done, refusal, refusing, RefusedError, type Actor, type Outcome, type RefusalStatus } from "./outcome-service.server";
import { refuseIfBlocked } from "./people-service.server";

// "I made this" (docs/rules.md#i-made-this), for the recipe page's form and the JSON API alike.
// One entry per person and recipe, never on one's own recipe, never across a block; the recipe's
// creator is told of a new entry (grouped like likes). An entry shows on its recipe's page, on
// recipe cards (the average) and on its author's profile: those are the page-cache scopes it
// changes.

/** How a write meets an entry the person may already have. */
export type CookMode = "add" | "edit" | "upsert";

export interface SavedCook {
  created: boolean;
}

/**
 * What to do with the entry's photo: null keeps it, a "set" to "" removes it, and a function reads
 * an upload — called only once the entry itself is known to be acceptable, so a refused entry
 * costs no image decoding and none of the person's uploads.
 */
export type CookPhoto = PicturePlan | null | (() => Promise<Outcome<PicturePlan>>);

/** Adds or changes the actor's entry for a recipe. `fields` as typed or sent (validated here). */
export async function saveCook({
  actor,
  recipeId,
  fields,
  photo,
  mode,
}: {
  actor: Actor;
  recipeId: string;
  fields: Record<string, unknown>;
  photo: CookPhoto;
  mode: CookMode;
}): Promise<Outcome<SavedCook>> {
  const parsed = CookSchema.safeParse(fields);
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "rating")] ??= issue.message;
    return refusal(400, Object.values(errors)[0] ?? COOK_MESSAGES.rating, { errors });
  }
  const creatorId = await getRecipeCreator(recipeId);
  if (creatorId === undefined) return refusal(404, COOK_MESSAGES.recipeMissing);
  if (creatorId === actor.id) return refusal(403, COOK_MESSAGES.ownRecipe);
  const existing = await getOwnCook(actor.id, recipeId);
  if (existing && mode === "add") return refusal(409, COOK_MESSAGES.already);
  if (!existing && mode === "edit") return refusal(404, COOK_MESSAGES.missing);

  const planned = typeof photo === "function" ? await photo() : done(photo ?? { kind: "keep" as const });
  if (!planned.ok) return planned;
  // An entry's photo is an upload, never an address: a picture elsewhere would be loaded by every
  // reader of the recipe page (a tracking pixel). "" removes it.
  if (planned.value.kind === "set" && planned.value.url !== "" && storedNameOf(planned.value.url) === null) {
    return refusal(400, COOK_MESSAGES.photoUploadOnly, { errors: { photo: COOK_MESSAGES.photoUploadOnly } });
  }
  const previous = existing?.photo ?? null;
  const applied = await applyPicture(planned.value, previous ?? "");
  if (!applied.ok) return refusal(applied.status, applied.message, { errors: { photo: applied.message } });
  const entry: CookFields = { ...parsed.data, photo: applied.url === "" ? null : applied.url };

  // A new photo stored for a write that then fails (refused, or the database gave up) is removed.
  const dropUpload = () => (applied.uploaded ? deleteImageIfUnreferenced(applied.url) : Promise.resolve(false));
  const outcome = await refusing(async () => {
    const created = await changing([CacheScope.recipe(recipeId), CacheScope.user(actor.id), CacheScope.search], async (trx) => {
      await refuseIfBlocked(trx, actor.id, creatorId);
      // Two tabs sending at once: the unique index lets one insert; the other changes that entry
      // (or, adding, is told it exists).
      if (await insertCook(actor.id, recipeId, entry, trx)) {
        await notify({ kind: "cooked", actorId: actor.id, target: { recipeId } }, trx);
        return true;
      }
      if (mode === "add") throw new RefusedError(refusal(409, COOK_MESSAGES.already));
      await updateCook(actor.id, recipeId, entry, trx);
      return false;
    });
    return done({ created });
  }).catch(async (error: unknown) => {
    await dropUpload();
    throw error;
  });
  if (!outcome.ok) {
    await dropUpload();
  } else if (previous && previous !== entry.photo) {
    await deleteImageIfUnreferenced(previous);
  }
  return outcome;
}

/**
 * Removes an entry: its author's own, or anyone's by an ADMIN (written to the moderation log).
 * Its unread notification goes too.
 */
export async function removeCook({ actor, recipeId, userId = actor.id }: { actor: Actor; recipeId: string; userId?: string }): Promise<Outcome> {
  if (!canActFor(actor, userId)) return refusal(403, COOK_MESSAGES.notYours);
  const removed = await changing([CacheScope.recipe(recipeId), CacheScope.user(userId), CacheScope.search], async (trx) => {
    const gone = await deleteCook(userId, recipeId, trx);
    if (!gone) return undefined;
    await withdraw({ kind: "cooked", actorId: userId, target: { recipeId } }, trx);
    if (userId !== actor.id) {
      const recipe = await trx.selectFrom("recipes").select("name").where("id", "=", recipeId).executeTakeFirst();
      const summary = `${recipe?.name ?? "a recipe"}: ${gone.rating} of 5${gone.note ? ` \u2014 ${gone.note}` : ""}`;
      await writeLog({ moderatorId: actor.id, action: "remove", kind: "cook", targetId: gone.id, targetUserId: userId, summary, why: "" }, trx);
    }
    return gone;
  });
  if (!removed) return refusal(404, COOK_MESSAGES.missing);
  await deleteImageIfUnreferenced(removed.photo);
  return done();
}

/**
 * A photo chosen with an entry, stored only once saveCook has accepted the rest (it calls this
 * last): counted against the person's uploads, then run through the image pipeline. Over the
 * limit 429, a refused image 400, the image store away 503, each beside the photo field.
 */
export function uploadedCookPhoto(userId: string, bytes: Uint8Array): () => Promise<Outcome<PicturePlan>> {
  return async () => {
    try {
      await takeUploadSlot(userId);
      return done({ kind: "upload", image: await processImage(bytes) });
    } catch (error) {
      if (error instanceof LimitReachedError) return refusal(429, error.message, { errors: { photo: error.message } });
      if (!(error instanceof ImageError)) throw error;
      return refusal(error.status as RefusalStatus, error.message, { errors: { photo: error.message } });
    }
  };
}
