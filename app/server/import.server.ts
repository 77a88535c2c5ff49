import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";

import { DEFAULT_SECTION_TITLE, RECIPE_LIMITS, type RecipeDraft } from "~/lib/recipe-form";

import { IMAGE_LIMITS, ImageError, storeImage } from "./images.server";
import { ipv6Groups } from "./ip.server";
import { concurrencyGate, RATE_LIMITS, RateLimitedError, takeRateLimited } from "./rate-limit.server";
import { ImportLinkSchema, JsonLdRecipeSchema } from "./validation/import.server";

// Import a recipe by link (DESIGN §8). The server fetches a page someone named, so every fetch
// is guarded against being turned on our own network (SSRF):
// - http and https only; every redirect is followed by hand (at most 5) and checked again;
// - the host is resolved first and refused when ANY address is private, loopback, link-local,
//   unique-local, multicast or otherwise not public — the check runs inside the connection's own
//   DNS lookup, so the address connected to is the address checked (no DNS rebinding window);
// - one deadline (5 s) covers all hops and the body; the body is cut off past 2 MB while it
//   streams (after decompression, so a small gzip bomb cannot blow up in memory).
// IMPORT_ALLOW_PRIVATE=1 lets private addresses through, for tests against a local stub page.

export const IMPORT_LIMITS = {
  timeoutMs: 5_000,
  maxPageBytes: 2 * 1024 * 1024,
  maxRedirects: 5,
} as const;

export type ImportProblem =
  | "invalid-link"
  | "refused"
  | "timeout"
  | "too-large"
  | "no-recipe"
  | "too-many-redirects"
  | "http-status"
  | "unreachable"
  | "rate-limited";

