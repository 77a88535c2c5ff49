import crypto from "node:crypto";
import type { IncomingHttpHeaders, OutgoingHttpHeader } from "node:http";
import zlib from "node:zlib";

import type { NextFunction, Request, RequestHandler, Response } from "express";

import type { ScopeChanges, SharedCacheHandle } from "../facade.server";

// A shared page cache in front of Remix: what a visitor without cookies is shown is
// the same for every such visitor, so rendering it again for each one is wasted work. A page
// rendered for one visitor is kept — already compressed — and answered to the next ones until
// what it shows changes in the database (a commit by this process or another) or `ttlMs` passes
// (feeds are shuffled per response, and time moves on), whichever comes first.
//
// What a page shows is named by scopes (docs/scaling.md, "What a write drops from the page
// cache"): while rendering, the app calls `scope("recipe:…", "feed", …)` for the data it reads, and
// each commit records the scopes it changed. When `version()` moves, `changes()` says which scopes
// changed since it was last asked, and only the entries naming one of them are dropped; a change
// to everything ("all") drops every entry, and so does any change for an entry that named no
// scope (it may show anything). While `changes()` cannot tell (null), nothing is answered from
// memory or kept. Without `changes`, any move of `version()` drops every entry.
//
// What may be kept is the app's call, not this file's: the app calls `context.sharedCache.offer()`
// (app/server/cache/shared-cache.server.ts) for an answer that depends only on the URL, and `withhold()`
// for one that must not be shared whatever else offers it. This file offers that only for GET
// requests carrying no cookie of ours and no Authorization, keeps only a 200 without Set-Cookie,
// and keys entries by protocol, Host, X-Forwarded-Host, URL and Origin (absolute links and CORS
// headers depend on those). A chosen colour theme (docs/rules.md#theme) is one of our cookies too,
// so every page kept here was rendered in the System theme and the key needs no theme; treating
// that cookie as not personal would need the theme in the key (and in the visitors' ETag).
//
// Visitors who ask for a page while it is being rendered for another one wait for that render and
// get what it kept (single flight): fifty visitors arriving together on a cold page cost one render.
//
// A page's Content-Security-Policy allows its inline scripts by a nonce that must not be reused.
// A kept page is byte-for-byte the same for everyone, so it is answered with a policy that
// allows exactly its inline scripts by their SHA-256 hashes instead (CSP Level 2) — no nonce is
// reused, and nothing but those scripts can run. A page holding an inline script without the
// nonce is not kept at all.

/** The app's rule for a personal request (our cookies, credentials): its answer is never shared. */
export type IsPersonal = (cookieHeader?: string, authorization?: string) => boolean;

/** The encodings a kept answer is held in. */
type Encoding = "identity" | "gzip" | "br";

/** A header of a kept answer, as `res.getHeaders()` gave it (or as the cache rewrote it). */
type KeptHeader = [name: string, value: OutgoingHttpHeader];

/** One kept answer. */
interface Entry {
  /** What it shows, as the app named it; null: it named nothing (it may show anything). */
  scopes: Set<string> | null;
  /** When it stops being answered (ms since the epoch). */
  expires: number;
  etag: string;
  headers: KeptHeader[];
  bodies: Record<Encoding, Buffer>;
  /** What it is counted as against `maxBytes`. */
  bytes: number;
}

/** A change learnt of, numbered in the order learnt. */
interface RecentChange {
  n: number;
  all: boolean;
  scopes: Set<string>;
}

/** What an answer's body may be written as. */
type Chunk = string | Uint8Array;
type WriteCallback = (error?: Error | null) => void;
/** `res.write` as Node implements it: the callback may stand in the encoding's place. */
type WriteMethod = (this: Response, chunk: Chunk, encoding?: BufferEncoding | WriteCallback, callback?: WriteCallback) => boolean;
/** `res.end` as Node implements it: the chunk may be left out, and the callback may stand in for the chunk or the encoding. */
type EndMethod = (this: Response, chunk?: Chunk | (() => void) | null, encoding?: BufferEncoding | (() => void), callback?: () => void) => Response;

export interface PageCacheOptions {
  /** Changes whenever the database may have changed. */
  version: () => string;
  /** Scopes changed since the last call; null: unknown now. */
  changes?: (() => ScopeChanges | null) | null;
  /** The app's rule: never shared. */
  isPersonal: IsPersonal;
  /** How many differently shuffled copies a URL keeps (default 1). */
  variantsOf?: (url: string) => number;
  /** The longest an entry is answered. */
  ttlMs?: number;
  /** All entries together (identity + gzip + br). */
  maxBytes?: number;
  /** Larger answers are not kept. */
  maxEntryBytes?: number;
  maxEntries?: number;
}

