import { ImageError, storeProcessedImage, type ProcessedImage } from "./images.server";

// A picture a write will set (recipe and post photos, profile pictures): planned before the
// write (nothing stored yet), applied by the service that makes it.

/** What a write does with a picture: keep it, set an address, or store an upload (already processed in memory). */
export type PicturePlan = { kind: "keep" } | { kind: "set"; url: string } | { kind: "upload"; image: ProcessedImage };

/** A picture applied: its URL and whether a new file was written; or the store did not take the upload. */
export type AppliedPicture = { ok: true; url: string; uploaded: boolean } | { ok: false; status: 503; message: string };

/**
 * Stores a planned upload; returns the picture's URL (`current` when kept) and whether a new file
 * was written. When the store cannot be reached the answer says so (`ok: false`) rather than
 * throwing, so every service turns it into a refusal before it writes anything.
 */
export async function applyPicture(plan: PicturePlan, current: string): Promise<AppliedPicture> {
  if (plan.kind === "keep") return { ok: true, url: current, uploaded: false };
  if (plan.kind === "set") return { ok: true, url: plan.url, uploaded: false };
  try {
    return { ok: true, url: (await storeProcessedImage(plan.image)).url, uploaded: true };
  } catch (error) {
    if (error instanceof ImageError && error.status === 503) return { ok: false, status: 503, message: error.message };
    throw error;
  }
}