export const IMPORT_MESSAGES = {
  refused: "That link points to a private or local network address, which cannot be imported.",
  timeout: (ms: number) => `The page took too long to answer (more than ${formatSeconds(ms)}).`,
  tooLarge: (bytes: number) => `The page is too large to import (more than ${formatMegabytes(bytes)}).`,
  noRecipe: "No recipe was found on that page: it has no schema.org Recipe data to import.",
  tooManyRedirects: "The link redirects too many times.",
  redirectNotHttp: "The link redirects to an address that is not http:// or https://.",
  httpStatus: (status: number) => `The page could not be loaded (it answered with HTTP status ${status}).`,
  unknownHost: "The page could not be reached: no such host.",
  unreachable: "The page could not be reached.",
  rateLimited: (minutes: number) =>
    `You have imported ${RATE_LIMITS.importByLink.limit} recipes in a short while. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
} as const;

const STATUS_OF: Record<ImportProblem, number> = {
  "invalid-link": 400,
  refused: 400,
  timeout: 504,
  "too-large": 413,
  "no-recipe": 422,
  "too-many-redirects": 502,
  "http-status": 502,
  unreachable: 502,
  "rate-limited": 429,
};

/** A refused or failed import; `message` is meant for the user, `status` for the answer. */
export class ImportError extends Error {
  readonly problem: ImportProblem;
  readonly status: number;
  constructor(problem: ImportProblem, message: string) {
    super(message);
    this.name = "ImportError";
    this.problem = problem;
    this.status = STATUS_OF[problem];
  }
}

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

interface Rules {
  allows: (address: string) => boolean;
  timeoutMs: number;
  maxRedirects: number;
}

function rulesOf(options: ImportOptions): Rules {
  const allowPrivate = options.allowPrivate ?? process.env.IMPORT_ALLOW_PRIVATE === "1";
  return {
    allows: (address) =>
      allowPrivate === true || (typeof allowPrivate === "function" && allowPrivate(address)) || !isPrivateAddress(address),
    timeoutMs: options.timeoutMs ?? IMPORT_LIMITS.timeoutMs,
    maxRedirects: options.maxRedirects ?? IMPORT_LIMITS.maxRedirects,
  };
}

// ---------------------------------------------------------------------------------------------
// Addresses

const NOT_PUBLIC = new net.BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  // IPv4-compatible (::a.b.c.d, deprecated): some stacks still send these out as IPv4.
  ["::", 96],
  // Local-use NAT64: a local translator maps it to IPv4 by its own rules, so the IPv4 address it
  // reaches cannot be told from the address (unlike the well-known 64:ff9b::/96, read below).
  ["64:ff9b:1::", 48],
  ["100::", 64], // discard
  ["2001::", 32], // Teredo
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, "ipv6");
}


/**
 * Every IPv4-mapped address (::ffff:a.b.c.d, ::ffff:0:0/96), public or not: a connection to one
 * goes out as IPv4, no real site publishes one in DNS, and refusing them all leaves no gap between
 * the IPv4 and IPv6 rules. Not a BlockList rule: BlockList checks IPv4 addresses against IPv6
 * rules in their mapped form, so that rule would refuse every IPv4 address too.
 */
function isIpv4Mapped(address: string): boolean {
  const g = ipv6Groups(address);
  return g !== null && g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff;
}

/** The IPv4 address inside a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) return v4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!);
  return null;
}

/**
 * True for every address that is not plainly public: private, loopback, link-local,
 * unique-local, multicast, reserved, documentation ranges, IPv6 forms that wrap one of them
 * (NAT64, 6to4), and every IPv4-mapped or IPv4-compatible address. Anything unparsable counts as
 * not public.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  const family = net.isIP(bare);
  if (family === 4) return NOT_PUBLIC.check(bare, "ipv4");
  if (family !== 6 || isIpv4Mapped(bare)) return true;
  const inner = embeddedIpv4(bare);
  if (inner) return NOT_PUBLIC.check(inner, "ipv4");
  return NOT_PUBLIC.check(bare, "ipv6");
}

const REFUSED_CODE = "RECIPALS_IMPORT_REFUSED";

/** dns.lookup that refuses a host when any of its addresses is not allowed. */
function guardedLookup(rules: Rules): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses) => {
      const reply = callback as (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
      if (error) return reply(error, "");
      const refused = addresses.length === 0 || addresses.some((entry) => !rules.allows(entry.address));
      if (refused) {
        const refusal: NodeJS.ErrnoException = new Error(`Refused address for ${hostname}`);
        refusal.code = REFUSED_CODE;
        return reply(refusal, "");
      }
      if (options.all) return reply(null, addresses);
      const first = addresses[0]!;
      return reply(null, first.address, first.family);
    });
  };
}

// ---------------------------------------------------------------------------------------------
// Fetching

interface Fetched {
  url: URL;
  body: Buffer;
  contentType: string;
}

/** GET with the rules above: manual redirects, address checks per hop, one deadline, a byte cap. */
async function guardedGet(start: URL, rules: Rules, { maxBytes, accept }: { maxBytes: number; accept: string }): Promise<Fetched> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), rules.timeoutMs);
  try {
    let url = start;
    for (let hop = 0; ; hop += 1) {
      const response = await requestOnce(url, rules, controller.signal, accept);
      const status = response.statusCode ?? 0;
      if ([301, 302, 303, 307, 308].includes(status)) {
        response.destroy();
        const location = response.headers.location;
        if (!location) throw new ImportError("http-status", IMPORT_MESSAGES.httpStatus(status));
        if (hop >= rules.maxRedirects) throw new ImportError("too-many-redirects", IMPORT_MESSAGES.tooManyRedirects);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new ImportError("unreachable", IMPORT_MESSAGES.unreachable);
        }
        if (next.protocol !== "http:" && next.protocol !== "https:") throw new ImportError("refused", IMPORT_MESSAGES.redirectNotHttp);
        url = next;
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        throw new ImportError("http-status", IMPORT_MESSAGES.httpStatus(status));
      }
      const body = await readCapped(response, maxBytes, controller.signal, rules.timeoutMs);
      return { url, body, contentType: String(response.headers["content-type"] ?? "") };
    }
  } catch (error) {
    if (error instanceof ImportError) throw error;
    if ((error as NodeJS.ErrnoException | null)?.code === REFUSED_CODE) throw new ImportError("refused", IMPORT_MESSAGES.refused);
    if (controller.signal.aborted) throw new ImportError("timeout", IMPORT_MESSAGES.timeout(rules.timeoutMs));
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") throw new ImportError("unreachable", IMPORT_MESSAGES.unknownHost);
    throw new ImportError("unreachable", IMPORT_MESSAGES.unreachable);
  } finally {
    clearTimeout(timer);
  }
}

function requestOnce(url: URL, rules: Rules, signal: AbortSignal, accept: string): Promise<http.IncomingMessage> {
  // A literal address in the link never reaches the DNS lookup: check it here.
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host) && !rules.allows(host)) return Promise.reject(new ImportError("refused", IMPORT_MESSAGES.refused));
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "GET",
        headers: {
          Accept: accept,
          "Accept-Encoding": "gzip, deflate, br",
          "User-Agent": "ReciPals-Importer/1.0 (recipe import by link)",
        },
        // A fresh connection per hop: a pooled socket would skip the lookup (and its check).
        agent: false,
        lookup: guardedLookup(rules),
        signal,
      },
      resolve,
    );
    request.on("error", reject);
    request.end();
  });
}

function readCapped(response: http.IncomingMessage, maxBytes: number, signal: AbortSignal, timeoutMs: number): Promise<Buffer> {
  const tooLarge = () => new ImportError("too-large", IMPORT_MESSAGES.tooLarge(maxBytes));
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return Promise.reject(tooLarge());
  }
  const encoding = String(response.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  let stream: Readable = response;
  if (encoding === "gzip" || encoding === "x-gzip") stream = response.pipe(zlib.createGunzip());
  else if (encoding === "deflate") stream = response.pipe(zlib.createInflate());
  else if (encoding === "br") stream = response.pipe(zlib.createBrotliDecompress());
  else if (encoding !== "identity" && encoding !== "") {
    response.destroy();
    return Promise.reject(new ImportError("unreachable", IMPORT_MESSAGES.unreachable));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      if (error) {
        response.destroy();
        if (stream !== response) stream.destroy();
        reject(error);
      } else {
        resolve(Buffer.concat(chunks, size));
      }
    };
    const onAbort = () => finish(new ImportError("timeout", IMPORT_MESSAGES.timeout(timeoutMs)));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    stream.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) return finish(tooLarge());
      chunks.push(chunk);
    });
    stream.on("end", () => finish(null));
    const broken = () => finish(new ImportError("unreachable", IMPORT_MESSAGES.unreachable));
    stream.on("error", broken);
    response.on("error", broken);
    response.on("close", () => {
      if (!response.complete) broken();
    });
  });
}

function decodeBody({ body, contentType }: Fetched): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

// ---------------------------------------------------------------------------------------------
// Reading schema.org Recipe JSON-LD

// The page is up to 2 MB that someone else wrote, so it is read in one forward pass with indexOf.
// A regular expression such as /<script[^>]*>([\s\S]*?)<\/script>/ starts again at every
// "<script" and may read to the end of the page each time: a page of repeated "<script " kept the
// process busy for minutes. Here every character is looked at a bounded number of times.

/** HTML's white space: tab, line feed, form feed, carriage return, space. */
function isHtmlSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
}

/** Whether `text` holds `word` (lowercase ASCII) at `at`, in any letter case. */
function hasWordAt(text: string, at: number, word: string): boolean {
  if (at + word.length > text.length) return false;
  for (let i = 0; i < word.length; i += 1) {
    let code = text.charCodeAt(at + i);
    if (code >= 0x41 && code <= 0x5a) code += 0x20;
    if (code !== word.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Reads a tag's attributes from `from` (just after its name) to its closing ">", as a browser
 * does: a ">" inside a quoted value does not close the tag. Gives the first `type` value (null
 * without one) and where the tag ends, or null when the page ends first: an unclosed tag or
 * quote swallows the rest of the page, so nothing after it is markup.
 */
function readTagType(html: string, from: number): { type: string | null; end: number } | null {
  let type: string | null = null;
  let i = from;
  while (i < html.length) {
    const code = html.charCodeAt(i);
    if (isHtmlSpace(code) || code === 0x2f /* / */) {
      i += 1;
      continue;
    }
    if (code === 0x3e /* > */) return { type, end: i + 1 };
    // A name runs to a space, "/", ">" or "=" (a "=" in first place belongs to the name).
    const nameStart = i;
    i += 1;
    while (i < html.length) {
      const c = html.charCodeAt(i);
      if (isHtmlSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) break;
      i += 1;
    }
    const isType = i - nameStart === 4 && hasWordAt(html, nameStart, "type");
    let j = i;
    while (j < html.length && isHtmlSpace(html.charCodeAt(j))) j += 1;
    if (html.charCodeAt(j) !== 0x3d /* = */) {
      if (isType && type === null) type = "";
      continue; // a name without a value; the spaces after it are skipped again, once
    }
    j += 1;
    while (j < html.length && isHtmlSpace(html.charCodeAt(j))) j += 1;
    let value: string;
    const quote = html[j];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, j + 1);
      if (close < 0) return null;
      value = html.slice(j + 1, close);
      i = close + 1;
    } else {
      const valueStart = j;
      while (j < html.length && !isHtmlSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 0x3e) j += 1;
      value = html.slice(valueStart, j);
      i = j;
    }
    if (isType && type === null) type = value;
  }
  return null;
}

/** "application/ld+json", in any case, with or without parameters ("; charset=utf-8"). */
function isJsonLdType(type: string): boolean {
  const semicolon = type.indexOf(";");
  return (semicolon < 0 ? type : type.slice(0, semicolon)).trim().toLowerCase() === "application/ld+json";
}

/** The next "</script>" from `from` ("</script" in any case, optional spaces, ">"), or null. */
function findScriptClose(html: string, from: number): { start: number; end: number } | null {
  let at = from;
  for (;;) {
    const start = html.indexOf("</", at);
    if (start < 0) return null;
    let i = start + 2;
    if (hasWordAt(html, i, "script")) {
      i += 6;
      while (i < html.length && isHtmlSpace(html.charCodeAt(i))) i += 1;
      if (html.charCodeAt(i) === 0x3e /* > */) return { start, end: i + 1 };
    }
    at = i;
  }
}

/** The contents of a page's `<script type="application/ld+json">` elements, in page order. */
function* jsonLdScripts(html: string): Generator<string> {
  let at = 0;
  for (;;) {
    const open = html.indexOf("<", at);
    if (open < 0) return;
    at = open + 1;
    if (!hasWordAt(html, at, "script")) continue;
    const after = html.charCodeAt(at + 6);
    if (!(isHtmlSpace(after) || after === 0x2f /* / */ || after === 0x3e /* > */)) continue; // <scripts>, <script-x>
    const tag = readTagType(html, at + 6);
    if (!tag) return;
    const close = findScriptClose(html, tag.end);
    // No "</script>" anywhere after this tag: no later script could be closed either.
    if (!close) return;
    // Any other script's text is code, not markup, as in a browser: skipped whole, so a quote or
    // "<script" inside a string of it cannot hide the tags after it.
    if (tag.type !== null && isJsonLdType(tag.type)) yield html.slice(tag.end, close.start);
    at = close.end;
  }
}

function parseJsonLoosely(text: string): unknown {
  const trimmed = text
    .trim()
    .replace(/^<!--|-->$/g, "")
    .replace(/^\s*(?:\/\/\s*)?<!\[CDATA\[|(?:\/\/\s*)?\]\]>\s*$/g, "")
    .trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    // Raw line breaks and tabs inside strings are common on real pages and invalid JSON. Without
    // any, a second parse would fail the same way: skipping it halves the work on a page of many
    // broken blocks.
    const folded = trimmed.replace(/[\u0000-\u001f]+/g, " ");
    if (folded === trimmed) return undefined;
    try {
      return JSON.parse(folded);
    } catch {
      return undefined;
    }
  }
}

function isRecipeType(type: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.some(
    (value) => typeof value === "string" && value.replace(/^(?:https?:\/\/schema\.org\/|schema:)/i, "").toLowerCase() === "recipe",
  );
}

function findRecipeNode(value: unknown, depth = 0): Record<string, unknown> | null {
  if (depth > 8 || value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findRecipeNode(item, depth + 1);
      if (found) return found;
    }
    return null;
  }
  const node = value as Record<string, unknown>;
  if (isRecipeType(node["@type"])) return node;
  // @graph first (the usual place), then any other property (mainEntity, about, …).
  const graph = findRecipeNode(node["@graph"], depth + 1);
  if (graph) return graph;
  for (const [key, child] of Object.entries(node)) {
    if (key === "@graph" || key === "@context") continue;
    const found = findRecipeNode(child, depth + 1);
    if (found) return found;
  }
  return null;
}

/** The first schema.org Recipe node in a page's JSON-LD scripts, or null. */
export function findRecipeJsonLd(html: string): Record<string, unknown> | null {
  for (const script of jsonLdScripts(html)) {
    const found = findRecipeNode(parseJsonLoosely(script));
    if (found) return found;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Turning a Recipe node into an editor draft

// A Map, not an object: "&constructor;" must not find Object.prototype's properties.
const ENTITIES = new Map(
  Object.entries({
    amp: "&",
    lt: "<",
    gt: ">",
    quot: '"',
    apos: "'",
    nbsp: " ",
    ndash: "–",
    mdash: "—",
    hellip: "…",
    lsquo: "‘",
    rsquo: "’",
    ldquo: "“",
    rdquo: "”",
    deg: "°",
    frac12: "½",
    frac14: "¼",
    frac34: "¾",
    times: "×",
    eacute: "é",
    egrave: "è",
    ntilde: "ñ",
    uuml: "ü",
    ouml: "ö",
    auml: "ä",
    ccedil: "ç",
  }),
);

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES.get(name.toLowerCase()) ?? whole;
  });
}

/**
 * Every tag ("<" up to the next ">") replaced by a space, in one pass. A "<" with no ">" after it
 * is plain text, and so is everything after it: once no ">" is left the scan stops, rather than
 * reading the rest of the text again for every "<" (what /<[^>]*>/g does, quadratic).
 */
function stripTags(text: string): string {
  const parts: string[] = [];
  let at = 0;
  for (;;) {
    const open = text.indexOf("<", at);
    if (open < 0) break;
    const close = text.indexOf(">", open + 1);
    if (close < 0) break;
    parts.push(text.slice(at, open), " ");
    at = close + 1;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/** Plain text: tags dropped, entities decoded, control characters and runs of spaces folded. */
function cleanText(value: unknown): string {
  if (typeof value !== "string" && typeof value !== "number") return "";
  const text = String(value);
  // Blank is common (a page may list a million empty strings): skip the passes below.
  if (text.trim() === "") return "";
  return decodeEntities(stripTags(text))
    .replace(/[\u0000-\u001f\u007f\u00a0\s]+/g, " ")
    .replace(/ ([.,;:!?)])/g, "$1")
    .trim();
}

/** Cuts to `max` UTF-16 units (the editor's unit), at a word boundary when one is near, with "…". */
function cut(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  let head = text.slice(0, end);
  const space = head.lastIndexOf(" ");
  if (space > 0 && space >= end - 15) head = head.slice(0, space);
  return { text: `${head.trimEnd()}…`, cut: true };
}

// A page of 2 MB can list hundreds of thousands of ingredients, steps or keywords. Reading stops
// once there are more than the editor keeps (one more tells that some were dropped), so the work
// does not grow with the page beyond that.

/** The cleaned, non-blank texts of `values` in order, at most `limit + 1` of them. */
function cleanTextsUpTo(values: readonly string[], limit: number): string[] {
  const texts: string[] = [];
  for (const value of values) {
    if (texts.length > limit) break;
    const text = cleanText(value);
    if (text !== "") texts.push(text);
  }
  return texts;
}

/**
 * Instruction text that may be one blob with HTML or line breaks: one step per line or paragraph,
 * added to `steps` until it holds more than `limit`.
 */
function splitInstructionText(text: string, steps: string[], limit: number): void {
  const lines = text.replace(/<\s*(?:br|\/p|\/li|\/div|\/h[1-6])\s*\/?>/gi, "\n").split(/\r?\n/);
  for (const line of lines) {
    if (steps.length > limit) return;
    const step = cleanText(line).replace(/^(?:step\s*)?\d{1,3}\s*[.):]\s+/i, "");
    if (step !== "") steps.push(step);
  }
}

/** The steps in recipeInstructions, in order, at most `limit + 1` of them. */
function instructionTexts(value: unknown, limit: number, steps: string[] = [], depth = 0): string[] {
  if (steps.length > limit || depth > 6 || value === null || value === undefined) return steps;
  if (typeof value === "string") splitInstructionText(value, steps, limit);
  else if (typeof value === "number") steps.push(String(value));
  else if (Array.isArray(value)) {
    for (const item of value) {
      if (steps.length > limit) break;
      instructionTexts(item, limit, steps, depth + 1);
    }
  } else if (typeof value === "object") {
    const node = value as Record<string, unknown>;
    // HowToSection and ItemList hold their steps in itemListElement; a HowToStep holds its text.
    if (node.itemListElement !== undefined && (typeof node.text !== "string" || node.text.trim() === "")) {
      return instructionTexts(node.itemListElement, limit, steps, depth + 1);
    }
    for (const key of ["text", "name", "description"]) {
      const text = node[key];
      if (typeof text === "string" && text.trim() !== "") {
        splitInstructionText(text, steps, limit);
        break;
      }
    }
  }
  return steps;
}

function isoMinutes(text: string | undefined): number | null {
  if (!text) return null;
  const match = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(
    text.trim(),
  );
  if (!match || match.slice(1).every((part) => part === undefined)) return null;
  const [weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number];
  return Math.round(weeks * 7 * 24 * 60 + days * 24 * 60 + hours * 60 + minutes + seconds / 60);
}

/** 80 → "1 hr 20 min", 45 → "45 min", 120 → "2 hr" (the recipe page reads these back as ISO 8601). */
export function durationText(totalMinutes: number): string {
  const hours = Math.floor(totalMinutes / 60);
  const minutes = totalMinutes % 60;
  if (hours === 0) return `${minutes} min`;
  return minutes === 0 ? `${hours} hr` : `${hours} hr ${minutes} min`;
}

function timeText(recipe: { totalTime?: string; prepTime?: string; cookTime?: string }): string {
  const total = isoMinutes(recipe.totalTime);
  if (total !== null) return total > 0 ? durationText(total) : "";
  const prep = isoMinutes(recipe.prepTime);
  const cook = isoMinutes(recipe.cookTime);
  if ((prep ?? 0) + (cook ?? 0) > 0) return durationText((prep ?? 0) + (cook ?? 0));
  // Not ISO 8601 ("1 hour"): keep the words as the page wrote them.
  return cut(cleanText(recipe.totalTime), RECIPE_LIMITS.totalTime).text;
}

function servesOf(value: unknown): number | null {
  const values = Array.isArray(value) ? value : [value];
  for (const item of values) {
    const match = typeof item === "number" ? [String(Math.round(item))] : typeof item === "string" ? /\d+/.exec(item) : null;
    const n = match ? Number(match[0]) : NaN;
    if (Number.isInteger(n) && n >= 1 && n <= RECIPE_LIMITS.serves) return n;
  }
  return null;
}

/** Keywords read at most per list: real pages give a few dozen; a hostile one, a million repeats. */
const TAG_CANDIDATES = 200;

/** The non-blank comma-separated parts of a list of keywords, the first TAG_CANDIDATES of them. */
function tagCandidates(list: readonly string[]): string[] {
  const candidates: string[] = [];
  for (const entry of list) {
    for (const part of entry.split(",")) {
      if (part.trim() === "") continue;
      candidates.push(part);
      if (candidates.length === TAG_CANDIDATES) return candidates;
    }
  }
  return candidates;
}

function tagsOf(lists: (string[] | undefined)[]): string[] {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const list of lists) {
    for (const tag of tagCandidates(list ?? [])) {
      const text = cut(cleanText(tag), RECIPE_LIMITS.tag).text;
      if (!text || seen.has(text.toLowerCase())) continue;
      seen.add(text.toLowerCase());
      tags.push(text);
      if (tags.length === RECIPE_LIMITS.tags) return tags;
    }
    if (tags.length > 0) return tags; // keywords win; category and cuisine only stand in for them
  }
  return tags;
}

const IMAGE_CANDIDATES = 10;

function imageUrlOf(value: unknown, base: URL, depth = 0): URL | null {
  if (depth > 4 || value === null || value === undefined) return null;
  if (typeof value === "string") {
    try {
      const url = new URL(decodeEntities(value.trim()), base);
      return url.protocol === "http:" || url.protocol === "https:" ? url : null;
    } catch {
      return null;
    }
  }
  if (Array.isArray(value)) {
    // The first few: a page gives one to five sizes of its photo, not half a million candidates.
    for (const item of value.slice(0, IMAGE_CANDIDATES)) {
      const url = imageUrlOf(item, base, depth + 1);
      if (url) return url;
    }
    return null;
  }
  if (typeof value === "object") {
    const node = value as Record<string, unknown>;
    return imageUrlOf(node.url ?? node.contentUrl ?? node["@id"], base, depth + 1);
  }
  return null;
}

export interface RecipeFromPage {
  draft: RecipeDraft;
  /** Shortened fields and other things the user should know. */
  notes: string[];
  photoUrl: URL | null;
}

/** A schema.org Recipe node (from `findRecipeJsonLd`) as an editor draft, cut to the editor's limits. */
export function draftFromRecipeNode(node: Record<string, unknown>, pageUrl: URL): RecipeFromPage {
  const recipe = JsonLdRecipeSchema.parse(node);
  const notes: string[] = [];

  const name = cut(cleanText(recipe.name ?? recipe.headline), RECIPE_LIMITS.name);
  if (name.cut) notes.push(`The recipe name was longer than ${RECIPE_LIMITS.name} characters and was shortened.`);
  const description = cut(cleanText(recipe.description), RECIPE_LIMITS.description);
  if (description.cut) notes.push(`The description was longer than ${RECIPE_LIMITS.description} characters and was shortened.`);

  const allLines = cleanTextsUpTo(recipe.recipeIngredient ?? recipe.ingredients ?? [], RECIPE_LIMITS.lines);
  if (allLines.length > RECIPE_LIMITS.lines) notes.push(`Only the first ${RECIPE_LIMITS.lines} ingredients were kept.`);
  const lines = allLines.slice(0, RECIPE_LIMITS.lines).map((line) => cut(line, RECIPE_LIMITS.line));
  if (lines.some((line) => line.cut)) notes.push(`Ingredients longer than ${RECIPE_LIMITS.line} characters were shortened.`);

  const allSteps = instructionTexts(recipe.recipeInstructions, RECIPE_LIMITS.steps);
  if (allSteps.length > RECIPE_LIMITS.steps) notes.push(`Only the first ${RECIPE_LIMITS.steps} steps were kept.`);
  const steps = allSteps.slice(0, RECIPE_LIMITS.steps).map((step) => cut(step, RECIPE_LIMITS.step));
  if (steps.some((step) => step.cut)) notes.push(`Steps longer than ${RECIPE_LIMITS.step} characters were shortened.`);

  const serves = servesOf(recipe.recipeYield);
  const draft: RecipeDraft = {
    name: name.text,
    description: description.text,
    sections: [{ id: "", title: DEFAULT_SECTION_TITLE, ingredients: lines.length > 0 ? lines.map((line) => line.text) : [""] }],
    steps: steps.length > 0 ? steps.map((step) => step.text) : [""],
    totalTime: timeText(recipe),
    serves: String(serves ?? 1),
    tags: tagsOf([recipe.keywords, [...(recipe.recipeCategory ?? []), ...(recipe.recipeCuisine ?? [])]]).join(", "),
  };
  if (!draft.description) notes.push("The page gives no description: please write one before saving.");
  if (lines.length === 0) notes.push("The page lists no ingredients: please add them before saving.");
  if (steps.length === 0) notes.push("The page gives no steps: please add them before saving.");
  return { draft, notes, photoUrl: imageUrlOf(recipe.image, pageUrl) };
}

// ---------------------------------------------------------------------------------------------
// The whole import

export interface ImportedRecipe {
  draft: RecipeDraft;
  notes: string[];
  /** The stored photo's URL (as the image pipeline gives it), or null. */
  photo: string | null;
  /** Where the page was finally read (after redirects). */
  source: string;
}

/** Reads a link (as typed), fetches the page under the rules above and returns an unsaved draft. */
export async function importRecipe(link: string, options: ImportOptions = {}): Promise<ImportedRecipe> {
  const parsed = ImportLinkSchema.safeParse(link);
  if (!parsed.success) throw new ImportError("invalid-link", parsed.error.issues[0]?.message ?? IMPORT_MESSAGES.unreachable);
  if (options.requestedBy !== undefined) {
    try {
      await takeRateLimited(RATE_LIMITS.importByLink, options.requestedBy);
    } catch (error) {
      if (!(error instanceof RateLimitedError)) throw error;
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
  const node = findRecipeJsonLd(decodeBody(page));
  if (!node) throw new ImportError("no-recipe", IMPORT_MESSAGES.noRecipe);
  const { draft, notes, photoUrl } = draftFromRecipeNode(node, page.url);

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
  return { draft, notes, photo, source: page.url.toString() };
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

function formatSeconds(ms: number): string {
  const seconds = Math.round(ms / 100) / 10;
  return seconds === 1 ? "1 second" : `${seconds} seconds`;
}

function formatMegabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
}
