import crypto from "node:crypto";
import path from "node:path";

import { PHOTO_WIDTHS, type PhotoWidth } from "../../lib/photos";

import { dataDir, env } from "../env.server";
import { diskStore } from "./storage/disk.server";
import { s3Store, type S3StoreSettings } from "./storage/s3.server";
import { storedImageType, StoreUnavailableError, type FileStore, type StoredFile } from "./storage/store.server";

// The one module that knows where uploaded files live (docs/rules.md#portability: uploads behind
// one storage module). Files are content-addressed: the name is the SHA-256 of the stored bytes,
// so a name never points at different content and can be cached for ever. A stored image has a
// main file and its copies beside it (the card, narrower widths, the placeholder and AVIF twins).
// They live in one of two stores (IMAGE_STORE): the
// uploads folder beside the database (disk, the default) or an S3-compatible bucket (s3); the
// functions below are the same for both.

export { storedImageType, StoreUnavailableError, type S3StoreSettings, type StoredFile };

export const UPLOADS_URL_PREFIX = "/uploads/";

/**
 * `<64 hex>.webp` (main), `<64 hex>.card.webp` (card copy), `<64 hex>.tiny.webp` (the blurred
 * placeholder pages write inline), `<64 hex>.w<width>.webp` (a narrower copy, app/lib/photos.ts),
 * and the AVIF twin of the main file, the card and each narrower copy (`<64 hex>.avif`,
 * `.card.avif`, `.w<width>.avif`); nothing else is ever served or accepted.
 */
const STORED_NAME = new RegExp(`^([0-9a-f]{64})(?:(\\.tiny)\\.webp|(\\.card|${PHOTO_WIDTHS.map((width) => `\\.w${width}`).join("|")})?\\.(webp|avif))$`);

/** The AVIF twin of the photo (`main`), of its card or of a narrower copy. */
export type AvifCopy = `avif-${"main" | "card" | PhotoWidth}`;
/** The copies a stored photo has besides itself: the card, the placeholder, one per width in PHOTO_WIDTHS, and their AVIF twins. */
export type PhotoCopy = "card" | "tiny" | PhotoWidth | AvifCopy;
export const AVIF_COPIES: readonly AvifCopy[] = ["avif-main", "avif-card", ...PHOTO_WIDTHS.map((width) => `avif-${width}` as const)];
export const PHOTO_COPIES: readonly PhotoCopy[] = ["card", "tiny", ...PHOTO_WIDTHS, ...AVIF_COPIES];

export function isAvifCopy(copy: PhotoCopy): copy is AvifCopy {
  return typeof copy === "string" && copy.startsWith("avif-");
}

/** The WebP copy (or the photo itself, null) an AVIF twin is the same picture as. */
export function webpTwinOf(copy: AvifCopy): "card" | PhotoWidth | null {
  const size = copy.slice("avif-".length);
  return size === "main" ? null : size === "card" ? "card" : (Number(size) as PhotoWidth);
}

/** The stored name of a photo's copy. */
export function copyNameOf(hash: string, copy: PhotoCopy): string {
  if (isAvifCopy(copy)) {
    const twin = webpTwinOf(copy);
    return twin === null ? `${hash}.avif` : copyNameOf(hash, twin).replace(/\.webp$/, ".avif");
  }
  return typeof copy === "number" ? `${hash}.w${copy}.webp` : `${hash}.${copy}.webp`;
}

/** What a stored name is: the photo (`copy` null) or one of its copies, with the photo's hash. */
export function parseStoredName(name: string): { hash: string; copy: PhotoCopy | null } | null {
  const match = STORED_NAME.exec(name);
  if (!match) return null;
  const hash = match[1]!;
  if (match[2]) return { hash, copy: "tiny" };
  const suffix = match[3];
  const size: "card" | PhotoWidth | null = !suffix ? null : suffix === ".card" ? "card" : (Number(suffix.slice(2)) as PhotoWidth);
  if (match[4] === "avif") return { hash, copy: `avif-${size ?? "main"}` };
  return { hash, copy: size };
}

/** Where uploads live on disk: UPLOADS_DIR, else `uploads` beside the database. */
export function uploadsDir(): string {
  return env.UPLOADS_DIR ?? path.join(dataDir(), "uploads");
}

export function isStoredName(name: string): boolean {
  return STORED_NAME.test(name);
}

// ---------------------------------------------------------------------------------------------
// Which store

/** The store to use: the disk folder, or a bucket with its settings. */
export type ImageStoreChoice = { kind: "disk" } | ({ kind: "s3" } & S3StoreSettings);

