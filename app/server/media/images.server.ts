import sharp, { type Metadata, type OutputInfo, type Sharp } from "sharp";

import { concurrencyGate } from "../../lib/concurrency";
import type { PhotoWidth } from "../../lib/photos";
import { UPLOAD_LIMITS, UPLOAD_MESSAGES } from "../../lib/upload-limits";
import {
  cardUrlOf,
  contentHash,
  copyNameOf,
  isAvifCopy,
  PHOTO_COPIES,
  readStoredFile,
  storedFileExists,
  storedNameOf,
  StoreUnavailableError,
  urlOf,
  webpTwinOf,
  writeStoredFile,
  type PhotoCopy,
} from "./storage.server";
import { log } from "../observability/log.server";

// The image pipeline (docs/rules.md#images): every uploaded picture — recipe photos,
// profile photos, data URLs sent to the API — is decoded by sharp, turned upright, stripped of
// metadata, shrunk to at most 800 px on the longer side and re-encoded as WebP under 0.5 MB
// (quality lowered step by step, up to 10 tries), plus its copies: a ~400 px card and narrower
// copies 320, 480 and 640 px wide (app/lib/photos.ts), which pages name in `srcset`, each also in
// AVIF (about half the bytes), which pages offer first in a `<picture>`.

export const IMAGE_LIMITS = {
  /** Bytes received for one file (the form reader's limit). */
  maxFileBytes: UPLOAD_LIMITS.fileBytes,
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
  tooLarge: UPLOAD_MESSAGES.fileTooLarge,
  tooManyPixels: "The image is too large (64 megapixels at most).",
  cannotShrink: "The image could not be made smaller than 0.5 MB. Please choose another image.",
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
  /** The card and the narrower copies, stored beside the main image. */
  copies: Map<PhotoCopy, Buffer>;
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

/**
 * What the file's header tells without decoding a pixel: an accepted format, not too many bytes
 * or pixels. Enough for a save refused anyway (the photo is not stored then), in milliseconds
 * where processing takes a second or two.
 */
export async function checkImageHeader(input: Buffer | Uint8Array, options: Partial<Limits> = {}): Promise<void> {
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
}

async function processImageNow(input: Buffer | Uint8Array, options: Partial<Limits>): Promise<ProcessedImage> {
  const limits: Limits = { ...IMAGE_LIMITS, ...options };
  await checkImageHeader(input, limits);

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
      const copies = await encodeCopies(fromRaw, PHOTO_COPIES, { quality, main, cardSide: limits.cardSide });
      return { main, copies, width, height, quality, tries: attempt };
    }
    quality = Math.max(MIN_QUALITY, quality - QUALITY_STEP);
  }
  throw new ImageError(IMAGE_MESSAGES.cannotShrink, 413);
}

/**
 * AVIF's quality below the WebP copies' (78 at most): at 50 a photo's AVIF looks like its WebP and
 * weighs about half (a camera photo's 800 px copy: 38 KB against 73 KB).
 */
const AVIF_QUALITY_BELOW_WEBP = 28;
/** sharp's AVIF effort: 2 of 9 takes a third of a second for 800 px; 4 took ten times longer for 10% fewer bytes. */
const AVIF_EFFORT = 2;

/** The picture at a copy's size: the card fits `cardSide` on its longer side, a width copy is that wide (never wider than the picture). */
function resizedTo(pixels: Sharp, size: "card" | PhotoWidth | null, cardSide: number): Sharp {
  if (size === null) return pixels;
  const box = size === "card" ? { width: cardSide, height: cardSide, fit: "inside" as const } : { width: size };
  return pixels.resize({ ...box, withoutEnlargement: true });
}

/**
 * Encodes copies of a decoded picture (`main` is its stored WebP; `storedCopy` reads a WebP copy
 * already stored, for an AVIF twin made later). An AVIF twin keeps the WebP's bytes when AVIF does
 * not come out smaller (flat drawings, tiny pictures): the name always holds the smaller file, and
 * the browser reads its type from the answer.
 */
