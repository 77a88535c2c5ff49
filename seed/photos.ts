import { concurrencyGate } from "../app/lib/concurrency";
import { IMAGE_LIMITS, ImageError, storeImage } from "../app/server/media/images.server";
import { imageStoreLabel } from "../app/server/media/storage.server";

import { createProgress, type ProgressSink } from "./progress";
import type { SeedData } from "./seed-data";

// The sample photos in our own store (docs/rules.md#seed-sources). The sample recipes' photos are
// addresses on TheMealDB's site; a community seeded with them shows broken pictures the day that
// site moves or goes. With network access the seed downloads each photo once and passes it through
// the app's own image pipeline (the checks, sizes and copies of an upload, into the store the app is
// configured with), then writes our URL instead of the address. Photos are files, not rows: they are
// stored before the import's transaction, so no download runs under the write lock. Servers
// started at once on one new database each download them (the import itself happens once): the
// same content gives the same file names, so nothing is stored twice, only fetched twice. A photo that
// cannot be had keeps its address: a photo never fails the seed.

/** "store" downloads the photos, "link" keeps the addresses, "auto" stores them when the site answers. */
export type SeedPhotoMode = "store" | "link" | "auto";

export const SEED_PHOTO_LIMITS = {
  /** How long "auto" waits for the first photo before it keeps the links. */
  probeMs: 3_000,
  /** One photo's download, answer and body together. */
  downloadMs: 15_000,
  /** Downloads at once: a few are quick on a good connection and polite to someone else's site. */
  atOnce: 4,
  /**
   * Downloads in a row that got no answer at all (a site that is down, a network that drops what
   * goes out) after which the rest keep their links untried: 300 photos at 15 s each would hold
   * the start for twenty minutes.
   */
  unreachableInARow: 8,
} as const;

/**
 * RECIPALS_SEED_PHOTOS: `store` or `link`; nothing is `auto`. The app's settings
 * (app/server/env.server.ts) refuse any other value at start, so only callers outside the app
 * (tests) ever pass one, and get `auto`.
 */
export function seedPhotoModeOf(value: string | undefined): SeedPhotoMode {
  const mode = value?.trim().toLowerCase();
  return mode === "store" || mode === "link" ? mode : "auto";
}

/** The distinct http(s) photo addresses of the recipes and posts, in the data's order. */
export function externalPhotoUrls(data: SeedData): string[] {
  const photos = [...data.recipes.map((recipe) => recipe.photo), ...data.posts.map((post) => post.photo)];
  return [...new Set(photos.filter((photo): photo is string => typeof photo === "string" && isExternal(photo)))];
}

function isExternal(photo: string): boolean {
  try {
    const { protocol } = new URL(photo);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false; // a path of ours (/images/…), or not an address at all
  }
}

export interface SeedPhotoOptions {
  mode: SeedPhotoMode;
  fetch: typeof fetch;
  log: (line: string) => void;
  /** Where the progress bar goes; null shows none. */
  sink: ProgressSink | null;
}

/**
 * What the import calls on its data before writing it: the data with the photos stored in our
 * store replaced by our URLs (or as it was). "auto" asks the site once per seed run, then keeps its answer.
 */
export function seedPhotos(options: SeedPhotoOptions): (data: SeedData) => Promise<SeedData> {
  let decided: "store" | "link" | null = options.mode === "auto" ? null : options.mode;
  return async (data) => {
    const urls = externalPhotoUrls(data);
    if (urls.length === 0) return data;
    decided ??= await probe(urls[0]!, options);
    return decided === "store" ? storeSeedPhotos(data, urls, options) : data;
  };
}

/** "store" when the site gives its first photo within a few seconds; "link" (said once) otherwise. */
async function probe(url: string, { fetch: fetchImpl, log }: SeedPhotoOptions): Promise<"store" | "link"> {
  let problem: string | null;
  let answered = false;
  try {
    const response = await fetchImpl(url, { headers: { Accept: "image/*" }, signal: AbortSignal.timeout(SEED_PHOTO_LIMITS.probeMs) });
    // Only the answer matters here; the photo itself is downloaded with the others.
    await response.body?.cancel().catch(() => {});
    answered = true;
    const type = response.headers.get("content-type") ?? "";
    problem = !response.ok ? `HTTP ${response.status}` : /^image\//i.test(type) ? null : `not an image: ${type || "no content type"}`;
  } catch (error) {
    problem = networkReason(error, SEED_PHOTO_LIMITS.probeMs);
  }
  if (problem === null) return "store";
  log(
    `Sample photos keep their links to ${new URL(url).host}: ` +
      `${answered ? "the site did not give the first one" : "the site could not be reached"} (${problem}). ` +
      "RECIPALS_SEED_PHOTOS=store tries every photo anyway; link skips this check.",
  );
  return "link";
}