let choiceOverride: ImageStoreChoice | null = null;
let active: { choice: ImageStoreChoice; store: FileStore } | null = null;

/** IMAGE_STORE and its S3_* settings (env.server.ts has checked that s3 comes with a bucket and keys). */
function choiceFromEnv(): ImageStoreChoice {
  if (env.IMAGE_STORE !== "s3") return { kind: "disk" };
  return {
    kind: "s3",
    endpoint: env.S3_ENDPOINT,
    bucket: env.S3_BUCKET!,
    region: env.S3_REGION,
    accessKeyId: env.S3_ACCESS_KEY_ID!,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY!,
    publicUrl: env.S3_PUBLIC_URL,
  };
}

/**
 * For tests and tools: use this store from now on without restarting (a bucket on a given S3
 * server, or the disk folder of `uploadsDir()`); null goes back to IMAGE_STORE's.
 */
export function setImageStore(choice: ImageStoreChoice | null): void {
  choiceOverride = choice;
  active?.store.close();
  active = null;
}

/** The store in use, made at first use (the S3 client is kept: it pools its connections). */
function current(): { choice: ImageStoreChoice; store: FileStore } {
  if (!active) {
    const choice = choiceOverride ?? choiceFromEnv();
    active = { choice, store: choice.kind === "s3" ? s3Store(choice) : diskStore(uploadsDir, isStoredName) };
  }
  return active;
}

/** "disk" or "s3": where new uploads go. */
export function imageStoreKind(): ImageStoreChoice["kind"] {
  return current().choice.kind;
}

/** Where the store can be reached, for messages: the uploads folder, or the bucket and its server. */
export function imageStoreLabel(): string {
  const { choice } = current();
  if (choice.kind === "disk") return uploadsDir();
  return `bucket ${choice.bucket} at ${choice.endpoint ?? `S3 (${choice.region})`}`;
}

/** Throws a StoreUnavailableError unless the store answers (the bucket exists and the keys work). */
export async function checkImageStore(): Promise<void> {
  await current().store.check();
}

/**
 * Where browsers should fetch a stored file from instead of /uploads/ (S3_PUBLIC_URL, for a bucket
 * served by a CDN or directly), or null when the app serves it itself.
 */
export function publicUrlOf(name: string): string | null {
  const { choice } = current();
  if (choice.kind !== "s3" || !choice.publicUrl || !isStoredName(name)) return null;
  return `${choice.publicUrl.replace(/\/+$/, "")}/${name}`;
}

// ---------------------------------------------------------------------------------------------
// Names and URLs

/** The stored file name behind an `/uploads/…` URL, or null for anything storage did not produce. */
export function storedNameOf(url: unknown): string | null {
  if (typeof url !== "string" || !url.startsWith(UPLOADS_URL_PREFIX)) return null;
  const name = url.slice(UPLOADS_URL_PREFIX.length);
  return isStoredName(name) ? name : null;
}

export function urlOf(name: string): string {
  return `${UPLOADS_URL_PREFIX}${name}`;
}

/** The card variant's URL of a main image URL produced by storage (null for anything else). */
export function cardUrlOf(url: string): string | null {
  const name = storedNameOf(url);
  const stored = name ? parseStoredName(name) : null;
  if (!stored || stored.copy !== null) return null;
  return urlOf(copyNameOf(stored.hash, "card"));
}

export function contentHash(bytes: Uint8Array): string {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

// ---------------------------------------------------------------------------------------------
// Files. With S3, every function but the name checks may throw a StoreUnavailableError.

/** Writes a file (same name = same content, so one already there is left as it is or rewritten alike). */
export async function writeStoredFile(name: string, bytes: Uint8Array): Promise<void> {
  if (!isStoredName(name)) throw new Error(`Refusing to store a file named ${JSON.stringify(name)}`);
  await current().store.write(name, bytes);
}

/** The stored bytes, or null when the name is not one of ours or the file is gone. */
export async function readStoredFile(name: string): Promise<Buffer | null> {
  if (!isStoredName(name)) return null;
  return current().store.read(name);
}

export async function storedFileExists(name: string): Promise<boolean> {
  if (!isStoredName(name)) return false;
  return current().store.exists(name);
}

export async function removeStoredFile(name: string): Promise<void> {
  if (!isStoredName(name)) return;
  await current().store.remove(name);
}

/** Every stored file with its age, for the orphan sweep. */
export async function listStoredFiles(): Promise<StoredFile[]> {
  return (await current().store.list()).filter((file) => isStoredName(file.name));
}