async function encodeCopies(
  fromPixels: () => Sharp,
  copies: readonly PhotoCopy[],
  {
    quality,
    main,
    storedCopy = async () => null,
    cardSide = IMAGE_LIMITS.cardSide,
  }: { quality: number; main: Buffer; storedCopy?: (size: "card" | PhotoWidth) => Promise<Buffer | null>; cardSide?: number },
): Promise<Map<PhotoCopy, Buffer>> {
  const encoded = new Map<PhotoCopy, Buffer>();
  const copyQuality = Math.min(quality, 78);
  const webp = async (size: "card" | PhotoWidth) => resizedTo(fromPixels(), size, cardSide).webp({ quality: copyQuality, effort: 4 }).toBuffer();
  for (const copy of copies) {
    if (copy === "tiny") {
      encoded.set(copy, await encodePlaceholder(fromPixels()));
    } else if (isAvifCopy(copy)) {
      const size = webpTwinOf(copy);
      const twin = size === null ? main : (encoded.get(size) ?? (await storedCopy(size)) ?? (await webp(size)));
      const avifQuality = Math.max(MIN_QUALITY, copyQuality - AVIF_QUALITY_BELOW_WEBP);
      const avif = await resizedTo(fromPixels(), size, cardSide).avif({ quality: avifQuality, effort: AVIF_EFFORT }).toBuffer();
      encoded.set(copy, avif.byteLength < twin.byteLength ? avif : twin);
    } else {
      encoded.set(copy, await webp(copy));
    }
  }
  return encoded;
}

/** The placeholder's longer side: its colours and shapes, none of its detail. */
export const PLACEHOLDER_SIDE = 16;

/**
 * The placeholder a page writes inline while the photo loads (docs/rules.md#images): the photo
 * shrunk to 16 px on its longer side, softened, at a low quality, a few hundred bytes at most.
 * The browser stretches it over the slot and blurs it further.
 */
function encodePlaceholder(pixels: Sharp): Promise<Buffer> {
  return pixels
    .resize({ width: PLACEHOLDER_SIDE, height: PLACEHOLDER_SIDE, fit: "inside" })
    .blur(0.5)
    .webp({ quality: 40, alphaQuality: 40, effort: 6, smartSubsample: true })
    .toBuffer();
}

/**
 * Makes the copies a stored photo lacks (a photo stored before they existed, or a copy lost) from
 * the stored photo itself, and stores them. Answers the bytes of each copy made; an empty map when
 * the photo is not stored.
 */
export async function makeMissingCopies(hash: string, copies: readonly PhotoCopy[]): Promise<Map<PhotoCopy, Buffer>> {
  if (copies.length === 0) return new Map();
  const main = await readStoredFile(`${hash}.webp`);
  if (!main) return new Map();
  const made = await imageDecodes(async () => {
    const raw = await sharp(main, { limitInputPixels: IMAGE_LIMITS.maxInputPixels }).raw().toBuffer({ resolveWithObject: true });
    const { width, height, channels } = raw.info;
    const storedCopy = (size: "card" | PhotoWidth) => readStoredFile(copyNameOf(hash, size));
    return encodeCopies(() => sharp(raw.data, { raw: { width, height, channels } }), copies, { quality: FIRST_QUALITY, main, storedCopy });
  });
  for (const [copy, bytes] of made) await writeStoredFile(copyNameOf(hash, copy), bytes);
  return made;
}

/** An unreachable store as the user's message (503); anything else is left as it is. */
function storeProblem(error: unknown): unknown {
  if (!(error instanceof StoreUnavailableError)) return error;
  log.warn(error.message);
  return new ImageError(IMAGE_MESSAGES.notStored, 503);
}

/**
 * Writes a processed image (its copies first, so a main file always has them). A store that cannot
 * be reached is an ImageError (503, IMAGE_MESSAGES.notStored); a copy written before the failure
 * is an orphan the sweep removes.
 */
export async function storeProcessedImage(image: ProcessedImage): Promise<{ url: string; cardUrl: string }> {
  const hash = contentHash(image.main);
  try {
    for (const [copy, bytes] of image.copies) await writeStoredFile(copyNameOf(hash, copy), bytes);
    await writeStoredFile(`${hash}.webp`, image.main);
  } catch (error) {
    throw storeProblem(error);
  }
  return { url: urlOf(`${hash}.webp`), cardUrl: urlOf(`${hash}.card.webp`) };
}

/** The whole pipeline: process, then store content-addressed. The same picture twice gives the same URL. */
export async function storeImage(input: Buffer | Uint8Array): Promise<{ url: string; cardUrl: string }> {
  return storeProcessedImage(await processImage(input));
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
