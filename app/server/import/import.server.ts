import type { RecipeDraft } from "~/lib/recipe-form";

import { IMAGE_LIMITS, ImageError, storeImage } from "../media/images.server";
import { concurrencyGate } from "../../lib/concurrency";
import { LimitReachedError, RATE_LIMITS, takeRateLimited } from "../auth/limits.server";
import { ImportLinkSchema } from "../validation/import-schema.server";

import { isPrivateAddress } from "./addresses.server";
import { draftFromRecipeNode } from "./draft.server";
import { formatMegabytes, ImportError, IMPORT_MESSAGES } from "./errors.server";
import { guessRecipeFromPage } from "./fallback.server";
import { decodeBody, guardedGet, type Rules } from "./fetch.server";
import { findRecipeJsonLd } from "./json-ld.server";
import { findRecipeMicrodata } from "./microdata.server";

export { ImportError, IMPORT_MESSAGES };
export type { ImportProblem } from "./errors.server";

// Import a recipe by link (docs/rules.md#import-by-link). The server fetches a page someone named, so every fetch
// is guarded against being turned on our own network (SSRF):
// - http and https only; every redirect is followed by hand (at most 5) and checked again;
// - the host is resolved first and refused when ANY address is private, loopback, link-local,
//   unique-local, multicast or otherwise not public — the check runs inside the connection's own
//   DNS lookup, so the address connected to is the address checked (no DNS rebinding window);
// - one deadline (5 s) covers all hops and the body; the body is cut off past 2 MB while it
//   streams (after decompression, so a small gzip bomb cannot blow up in memory).
// IMPORT_ALLOW_PRIVATE=1 lets private addresses through, for tests against a local stub page.
//
// The parts, beside this file: addresses.server.ts (which addresses are refused, the guarded DNS
// lookup), fetch.server.ts (the guarded GET), json-ld.server.ts (finding the Recipe node in a
// page), html.server.ts (a forgiving one-pass HTML reader), microdata.server.ts (a Recipe written
// as microdata, as the same kind of node), fallback.server.ts (a guess from the page's title and
// lists when it has no recipe data), text.server.ts (plain text, cutting, durations),
// draft.server.ts (a Recipe node as an editor draft) and errors.server.ts (what can go wrong, and
// the messages).

export const IMPORT_LIMITS = {
  timeoutMs: 5_000,
  maxPageBytes: 2 * 1024 * 1024,
  maxRedirects: 5,
} as const;

export interface ImportOptions {
  /**
   * Let private, loopback, link-local and unique-local addresses through. Default: the
   * IMPORT_ALLOW_PRIVATE=1 environment variable (tests). A function decides per resolved address.
   */
  allowPrivate?: boolean | ((address: string) => boolean);
  /** For the page, and again for its photo. */
  timeoutMs?: number;
  maxPageBytes?: number;
  maxRedirects?: number;
  /** Also fetch the recipe's photo and store it through the image pipeline (default true). */
  photo?: boolean;
  /**
   * Who asks: their imports are counted (RATE_LIMITS.importByLink, across every server). Left
   * out only by tests of the fetching itself.
   */
  requestedBy?: string;
}

// An import holds a page (up to 2 MB) and a photo (up to 10 MB) in memory while it runs: a few at
// a time per process, the rest wait their turn.
const importSlot = concurrencyGate(3);

function rulesOf(options: ImportOptions): Rules {
  const allowPrivate = options.allowPrivate ?? process.env.IMPORT_ALLOW_PRIVATE === "1";
  return {
    allows: (address) =>
      allowPrivate === true || (typeof allowPrivate === "function" && allowPrivate(address)) || !isPrivateAddress(address),
    timeoutMs: options.timeoutMs ?? IMPORT_LIMITS.timeoutMs,
    maxRedirects: options.maxRedirects ?? IMPORT_LIMITS.maxRedirects,
  };
}

