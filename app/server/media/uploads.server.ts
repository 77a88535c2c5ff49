import { db, type DB } from "../db/connection.server";
import { storeImage } from "./images.server";
import { cardUrlOf, copyNameOf, listStoredFiles, PHOTO_COPIES, removeStoredFile, storedNameOf, StoreUnavailableError } from "./storage.server";
import { log } from "../observability/log.server";

// Stored photos over time (docs/rules.md#images): the few a person's unsaved forms carry, and
// removing files once nothing refers to them — at once when a write replaces a picture, or by
// the sweep (the production server runs it every few hours) for what abandoned forms left.

/** How many photos chosen with submissions that saved nothing are kept per person (docs/rules.md#images). */
export const PENDING_UPLOADS_KEPT = 3;

/**
 * A person's photo chosen with a submission that saved nothing (the editor's row buttons and
 * import without JavaScript): stored so the form can carry it and remembered as theirs.
 */
export async function storePendingUpload(userId: string, input: Buffer | Uint8Array): Promise<{ url: string; cardUrl: string }> {
  const stored = await storeImage(input);
  await rememberPendingUpload(userId, stored.url);
  return stored;
}

/**
 * Remembers a stored photo as `userId`'s pending upload and removes at once their older ones that
 * nothing uses (only the last PENDING_UPLOADS_KEPT stay): submissions that never save cannot fill the store.
 */
export async function rememberPendingUpload(userId: string, url: string): Promise<void> {
  const now = Date.now();
  await db
    .insertInto("pending_uploads")
    .values({ user_id: userId, url, created_at: now })
    .onConflict((oc) => oc.columns(["user_id", "url"]).doUpdateSet({ created_at: now }))
    .execute();
  const older = await db
    .selectFrom("pending_uploads")
    .select("url")
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc")
    .orderBy("url")
    .limit(1000)
    .offset(PENDING_UPLOADS_KEPT)
    .execute();
  for (const old of older) await dropPendingUpload(userId, old.url);
}

/** `userId`'s pending uploads `urls` are settled (a save used them or passed them over): no longer kept for a form. */
export async function forgetPendingUploads(userId: string, urls: readonly string[], database: DB = db): Promise<void> {
  if (urls.length > 0) await database.deleteFrom("pending_uploads").where("user_id", "=", userId).where("url", "in", urls).execute();
}

/** `userId` no longer needs the pending upload `url`: its file goes unless something (or someone else) uses it. */
export async function dropPendingUpload(userId: string, url: string): Promise<void> {
  await forgetPendingUploads(userId, [url]);
  await deleteImageIfUnreferenced(url);
}

/**
 * Whether any recipe, post, user or "I made this" entry still points at `url`, or a form keeps it as someone's pending
 * upload (the same photo chosen by two people is one file).
 */
export async function isImageReferenced(url: string, database: DB = db): Promise<boolean> {
  const [recipe, post, user, pending, cook] = await Promise.all([
    database.selectFrom("recipes").select("id").where("photo", "=", url).executeTakeFirst(),
    database.selectFrom("posts").select("id").where("photo", "=", url).executeTakeFirst(),
    database.selectFrom("users").select("id").where("profile", "=", url).executeTakeFirst(),
    database.selectFrom("pending_uploads").select("user_id").where("url", "=", url).executeTakeFirst(),
    database.selectFrom("cooks").select("id").where("photo", "=", url).executeTakeFirst(),
  ]);
  return Boolean(recipe || post || user || pending || cook);
}

/**
 * Deletes a stored image (and its copies) when no recipe, post or user refers to it any more.
 * Anything storage did not produce (default pictures, external URLs) is left alone.
 * Returns true when files were removed. A store that cannot be reached leaves them (logged): the
 * write that called this has happened, and the sweep removes them later.
 */
export async function deleteImageIfUnreferenced(url: string | null | undefined, database: DB = db): Promise<boolean> {
  if (!url) return false;
  const name = storedNameOf(url);
  const cardUrl = cardUrlOf(url);
  if (!name || !cardUrl) return false;
  if (await isImageReferenced(url, database)) return false;
  try {
    await removeStoredFile(name);
    const hash = name.slice(0, -".webp".length);
    for (const copy of PHOTO_COPIES) await removeStoredFile(copyNameOf(hash, copy));
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    log.warn(`${error.message} (left for the sweep of unused uploads)`);
    return false;
  }
  return true;
}

/**
 * Removes uploads that nothing refers to and that are older than `olderThanMs` (pending
 * uploads of abandoned no-JavaScript drafts). Young files are kept: a draft may still use them.
 */
export async function sweepOrphanUploads(
  { olderThanMs = 24 * 60 * 60 * 1000, now = Date.now() }: { olderThanMs?: number; now?: number } = {},
  database: DB = db,
): Promise<string[]> {
  const files = await listStoredFiles();
  // Pending uploads as old as the sweep's age are abandoned forms: forgotten, their files swept.
  await database.deleteFrom("pending_uploads").where("created_at", "<=", now - olderThanMs).execute();
  const candidates = files.filter((file) => now - file.modifiedMs >= olderThanMs);
  if (candidates.length === 0) return [];
  const referenced = new Set<string>();
  const rows = await Promise.all([
    database.selectFrom("recipes").select("photo as url").where("photo", "like", "/uploads/%").execute(),
    database.selectFrom("posts").select("photo as url").where("photo", "like", "/uploads/%").execute(),
    database.selectFrom("users").select("profile as url").where("profile", "like", "/uploads/%").execute(),
    database.selectFrom("pending_uploads").select("url").execute(),
    database.selectFrom("cooks").select("photo as url").where("photo", "like", "/uploads/%").execute(),
  ]);
  for (const row of rows.flat()) {
    if (!row.url) continue;
    const name = storedNameOf(row.url);
    if (name) referenced.add(name.slice(0, 64));
  }
  const removed: string[] = [];
  for (const file of candidates) {
    if (referenced.has(file.name.slice(0, 64))) continue;
    await removeStoredFile(file.name);
    removed.push(file.name);
  }
  return removed;
}
