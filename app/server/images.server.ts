import { unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";
import sharp, { type Metadata, type OutputInfo } from "sharp";

import { db, type DB } from "./db.server";
import { concurrencyGate } from "./rate-limit.server";
import { env } from "./env.server";
import {
  cardUrlOf,
  contentHash,
  listStoredFiles,
  removeStoredFile,
  storedFileExists,
  storedNameOf,
  StoreUnavailableError,
  urlOf,
  writeStoredFile,
} from "./storage.server";

// The image pipeline (docs/rules.md#images): every uploaded picture — recipe photos,
// profile photos, data URLs sent to the API — is decoded by sharp, turned upright, stripped of
// metadata, shrunk to at most 800 px on the longer side and re-encoded as WebP under 0.5 MB
// (quality lowered step by step, up to 10 tries), plus a ~400 px variant for cards.

export const IMAGE_LIMITS = {
  /** Bytes received for one file. */
  maxFileBytes: 10 * 1024 * 1024,
  /** Bytes of a whole form with photos: two files and the text around them. */
  maxFormBytes: 22 * 1024 * 1024,
  /** Longer side of the stored image. */
  maxSide: 800,
  /** Longer side of the card variant. */
  cardSide: 400,
  /** Size of the stored image. */
  maxBytes: 500 * 1024,
  /** Encoding attempts, each at a lower quality. */
  maxTries: 10,
  /** Decoded pixels (width × height) we agree to work on: a guard against decompression bombs. */
  maxInputPixels: 64_000_000,
} as const;

export const IMAGE_MESSAGES = {
  failed: "Failed to process the image. Please try again.",
  notAnImage: "Please choose an image file.",
  tooLarge: "The image is too large (10 MB at most).",
  tooManyPixels: "The image is too large (64 megapixels at most).",
  cannotShrink: "The image could not be made smaller than 0.5 MB. Please choose another image.",
  formTooLarge: "The form is too large to send.",
  unreadableForm: "The form could not be read. Please try again.",
  notAForm: "Please send the form as a web form (application/x-www-form-urlencoded or multipart/form-data).",
  /** The image store (an S3 bucket, the uploads folder) did not take the file: nothing was saved. */
  notStored: "The photo could not be stored. Please try again.",
} as const;

/** A refused image or upload; `message` is meant for the user, `status` for the response. */
export class ImageError extends Error {
  status: number;
  constructor(message: string, status = 400) {
    super(message);
    this.name = "ImageError";
    this.status = status;
  }
}

// Formats sharp decodes that people upload as photos. SVG and PDF are refused on purpose:
// they are documents that can reference other files, not pictures.
const ACCEPTED_FORMATS = new Set(["jpeg", "png", "webp", "gif", "avif", "heif", "tiff"]);
const FIRST_QUALITY = 82;
const QUALITY_STEP = 8;
const MIN_QUALITY = 8;

export interface ProcessedImage {
  main: Buffer;
  card: Buffer;
  width: number;
  height: number;
  quality: number;
  tries: number;
}

type Limits = { -readonly [K in keyof typeof IMAGE_LIMITS]: number };

/**
 * Every picture decoded in this process waits its turn here, whichever door it came through
 * (page forms, API data URLs, sign-up, import by link): a decode holds up to hundreds of MB, so
 * at most as many run at once as the server lets photo uploads in (4).
 */
export const imageDecodes = concurrencyGate(4);

/** Decodes, orients, strips, shrinks and re-encodes one image in memory; stores nothing. */
export function processImage(input: Buffer | Uint8Array, options: Partial<Limits> = {}): Promise<ProcessedImage> {
  return imageDecodes(() => processImageNow(input, options));
}

async function processImageNow(input: Buffer | Uint8Array, options: Partial<Limits>): Promise<ProcessedImage> {
  const limits: Limits = { ...IMAGE_LIMITS, ...options };
  if (input.byteLength === 0) throw new ImageError(IMAGE_MESSAGES.notAnImage, 400);
  if (input.byteLength > limits.maxFileBytes) throw new ImageError(IMAGE_MESSAGES.tooLarge, 413);

  // The header alone tells the format and the size, before any pixel is decoded. sharp's own
  // pixel limit is off for this header read only: with it, a 400-megapixel bomb was refused as
  // "not an image" instead of "too large"; our limit below (and on the decode) still applies.
  let metadata: Metadata;
  try {
    metadata = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw new ImageError(IMAGE_MESSAGES.notAnImage, 400);
  }
  if (!metadata.format || !ACCEPTED_FORMATS.has(metadata.format)) throw new ImageError(IMAGE_MESSAGES.notAnImage, 400);
  if (!metadata.width || !metadata.height) throw new ImageError(IMAGE_MESSAGES.failed, 400);
  if (metadata.width * metadata.height > limits.maxInputPixels) throw new ImageError(IMAGE_MESSAGES.tooManyPixels, 413);

  // Decode and shrink once to raw pixels; each quality attempt below only re-encodes.
  let raw: { data: Buffer; info: OutputInfo };
  try {
    raw = await sharp(input, { limitInputPixels: limits.maxInputPixels, failOn: "error" })
      .rotate()
      .resize({ width: limits.maxSide, height: limits.maxSide, fit: "inside", withoutEnlargement: true })
      .toColourspace("srgb")
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    throw new ImageError(IMAGE_MESSAGES.failed, 400);
  }
  const { width, height, channels } = raw.info;
  const fromRaw = () => sharp(raw.data, { raw: { width, height, channels } });

  let quality = FIRST_QUALITY;
  for (let attempt = 1; attempt <= limits.maxTries; attempt += 1) {
    const main = await fromRaw().webp({ quality, effort: 4 }).toBuffer();
    if (main.byteLength <= limits.maxBytes) {
      const card = await fromRaw()
        .resize({ width: limits.cardSide, height: limits.cardSide, fit: "inside", withoutEnlargement: true })
        .webp({ quality: Math.min(quality, 78), effort: 4 })
        .toBuffer();
      return { main, card, width, height, quality, tries: attempt };
    }
    quality = Math.max(MIN_QUALITY, quality - QUALITY_STEP);
  }
  throw new ImageError(IMAGE_MESSAGES.cannotShrink, 413);
}

/** An unreachable store as the user's message (503); anything else is left as it is. */
function storeProblem(error: unknown): unknown {
  if (!(error instanceof StoreUnavailableError)) return error;
  console.warn(error.message);
  return new ImageError(IMAGE_MESSAGES.notStored, 503);
}

/**
 * Writes a processed image (card first, so a main file always has its card). A store that cannot
 * be reached is an ImageError (503, IMAGE_MESSAGES.notStored); a card written before the failure
 * is an orphan the sweep removes.
 */
export async function storeProcessedImage(image: ProcessedImage): Promise<{ url: string; cardUrl: string }> {
  const hash = contentHash(image.main);
  try {
    await writeStoredFile(`${hash}.card.webp`, image.card);
    await writeStoredFile(`${hash}.webp`, image.main);
  } catch (error) {
    throw storeProblem(error);
  }
  scheduleSweep();
  return { url: urlOf(`${hash}.webp`), cardUrl: urlOf(`${hash}.card.webp`) };
}

/** The whole pipeline: process, then store content-addressed. The same picture twice gives the same URL. */
export async function storeImage(input: Buffer | Uint8Array): Promise<{ url: string; cardUrl: string }> {
  return storeProcessedImage(await processImage(input));
}

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
 * True when `url` is a main image that storage produced and still holds (pending uploads come back
 * this way). A store that cannot be reached is an ImageError (503): the answer is not known.
 */
export async function isStoredImageUrl(url: unknown): Promise<boolean> {
  const name = storedNameOf(url);
  if (name === null || cardUrlOf(url as string) === null) return false;
  try {
    return await storedFileExists(name);
  } catch (error) {
    throw storeProblem(error);
  }
}

// ---------------------------------------------------------------------------------------------
// Reading multipart forms with limits

export interface MultipartOptions {
  /** Bytes per file; a bigger file is refused (default 10 MB). */
  maxFileBytes?: number;
  /** Bytes per text field (default 100 KB). */
  maxFieldBytes?: number;
  /** Parts in one form (default 2,000). */
  maxParts?: number;
  /** Bytes in the whole body (default IMAGE_LIMITS.maxFormBytes). */
  maxBodyBytes?: number;
}

export interface LenientMultipart {
  formData: FormData;
  /** File fields that were over `maxFileBytes`: left out of `formData`, their bytes discarded. */
  oversizedFiles: string[];
}

/**
 * Reads a form (multipart or urlencoded) within limits, never holding more than one file's
 * allowance in memory. A file over the limit is drained and left out (its field name is reported)
 * so the other fields survive and the page can show what was typed with a message; only a body
 * over `maxBodyBytes`, too many parts or a malformed body throw an ImageError.
 */
export async function readMultipartFormLenient(request: Request, options: MultipartOptions = {}): Promise<LenientMultipart> {
  const maxFileBytes = options.maxFileBytes ?? IMAGE_LIMITS.maxFileBytes;
  const maxFieldBytes = options.maxFieldBytes ?? 100 * 1024;
  const maxParts = options.maxParts ?? 2000;
  const maxBodyBytes = options.maxBodyBytes ?? IMAGE_LIMITS.maxFormBytes;

  const declared = Number(request.headers.get("Content-Length") ?? "");
  if (Number.isFinite(declared) && declared > maxBodyBytes) throw new ImageError(bodyTooLargeMessage(maxFileBytes), 413);

  const contentType = request.headers.get("Content-Type") ?? "";
  const body = cappedBody(request, maxBodyBytes, maxFileBytes);
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    // Only what a browser's form sends: urlencoded, or nothing at all. Any other type (text/plain,
    // JSON, XML) is refused rather than read as if it were a form.
    const bytes = body ? new Uint8Array(await new Response(body).arrayBuffer().catch(rethrowCap)) : new Uint8Array();
    if (!/^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(contentType) && !(contentType === "" && bytes.byteLength === 0)) {
      throw new ImageError(IMAGE_MESSAGES.notAForm, 415);
    }
    const formData = parseUrlEncodedStrictly(bytes);
    if (!formData) throw new ImageError(IMAGE_MESSAGES.unreadableForm, 400);
    if ([...formData.keys()].length > maxParts) throw new ImageError(IMAGE_MESSAGES.formTooLarge, 413);
    return { formData, oversizedFiles: [] };
  }

  const oversizedFiles: string[] = [];
  let parts = 0;
  const handler: UploadHandler = async ({ name, filename, contentType: partType, data }) => {
    parts += 1;
    if (parts > maxParts) throw new ImageError(IMAGE_MESSAGES.formTooLarge, 413);
    const isFile = typeof filename === "string";
    const limit = isFile ? maxFileBytes : maxFieldBytes;
    const chunks: Uint8Array[] = [];
    let size = 0;
    let over = false;
    for await (const chunk of data) {
      size += chunk.byteLength;
      if (size > limit) {
        if (!isFile) throw new ImageError(IMAGE_MESSAGES.formTooLarge, 413);
        over = true; // keep draining (counted against maxBodyBytes) but hold nothing
        chunks.length = 0;
        continue;
      }
      if (!over) chunks.push(chunk);
    }
    if (over) {
      oversizedFiles.push(name);
      return undefined;
    }
    if (!isFile) {
      try {
        return STRICT_UTF8.decode(concat(chunks, size));
      } catch {
        throw new ImageError(IMAGE_MESSAGES.unreadableForm, 400);
      }
    }
    // A file input left empty arrives as a nameless, empty part: treat it as "no file".
    if (!filename && size === 0) return undefined;
    return new File([concat(chunks, size)], filename || "upload", { type: partType || "application/octet-stream" });
  };

  try {
    const counted = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      // Required by undici for a streamed body.
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    const formData = await unstable_parseMultipartFormData(counted, handler);
    return { formData, oversizedFiles };
  } catch (error) {
    return rethrowCap(error);
  }
}