export interface PageCacheStats {
  hits: number;
  misses: number;
  stored: number;
  /** Requests that waited for the same page's render for another visitor rather than rendering it again. */
  joined: number;
}

/** What `createPageCache` returns. */
export interface PageCache {
  /** Mount it before the app (after compression). */
  middleware: RequestHandler;
  stats: PageCacheStats;
  /** How many entries are kept. */
  readonly size: number;
  /** What the entries are counted as together. */
  readonly bytes: number;
  /** Entries dropped because what they show changed. */
  readonly dropped: number;
  clear(): void;
}

/**
 * A request whose answer may be shared: a GET that is not personal. What makes a request personal
 * (our cookies, credentials) is the app's rule: `isPersonal(cookieHeader, authorization)`.
 */
export function isShareableRequest(req: { method?: string; headers: IncomingHttpHeaders }, isPersonal: IsPersonal): boolean {
  return req.method === "GET" && !isPersonal(req.headers.cookie, req.headers.authorization);
}

// The MIME types a browser runs as classic scripts (HTML's "JavaScript MIME type essence match").
const JAVASCRIPT_TYPE = /^(?:(?:application|text)\/(?:x-)?(?:ecma|java)script|text\/javascript1\.[0-5]|text\/(?:jscript|livescript))$/;

/** The executable inline scripts of an HTML page (tags with content and no src), with their attributes. */
function inlineScriptTags(html: string): { nonce: string | null; text: string }[] {
  const scripts: { nonce: string | null; text: string }[] = [];
  // Attribute values may hold ">" when quoted.
  for (const match of html.matchAll(/<script\b((?:[^>"']|"[^"]*"|'[^']*')*)>([\s\S]*?)<\/script\s*>/gi)) {
    const attrs = match[1] ?? "";
    if (/\ssrc\s*=/i.test(attrs)) continue;
    // Data blocks (JSON-LD) are never run, so they need no permission.
    const typeMatch = /\stype\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(attrs);
    const type = (typeMatch?.[1] ?? typeMatch?.[2] ?? typeMatch?.[3] ?? "").trim().toLowerCase();
    if (type !== "" && type !== "module" && !JAVASCRIPT_TYPE.test(type)) continue;
    const nonceMatch = /\snonce\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(attrs);
    // The HTML parser turns CR LF and lone CR into LF before the script's text is hashed.
    scripts.push({ nonce: nonceMatch?.[1] ?? nonceMatch?.[2] ?? nonceMatch?.[3] ?? null, text: (match[2] ?? "").replace(/\r\n?/g, "\n") });
  }
  return scripts;
}

/** The inline scripts of an HTML page (tags with content and no src), as the browser hashes them. */
export function inlineScripts(html: string): string[] {
  return inlineScriptTags(html).map((script) => script.text);
}

/**
 * `script-src` with the nonce replaced by the hashes of the page's inline scripts — only of those
 * the nonce allowed. A page with an inline script the nonce did not allow (markup that got in
 * somewhere) returns null: it is not kept, since hashing would let that script run for everyone.
 */
export function policyWithHashes(policy: string, html: string): string | null {
  const nonce = /'nonce-([^']*)'/i.exec(policy)?.[1];
  const scripts = inlineScriptTags(html);
  if (nonce !== undefined && scripts.some((script) => script.nonce !== nonce)) return null;
  const hashes = [...new Set(scripts.map((script) => `'sha256-${crypto.createHash("sha256").update(script.text, "utf8").digest("base64")}'`))];
  return policy
    .split(";")
    .map((directive) => {
      const trimmed = directive.trim();
      if (!/^script-src\s/i.test(trimmed)) return trimmed;
      const sources = trimmed.split(/\s+/).slice(1).filter((source) => !/^'nonce-/i.test(source));
      return ["script-src", ...sources, ...hashes].join(" ");
    })
    .join("; ");
}

/** The best encoding of ours the client takes: br, then gzip, else identity. */
export function pickEncoding(acceptEncoding?: string): Encoding {
  const weights = new Map<string, number>();
  for (const part of String(acceptEncoding ?? "").split(",")) {
    const [rawName, ...params] = part.toLowerCase().split(";");
    const name = rawName?.trim();
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    weights.set(name, q === undefined ? 1 : Number(q));
  }
  const weight = (name: string) => weights.get(name) ?? weights.get("*") ?? 0;
  if (weight("br") > 0 && weight("br") >= weight("gzip")) return "br";
  if (weight("gzip") > 0) return "gzip";
  return "identity";
}

/** Weak comparison (RFC 9110 §13.1.2) of If-None-Match against a tag. */
function matchesTag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch || !etag) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === opaque(etag));
}