/** A photo that was not stored, and why (for the log). */
class KeptLink extends Error {
  /** True when no server answered (refused, timed out, unknown host): the site itself may be down. */
  unreachable: boolean;
  constructor(reason: string, unreachable = false) {
    super(reason);
    this.unreachable = unreachable;
  }
}

async function storeSeedPhotos(data: SeedData, urls: string[], { fetch: fetchImpl, log, sink }: SeedPhotoOptions): Promise<SeedData> {
  const gate = concurrencyGate(SEED_PHOTO_LIMITS.atOnce);
  const progress = sink ? createProgress("sample photos", urls.length, sink) : undefined;
  const stored = new Map<string, string>();
  const kept = new Map<string, string>();
  let unreachableInARow = 0;
  // Set once trying more is pointless: the site stopped answering, or our store refuses files.
  let givenUp: string | null = null;

  const storeOne = async (url: string) => {
    try {
      if (givenUp) {
        kept.set(url, givenUp);
        return;
      }
      const bytes = await download(url, fetchImpl);
      unreachableInARow = 0;
      stored.set(url, (await storeImage(bytes)).url);
    } catch (error) {
      // Any answer, even a 404, shows the site is there.
      if (error instanceof KeptLink) unreachableInARow = error.unreachable ? unreachableInARow + 1 : 0;
      if (unreachableInARow >= SEED_PHOTO_LIMITS.unreachableInARow) givenUp ??= `not tried: ${unreachableInARow} photos in a row got no answer`;
      // 503 is the pipeline's word for a store that cannot be reached: every other photo would fail alike.
      if (error instanceof ImageError && error.status === 503) givenUp ??= "not tried: our store could not be reached";
      kept.set(url, reasonOf(error));
    } finally {
      progress?.advance();
    }
  };

  try {
    await Promise.all(urls.map((url) => gate(() => storeOne(url))));
  } finally {
    progress?.finish();
  }
  log(summary(urls, stored.size, kept));

  const ours = (photo: string) => stored.get(photo) ?? photo;
  return {
    ...data,
    recipes: data.recipes.map((recipe) => ({ ...recipe, photo: ours(recipe.photo) })),
    posts: data.posts.map((post) => (post.photo ? { ...post, photo: ours(post.photo) } : post)),
  };
}

/** The photo's bytes, at most the upload limit; anything else is a KeptLink. */
async function download(url: string, fetchImpl: typeof fetch): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetchImpl(url, { headers: { Accept: "image/*" }, signal: AbortSignal.timeout(SEED_PHOTO_LIMITS.downloadMs) });
  } catch (error) {
    throw new KeptLink(networkReason(error, SEED_PHOTO_LIMITS.downloadMs), true);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new KeptLink(`HTTP ${response.status}`);
  }
  const tooLarge = `larger than ${IMAGE_LIMITS.maxFileBytes / (1024 * 1024)} MB`;
  if (Number(response.headers.get("content-length")) > IMAGE_LIMITS.maxFileBytes) {
    await response.body?.cancel().catch(() => {});
    throw new KeptLink(tooLarge);
  }
  if (!response.body) return Buffer.alloc(0);
  // Read piece by piece so a photo that turns out larger than it said is dropped at the limit, not held whole.
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > IMAGE_LIMITS.maxFileBytes) {
        await reader.cancel().catch(() => {});
        throw new KeptLink(tooLarge);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof KeptLink) throw error;
    throw new KeptLink(networkReason(error, SEED_PHOTO_LIMITS.downloadMs));
  }
  return Buffer.concat(chunks);
}

function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
  // undici hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`.
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  return cause?.code ?? (error instanceof Error ? error.message : String(error));
}

function reasonOf(error: unknown): string {
  if (error instanceof KeptLink) return error.message;
  // The pipeline's messages are written for the person uploading; the log says whose word it is.
  if (error instanceof ImageError) return `refused by the image pipeline: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** One line: how many were stored, where, and the first reason one was not. */
function summary(urls: string[], stored: number, kept: Map<string, string>): string {
  const line = `Stored ${stored} of ${urls.length} sample photos in our own store (${imageStoreLabel()})`;
  if (kept.size === 0) return `${line}.`;
  const first = urls.find((url) => kept.has(url))!;
  const count = kept.size === 1 ? "1 kept its link" : `${kept.size} kept their links`;
  return `${line}; ${count} (${kept.size === 1 ? "" : "the first, "}${first}: ${kept.get(first)}).`;
}