/**
 * Reads a form with at most `maxFileBytes` (default 10 MB) per file: a bigger file, a body
 * over the limits or a malformed body is refused with an ImageError (413 or 400) before more
 * than the allowance is held in memory.
 */
export async function readMultipartForm(request: Request, options: MultipartOptions = {}): Promise<FormData> {
  const { formData, oversizedFiles } = await readMultipartFormLenient(request, options);
  if (oversizedFiles.length > 0) {
    throw new ImageError(bodyTooLargeMessage(options.maxFileBytes ?? IMAGE_LIMITS.maxFileBytes), 413);
  }
  return formData;
}

/** A chosen file from a form, or null when the field is absent or left empty. */
export async function fileBytes(value: FormDataEntryValue | null): Promise<Uint8Array | null> {
  if (value === null || typeof value === "string") return null;
  if (value.size === 0 && !value.name) return null;
  return new Uint8Array(await value.arrayBuffer());
}

function bodyTooLargeMessage(maxFileBytes: number): string {
  if (maxFileBytes === IMAGE_LIMITS.maxFileBytes) return IMAGE_MESSAGES.tooLarge;
  return `The image is too large (${Math.round((maxFileBytes / 1024 / 1024) * 10) / 10} MB at most).`;
}

class BodyCapError extends Error {}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A urlencoded body as a form, or null when it is not text a browser could have sent: raw bytes
 * or percent-escapes that are not UTF-8 are refused instead of being stored as U+FFFD. Otherwise
 * read as browsers write it (`+` is a space; a `%` not followed by two hex digits stays as it is).
 */