// Not kept: set per connection or by the server's own middleware on every answer.
// x-request-id: each answer's own (observe.server.ts), never a kept one's.
const UNKEPT_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "date", "set-cookie", "x-request-id"]);
const NOT_MODIFIED_HEADERS = ["etag", "cache-control", "vary", "last-modified"];
/** The longest a request waits for the same page's render for another visitor before rendering its own. */
const JOIN_WAIT_MS = 5_000;

export function createPageCache({
  version,
  changes = null,
  isPersonal,
  variantsOf = () => 1,
  ttlMs = 10_000,
  maxBytes = 64 * 1024 * 1024,
  maxEntryBytes = 512 * 1024,
  maxEntries = 10_000,
}: PageCacheOptions): PageCache {
  if (typeof isPersonal !== "function") throw new Error("createPageCache needs the app's isPersonal(cookieHeader, authorization).");
  /** Insertion order is recency order: a hit moves its entry to the end; the oldest go first. */
  const entries = new Map<string, Entry>();
  let bytes = 0;
  /** Keys of the entries naming each scope, and of those naming none (they depend on everything). */
  const byScope = new Map<string, Set<string>>();
  const unscoped = new Set<string>();
  /** The database version the entries are up to date with. */
  let entriesVersion: string | null = null;
  /**
   * The changes learnt of lately, numbered: a render that started before one of them must not be
   * kept when the change is in what it shows. `changeCount` numbers the last one.
   */
  const recentChanges: RecentChange[] = [];
  const RECENT_CHANGES = 1024;
  let changeCount = 0;
  const stats: PageCacheStats = { hits: 0, misses: 0, stored: 0, joined: 0 };
  /**
   * Single flight: the keys being rendered now for a visitor, each with the requests for the same
   * page that arrived meanwhile. They wait for that render and are answered from what it kept; when
   * it kept nothing (not offered, withheld, failed, too large, out of date), each renders its own.
   */
  const rendering = new Map<string, (() => void)[]>();
  /** Entries dropped because what they show changed. */
  let dropped = 0;

  const unindex = (key: string, entry: Entry): void => {
    if (entry.scopes === null) return void unscoped.delete(key);
    for (const scope of entry.scopes) {
      const keys = byScope.get(scope);
      keys?.delete(key);
      if (keys?.size === 0) byScope.delete(scope);
    }
  };

  const drop = (key: string): void => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    unindex(key, entry);
    bytes -= entry.bytes;
  };

  const clearAll = () => {
    dropped += entries.size;
    entries.clear();
    byScope.clear();
    unscoped.clear();
    bytes = 0;
  };

  const record = (change: Omit<RecentChange, "n">): void => {
    changeCount++;
    recentChanges.push({ n: changeCount, ...change });
    if (recentChanges.length > RECENT_CHANGES) recentChanges.shift();
  };

  /**
   * Brings the entries up to date with the database: drops what changed since the last look.
   * False when that cannot be told now (the app's `changes()` said so): then nothing kept may be
   * answered, nor anything rendered meanwhile kept.
   */
  function sync(): boolean {
    const current = version();
    if (current === entriesVersion) return true;
    if (!changes) {
      clearAll();
      entriesVersion = current;
      record({ all: true, scopes: new Set() });
      return true;
    }
    const changed = changes();
    if (changed === null) return false;
    entriesVersion = current;
    if (changed.all) {
      clearAll();
      record({ all: true, scopes: new Set() });
    } else if (changed.scopes.length > 0) {
      const before = entries.size;
      for (const key of [...unscoped]) drop(key);
      for (const scope of changed.scopes) for (const key of [...(byScope.get(scope) ?? [])]) drop(key);
      dropped += before - entries.size;
      record({ all: false, scopes: new Set(changed.scopes) });
    }
    return true;
  }

  /** Whether a change learnt of after `since` touches what an answer naming `scopes` (null: anything) shows. */
  function changedSince(since: number, scopes: Set<string> | null): boolean {
    if (changeCount - since > recentChanges.length) return true; // older than what is remembered
    for (let i = recentChanges.length - 1; i >= 0; i--) {
      const change = recentChanges[i];
      if (change === undefined || change.n <= since) break;
      if (change.all || (scopes === null && change.scopes.size > 0)) return true;
      if (scopes !== null) for (const scope of scopes) if (change.scopes.has(scope)) return true;
    }
    return false;
  }

  // Everything the app's answer can depend on besides the database: Remix builds the request URL
  // from the protocol, Host and X-Forwarded-Host (absolute links in a page), and the API's CORS
  // headers follow Origin.
  // A page that shows visitors a fresh shuffle each time (the app says which: `variantsOf`) keeps
  // several copies, each rendered with its own random order, and each request is answered from
  // one picked at random: a reload mostly shows another order, and the cache still saves the work.
  const keyOf = (req: Request): string => {
    const variants = Math.max(1, Math.floor(variantsOf(req.originalUrl) || 1));
    const parts = [req.protocol, req.headers.host, req.headers["x-forwarded-host"], req.originalUrl, req.headers.origin].map((part) => part ?? "");
    if (variants > 1) parts.push(`variant ${crypto.randomInt(variants)}`);
    return parts.join("\n");
  };

  function store(key: string, entry: Entry): void {
    drop(key);
    if (entry.bytes > maxBytes) return;
    entries.set(key, entry);
    if (entry.scopes === null) unscoped.add(key);
    else {
      for (const scope of entry.scopes) {
        let keys = byScope.get(scope);
        if (!keys) byScope.set(scope, (keys = new Set()));
        keys.add(key);
      }
    }
    bytes += entry.bytes;
    stats.stored++;
    for (const oldest of entries.keys()) {
      if (bytes <= maxBytes && entries.size <= maxEntries) break;
      drop(oldest);
    }
  }

  function answer(req: Request, res: Response, entry: Entry): void {
    for (const [name, value] of entry.headers) res.setHeader(name, value);
    if (matchesTag(req.headers["if-none-match"], entry.etag)) {
      for (const name of res.getHeaderNames()) if (!NOT_MODIFIED_HEADERS.includes(name) && name.startsWith("content-")) res.removeHeader(name);
      res.statusCode = 304;
      res.end();
      return;
    }
    const encoding = pickEncoding(req.headers["accept-encoding"]);
    const body = entry.bodies[encoding];
    res.statusCode = 200;
    if (encoding !== "identity") res.setHeader("Content-Encoding", encoding);
    res.setHeader("Content-Length", body.length);
    res.end(body);
  }

  /** Wraps res to see what the app answers and keep it when the app offered it; `done` once it is over (kept or not). */
  function capture(req: Request, res: Response, key: string, changesAtStart: number, done: () => void = () => {}): SharedCacheHandle {
    let offered = false;
    /** What the answer shows, as the app named it; null while it named nothing (it may show anything). */
    let scopes: Set<string> | null = null;
    let headers: KeptHeader[] | null = null;
    let chunks: Buffer[] | null = [];
    let size = 0;
    // Cast: the typings' overloads cannot be called with the arguments passed through as they came.
    const write = res.write as WriteMethod;
    const end = res.end as EndMethod;
    /** The headers as they were when the body began (taken once). */
    const snapshot = (): KeptHeader[] => {
      if (headers) return headers;
      headers = [];
      // (getHeaders never holds undefined: setHeader refuses it.)
      for (const [name, value] of Object.entries(res.getHeaders())) if (value !== undefined && !UNKEPT_HEADERS.has(name)) headers.push([name, value]);
      return headers;
    };
    const collect = (chunk: Chunk | (() => void) | null | undefined, encoding: BufferEncoding | WriteCallback | (() => void) | undefined) => {
      if (chunks === null || chunk == null || typeof chunk === "function") return;
      const buffer = typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? encoding : "utf8") : Buffer.from(chunk);
      size += buffer.length;
      if (size > maxEntryBytes) chunks = null;
      else chunks.push(buffer);
    };
    res.write = function (this: Response, chunk: Chunk, encoding?: BufferEncoding | WriteCallback, callback?: WriteCallback): boolean {
      snapshot();
      collect(chunk, encoding);
      return write.call(this, chunk, encoding, callback);
    };
    res.end = function (this: Response, chunk?: Chunk | (() => void) | null, encoding?: BufferEncoding | (() => void), callback?: () => void): Response {
      const headerList = snapshot();
      collect(chunk, encoding);
      const result = end.call(this, chunk, encoding, callback);
      if (offered && !withheld && chunks !== null && res.statusCode === 200 && !res.hasHeader("set-cookie")) {
        keep(key, changesAtStart, scopes, headerList, Buffer.concat(chunks));
      }
      chunks = null;
      done();
      return result;
    };
    // An answer cut short (the client left, the render failed) never reaches end.
    res.once("close", done);
    let withheld = false;
    return {
      offer() {
        offered = true;
      },
      /** Whatever else offers it, this answer is not shared (e.g. a page reporting a failure). */
      withhold() {
        withheld = true;
      },
      /**
       * What this answer shows, by scope (`recipe:…`, `user:…`, `feed` …): it is dropped when a
       * commit changes one of them. Called by every part of the answer that reads data; with no
       * names, a part that reads none. An answer nothing named scopes for depends on everything.
       */
      scope(...names: string[]) {
        scopes ??= new Set();
        for (const name of names) scopes.add(String(name));
      },
    };
  }

  /** A buffer of exactly this length (zlib's output is a view into a larger one, kept alive by it). */
  const exact = (buffer: Buffer): Buffer => {
    const copy = Buffer.allocUnsafeSlow(buffer.length);
    buffer.copy(copy);
    return copy;
  };

  function keep(key: string, changesAtStart: number, scopes: Set<string> | null, headers: KeptHeader[], identity: Buffer): void {
    // What it shows changed while it was rendered: it may already be out of date.
    if (!sync() || changedSince(changesAtStart, scopes)) return;
    const headerMap = new Map(headers);
    // "private" marks an answer for one person: never shared, whatever was offered.
    if (/\bprivate\b/i.test(String(headerMap.get("cache-control") ?? ""))) return;
    // Kept answers come in three encodings; compression adds this only after the snapshot.
    const vary = String(headerMap.get("vary") ?? "");
    if (!/\baccept-encoding\b/i.test(vary)) headerMap.set("vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
    const policy = headerMap.get("content-security-policy");
    if (typeof policy === "string" && /'nonce-/i.test(policy)) {
      const hashed = policyWithHashes(policy, identity.toString("utf8"));
      // An inline script the nonce did not allow, or a nonce left in another directive (it would be
      // handed to everyone): not kept.
      if (hashed === null || /'nonce-/i.test(hashed)) return;
      headerMap.set("content-security-policy", hashed);
    }
    // Weak: the same tag stands for the identity, gzip and br bodies.
    const etag = headerMap.get("etag") ?? `W/"${crypto.createHash("sha256").update(identity).digest("base64url").slice(0, 27)}"`;
    headerMap.set("etag", etag);
    const bodies: Record<Encoding, Buffer> = {
      identity: exact(identity),
      gzip: exact(zlib.gzipSync(identity, { level: 6 })),
      br: exact(
        zlib.brotliCompressSync(identity, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: 6,
            [zlib.constants.BROTLI_PARAM_LGWIN]: 18,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
          },
        }),
      ),
    };
    const kept = [...headerMap];
    store(key, {
      scopes,
      expires: Date.now() + ttlMs,
      etag: String(etag),
      headers: kept,
      bodies,
      // The bodies, the key and the headers, and about a kilobyte for the objects around them.
      bytes: bodies.identity.length + bodies.gzip.length + bodies.br.length + key.length + JSON.stringify(kept).length + 1024,
    });
  }

  function middleware(req: Request, res: Response, next: NextFunction): void {
    if (!isShareableRequest(req, isPersonal)) return next();
    // Entries whose data changed are dropped at once (no stale entry lingers in memory); one that
    // went stale while rendering was never kept. While the changes cannot be told, the page is
    // rendered for this request alone.
    if (!sync()) {
      stats.misses++;
      return next();
    }
    const key = keyOf(req);
    const entry = entries.get(key);
    if (entry && entry.expires > Date.now()) {
      stats.hits++;
      entries.delete(key);
      entries.set(key, entry);
      return answer(req, res, entry);
    }
    if (entry) drop(key);
    const waiting = rendering.get(key);
    if (waiting) {
      stats.joined++;
      let resumed = false;
      const resume = () => {
        if (resumed) return;
        resumed = true;
        clearTimeout(giveUp);
        const kept = sync() ? entries.get(key) : undefined;
        if (kept && kept.expires > Date.now()) {
          stats.hits++;
          return answer(req, res, kept);
        }
        stats.misses++;
        res.locals.sharedCache = capture(req, res, key, changeCount);
        next();
      };
      // A render that takes too long is not waited for to its end.
      const giveUp = setTimeout(resume, JOIN_WAIT_MS);
      waiting.push(resume);
      return;
    }
    stats.misses++;
    rendering.set(key, []);
    let finished = false;
    res.locals.sharedCache = capture(req, res, key, changeCount, () => {
      if (finished) return;
      finished = true;
      const waiters = rendering.get(key) ?? [];
      rendering.delete(key);
      for (const resume of waiters) resume();
    });
    next();
  }

  return {
    middleware,
    stats,
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
    get dropped() {
      return dropped;
    },
    clear() {
      entries.clear();
      byScope.clear();
      unscoped.clear();
      bytes = 0;
    },
  };
}
