import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

import { dataDir } from "./env.server";

// The one module that knows where uploaded files live (docs/rules.md#portability: uploads behind one storage
// module, so a move to object storage touches only this file). Files are content-addressed:
// the name is the SHA-256 of the stored bytes, so a name never points at different content and
// can be cached for ever. A stored image has a main file and a card-sized variant beside it.

export const UPLOADS_URL_PREFIX = "/uploads/";

/** `<64 hex>.webp` (main) or `<64 hex>.card.webp` (card variant); nothing else is ever served or accepted. */
const STORED_NAME = /^([0-9a-f]{64})(\.card)?\.webp$/;

let uploadsDirOverride: string | null = null;

/** Where uploads live: `${dataDir()}/uploads`, unless a test or tool points it elsewhere. */
export function uploadsDir(): string {
  return uploadsDirOverride ?? path.join(dataDir(), "uploads");
}

/** For tests and tools: keep uploads in another folder (null restores the default). */
export function setUploadsDir(dir: string | null): void {
  uploadsDirOverride = dir;
}

export function isStoredName(name: string): boolean {
  return STORED_NAME.test(name);
}

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
  const match = name ? STORED_NAME.exec(name) : null;
  if (!match || match[2]) return null;
  return urlOf(`${match[1]}.card.webp`);
}

export function contentHash(bytes: Uint8Array): string {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

/**
 * Writes a file unless one with that name exists (same name = same content). The bytes go to a
 * temporary file first and are renamed into place, so a reader never sees half a file.
 */
export async function writeStoredFile(name: string, bytes: Uint8Array): Promise<void> {
  if (!isStoredName(name)) throw new Error(`Refusing to store a file named ${JSON.stringify(name)}`);
  const dir = uploadsDir();
  const target = path.join(dir, name);
  if (await storedFileExists(name)) return;
  await fs.mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${name}.${crypto.randomBytes(6).toString("hex")}.tmp`);
  await fs.writeFile(temp, bytes);
  await fs.rename(temp, target);
}

/** The stored bytes, or null when the name is not one of ours or the file is gone. */
export async function readStoredFile(name: string): Promise<Buffer | null> {
  if (!isStoredName(name)) return null;
  try {
    return await fs.readFile(path.join(uploadsDir(), name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

export async function storedFileExists(name: string): Promise<boolean> {
  if (!isStoredName(name)) return false;
  try {
    await fs.access(path.join(uploadsDir(), name));
    return true;
  } catch {
    return false;
  }
}

export async function removeStoredFile(name: string): Promise<void> {
  if (!isStoredName(name)) return;
  await fs.rm(path.join(uploadsDir(), name), { force: true });
}

/** Every stored file with its age, for the orphan sweep. */
export async function listStoredFiles(): Promise<{ name: string; modifiedMs: number }[]> {
  let names: string[];
  try {
    names = await fs.readdir(uploadsDir());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const files: { name: string; modifiedMs: number }[] = [];
  for (const name of names) {
    if (!isStoredName(name)) continue;
    try {
      const stat = await fs.stat(path.join(uploadsDir(), name));
      files.push({ name, modifiedMs: stat.mtimeMs });
    } catch {
      // Removed meanwhile: nothing to sweep.
    }
  }
  return files;
}