function parseUrlEncodedStrictly(bytes: Uint8Array): FormData | null {
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
  const formData = new FormData();
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const name = decodeComponent(equals < 0 ? pair : pair.slice(0, equals));
    const value = decodeComponent(equals < 0 ? "" : pair.slice(equals + 1));
    if (name === null || value === null) return null;
    formData.append(name, value);
  }
  return formData;
}

function decodeComponent(component: string): string | null {
  const spaced = component.replaceAll("+", " ");
  if (!spaced.includes("%")) return spaced;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < spaced.length; i++) {
    const char = spaced.charCodeAt(i);
    const hex = char === 0x25 ? spaced.slice(i + 1, i + 3) : "";
    if (hex.length === 2 && /^[0-9a-f]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      const codePoint = spaced.codePointAt(i)!;
      if (codePoint > 0xffff) i += 1;
      bytes.push(...encoder.encode(String.fromCodePoint(codePoint)));
    }
  }
  try {
    return STRICT_UTF8.decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

/** The request body, erroring as soon as more than `max` bytes have arrived. */
function cappedBody(request: Request, max: number, maxFileBytes: number): ReadableStream<Uint8Array> | null {
  if (!request.body) return null;
  let total = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > max) {
        controller.error(new BodyCapError(bodyTooLargeMessage(maxFileBytes)));
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return request.body.pipeThrough(counter);
}

function rethrowCap(error: unknown): never {
  if (error instanceof ImageError) throw error;
  if (error instanceof BodyCapError) throw new ImageError(error.message, 413);
  const cause = error instanceof Error ? (error as Error & { cause?: unknown }).cause : undefined;
  if (cause instanceof BodyCapError) throw new ImageError(cause.message, 413);
  if (cause instanceof ImageError) throw cause;
  throw new ImageError(IMAGE_MESSAGES.unreadableForm, 400);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Removing images nothing refers to

/**
 * Whether any recipe, post or user still points at `url`, or a form keeps it as someone's pending
 * upload (the same photo chosen by two people is one file).
 */
export async function isImageReferenced(url: string, database: DB = db): Promise<boolean> {
  const [recipe, post, user, pending] = await Promise.all([
    database.selectFrom("recipes").select("id").where("photo", "=", url).executeTakeFirst(),
    database.selectFrom("posts").select("id").where("photo", "=", url).executeTakeFirst(),
    database.selectFrom("users").select("id").where("profile", "=", url).executeTakeFirst(),
    database.selectFrom("pending_uploads").select("user_id").where("url", "=", url).executeTakeFirst(),
  ]);
  return Boolean(recipe || post || user || pending);
}

/**
 * Deletes a stored image (and its card) when no recipe, post or user refers to it any more.
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
    const cardName = storedNameOf(cardUrl);
    if (cardName) await removeStoredFile(cardName);
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    console.warn(`${error.message} (left for the sweep of unused uploads)`);
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
  ]);
  for (const row of rows.flat()) {
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

const SWEEP_EVERY_MS = 6 * 60 * 60 * 1000;
let lastSweep = 0;

// Runs the sweep now and then, after a store. Never against an in-memory SQLite database (tests):
// it knows no references there and would treat every real upload as an orphan. With DATABASE_URL
// the database is PostgreSQL, a real one whatever DATABASE_PATH says: the sweep runs.
function scheduleSweep(): void {
  if (env.DATABASE_PATH === ":memory:" && !env.DATABASE_URL) return;
  const now = Date.now();
  if (now - lastSweep < SWEEP_EVERY_MS) return;
  lastSweep = now;
  sweepOrphanUploads().catch((error: unknown) => {
    console.warn("Sweeping unused uploads failed:", error);
  });
}

// ---------------------------------------------------------------------------------------------
// A picture a write will set

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
