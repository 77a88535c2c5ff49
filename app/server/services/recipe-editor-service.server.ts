import { FIELD, type RecipeDraft } from "~/lib/recipe-form";
import { RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";

import { LimitReachedError, takeUploadSlot } from "../auth/limits.server";
import { checkImageHeader, IMAGE_MESSAGES, ImageError, processImage, type ProcessedImage } from "../media/images.server";
import type { PicturePlan } from "../media/pictures.server";
import { dropPendingUpload, storePendingUpload } from "../media/uploads.server";
import { validateRecipeDraft } from "../validation/recipe-schema.server";
import type { Actor, Refusal } from "./outcome-service.server";
import { createRecipe, updateRecipe } from "./recipes-service.server";

// The recipe editor's Save (docs/rules.md#recipe-editor): everything is checked first — the draft,
// the creator a forged form may claim, the photo — and nothing is stored unless all of it is
// acceptable; then the recipe is created or updated by the recipes service, as the API's are.

export const EDITOR_MESSAGES = {
  creatorFixed: "The creator of a recipe cannot be changed.",
} as const;

export interface EditorSave {
  actor: Actor;
  recipeId: string;
  /** The stored recipe's creator, or undefined for a new recipe. */
  existing: { creatorId: string | null } | undefined;
  draft: RecipeDraft;
  /** The creator the form names in any field a forged request might use (fields absent: none). */
  claimedCreators: string[];
  /** The photo chosen with this Save: its bytes, or that it was over the limit. */
  photo: { bytes: Uint8Array | null; tooLarge: boolean };
  /** A photo an earlier submission of this form stored (checked to be ours by the door). */
  pendingPhoto: string | null;
}

/** Why nothing was saved, for the form: messages per field and for the form, and whether a good photo was dropped. */
export interface EditorRefusal {
  status: 400 | 503;
  fieldErrors: Record<string, string>;
  formError: string | null;
  /** A good photo is not stored for a refused save (no orphan files): it must be chosen again. */
  photoNotKept: boolean;
}

export type EditorSaveOutcome =
  | { ok: true; value: { postId: string; tagsCut: boolean } }
  | { ok: false; invalid: EditorRefusal }
  | { ok: false; refusal: Refusal };

export async function saveEditorDraft({ actor, recipeId, existing, draft, claimedCreators, photo, pendingPhoto }: EditorSave): Promise<EditorSaveOutcome> {
  const validation = validateRecipeDraft(draft);
  const fieldErrors: Record<string, string> = validation.ok ? {} : { ...validation.fieldErrors };
  const creatorId = existing ? existing.creatorId : actor.id;
  const formError = claimedCreators.some((claimed) => claimed !== creatorId) ? EDITOR_MESSAGES.creatorFixed : null;

  let processed: ProcessedImage | null = null;
  let photoChosen = photo.tooLarge;
  if (photo.tooLarge) fieldErrors[FIELD.photo] = IMAGE_MESSAGES.tooLarge;
  else if (photo.bytes) {
    photoChosen = true;
    try {
      if (!validation.ok || formError) {
        // Refused anyway, so nothing is stored: the header tells whether the photo would do.
        await checkImageHeader(photo.bytes);
      } else {
        await takeUploadSlot(actor.id);
        processed = await processImage(photo.bytes);
      }
    } catch (error) {
      if (!(error instanceof ImageError) && !(error instanceof LimitReachedError)) throw error;
      fieldErrors[FIELD.photo] = error.message;
    }
  }
  if (!validation.ok || formError || fieldErrors[FIELD.photo]) {
    return { ok: false, invalid: { status: 400, fieldErrors, formError, photoNotKept: photoChosen && !fieldErrors[FIELD.photo] } };
  }

  // A photo chosen now wins; else the one kept from an earlier submission of this form; else the
  // recipe's own (or, for a new recipe, the placeholder).
  const plan: PicturePlan = processed ? { kind: "upload", image: processed } : pendingPhoto ? { kind: "set", url: pendingPhoto } : { kind: "keep" };
  const pendingUploads = pendingPhoto ? [pendingPhoto] : [];
  const input = validation.value;
  const saved = existing
    ? await updateRecipe({ actor, recipeId, input, photo: plan, pendingUploads })
    : await createRecipe({ actor, recipeId, postId: crypto.randomUUID(), input, photo: plan, fallbackPhoto: RECIPE_PLACEHOLDER_IMAGE, pendingUploads });
  if (saved.ok) return { ok: true, value: { postId: saved.value.postId, tagsCut: validation.tagsCut } };
  // The image store did not take the photo: nothing was written; the form comes back as typed.
  if (saved.status === 503) return { ok: false, invalid: { status: 503, fieldErrors: { [FIELD.photo]: saved.message }, formError: saved.message, photoNotKept: false } };
  return { ok: false, refusal: saved };
}

/**
 * A photo chosen with a submission that saves nothing is stored now and carried as the pending
 * photo: counted against the person's uploads, and only their last few such photos are kept.
 */
export async function keepDraftPhoto(userId: string, bytes: Uint8Array | null, pendingPhoto: string | null, photoTooLarge: boolean) {
  let pending = pendingPhoto;
  let photoError: string | null = photoTooLarge ? IMAGE_MESSAGES.tooLarge : null;
  // 400 for a refused image, 429 over the upload limit, 503 when the image store could not take it.
  let photoStatus = 400;
  if (bytes) {
    try {
      await takeUploadSlot(userId);
      const stored = await storePendingUpload(userId, bytes);
      if (pending && pending !== stored.url) await dropPendingUpload(userId, pending);
      pending = stored.url;
    } catch (error) {
      if (error instanceof LimitReachedError) {
        photoError = error.message;
        photoStatus = 429;
      } else if (error instanceof ImageError) {
        photoError = error.message;
        photoStatus = error.status === 503 ? 503 : 400;
      } else throw error;
    }
  }
  return { pending, photoError, photoStatus };
}