export interface ImportedRecipe {
  draft: RecipeDraft;
  notes: string[];
  /** The stored photo's URL (as the image pipeline gives it), or null. */
  photo: string | null;
  /** Where the page was finally read (after redirects). */
  source: string;
  /** What the draft was read from: the page's JSON-LD, its microdata, or a guess from its lists. */
  foundIn: RecipeSource;
}

export type RecipeSource = "json-ld" | "microdata" | "guess";

/**
 * The page's Recipe node and where it came from. JSON-LD wins over microdata when a page has both
 * (it is the richer of the two on the sites we see); a page with neither gets a guess from its
 * title and lists, or null when it has no list worth guessing from.
 */
function findRecipeNode(html: string): { node: Record<string, unknown>; foundIn: RecipeSource } | null {
  const jsonLd = findRecipeJsonLd(html);
  if (jsonLd) return { node: jsonLd, foundIn: "json-ld" };
  const microdata = findRecipeMicrodata(html);
  if (microdata) return { node: microdata, foundIn: "microdata" };
  const guess = guessRecipeFromPage(html);
  return guess ? { node: guess, foundIn: "guess" } : null;
}

/** Reads a link (as typed), fetches the page under the rules above and returns an unsaved draft. */
export async function importRecipe(link: string, options: ImportOptions = {}): Promise<ImportedRecipe> {
  const parsed = ImportLinkSchema.safeParse(link);
  if (!parsed.success) throw new ImportError("invalid-link", parsed.error.issues[0]?.message ?? IMPORT_MESSAGES.unreachable);
  if (options.requestedBy !== undefined) {
    try {
      await takeRateLimited(RATE_LIMITS.importByLink, options.requestedBy);
    } catch (error) {
      if (!(error instanceof LimitReachedError)) throw error;
      throw new ImportError("rate-limited", IMPORT_MESSAGES.rateLimited(Math.max(1, Math.ceil(error.retryAfterSeconds / 60))));
    }
  }
  return importSlot(() => fetchAndRead(parsed.data, options));
}

async function fetchAndRead(link: URL, options: ImportOptions): Promise<ImportedRecipe> {
  const rules = rulesOf(options);
  const page = await guardedGet(link, rules, {
    maxBytes: options.maxPageBytes ?? IMPORT_LIMITS.maxPageBytes,
    accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
  });
  const found = findRecipeNode(decodeBody(page));
  if (!found) throw new ImportError("no-recipe", IMPORT_MESSAGES.noRecipe);
  const { draft, notes, photoUrl } = draftFromRecipeNode(found.node, page.url);

  let photo: string | null = null;
  if (photoUrl && options.photo !== false) {
    try {
      const image = await guardedGet(photoUrl, rules, { maxBytes: IMAGE_LIMITS.maxFileBytes, accept: "image/*" });
      photo = (await storeImage(image.body)).url;
    } catch (error) {
      if (!(error instanceof ImportError) && !(error instanceof ImageError)) throw error;
      notes.push(`The recipe's photo was not imported (${photoProblem(error)}). You can choose one below.`);
    }
  }
  const host = page.url.hostname;
  notes.unshift(`Imported “${draft.name || "a recipe"}” from ${host}. Check it, then press Save: nothing is saved until then.`);
  // A guess is said first, so nobody takes it for the page's own recipe data.
  if (found.foundIn === "guess") notes.unshift(IMPORT_MESSAGES.guessed);
  return { draft, notes, photo, source: page.url.toString(), foundIn: found.foundIn };
}

function photoProblem(error: ImportError | ImageError): string {
  if (error instanceof ImageError) return "it is not an image we can use";
  switch (error.problem) {
    case "refused":
      return "its address is not allowed";
    case "timeout":
      return "it took too long to download";
    case "too-large":
      return `it is larger than ${formatMegabytes(IMAGE_LIMITS.maxFileBytes)}`;
    default:
      return "it could not be downloaded";
  }
}
