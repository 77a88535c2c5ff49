import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";

import compression from "compression";
import express from "express";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";

import { isPersonalRequest } from "~/server/http/cookies.server";
import { requestRules } from "~/server/http/route-rules.server";
import { SHUFFLED_COPIES } from "~/server/cache/shared-cache.server";

import { appRoutes } from "../support/app-routes";

import { createPageCache, inlineScripts, isShareableRequest, pickEncoding, policyWithHashes } from "../../app/server/runtime/page-cache.server";

// app/server/runtime/page-cache.server.ts over real HTTP: a tiny Express app mounted the way
// app/server/runtime/serve.server.ts mounts it (compression, then the cache, then the app), whose handler renders
// a page with a fresh CSP nonce per render and counts its renders. A request "answered from the
// cache" is one the handler did not see.

// ---------------------------------------------------------------------------------------------
// The page the test app renders

const BOOT_SCRIPT = '\n  window.__boot = {"page":"soup","note":"héllo"};\n';
const MODULE_SCRIPT = 'import("/app.js");';
const JSON_LD = '{"@context":"https://schema.org","@type":"Recipe","name":"Soup"}';
const FILLER = "Simmer gently and stir now and then. ".repeat(60); // well over compression's 1 KB threshold
const POLICY = (nonce: string) => `default-src 'self'; script-src 'self' 'nonce-${nonce}'; img-src 'self' https:; object-src 'none'`;

function renderPage(nonce: string, render: number, padding: number, random = false): string {
  return [
    "<!DOCTYPE html><html><head><title>Soup</title>",
    `<script nonce="${nonce}">${BOOT_SCRIPT}</script>`,
    `<script type="application/ld+json">${JSON_LD}</script>`,
    `<script src="/x.js" nonce="${nonce}"></script>`,
    "</head><body>",
    `<p>Render ${render}.</p>`,
    `<p>${FILLER}</p>`,
    padding > 0 ? `<!-- ${random ? crypto.randomBytes(padding).toString("base64").slice(0, padding) : "x".repeat(padding)} -->` : "",
    // The same script twice: one hash is enough.
    `<script nonce="${nonce}">${BOOT_SCRIPT}</script>`,
    `<script type="module" nonce="${nonce}">${MODULE_SCRIPT}</script>`,
    "</body></html>",
  ].join("\n");
}

const sha256 = (text: string) => `'sha256-${crypto.createHash("sha256").update(text, "utf8").digest("base64")}'`;

// ---------------------------------------------------------------------------------------------
// The test app

interface TestApp {
  port: number;
  cache: ReturnType<typeof createPageCache>;
  /** How many times the handler rendered an answer. */
  renders: number;
  /** What `version()` returns. */
  version: string;
  /** With `scoped`: the changes `changes()` reports next, and whether it can tell them now. */
  pending: { all: boolean; scopes: string[] }[];
  unknown: boolean;
  /** How many times the cache asked `changes()`. */
  asked: number;
}

const servers: http.Server[] = [];

/**
 * Query flags the handler understands: offer (calls sharedCache.offer()), status=N, setcookie,
 * private (Cache-Control: private), pad=N (bytes of padding; random: incompressible), chunks (body written in pieces),
 * noetag, bump (the data version changes while rendering), inject (an inline script without the
 * nonce, as injected markup would be), withhold (the app withholds the answer), scope=a,b (the
 * answer shows scopes a and b; `scope=` none at all), change=x (scope x changes while rendering),
 * slow=N (the render takes N ms).
 * A request header X-Withhold keeps the handler from offering whatever the URL says (headers other
 * than Origin are not in the key).
 */
async function startApp(
  options: {
    ttlMs?: number;
    maxBytes?: number;
    maxEntryBytes?: number;
    maxEntries?: number;
    trustProxy?: boolean;
    variantsOf?: (url: string) => number;
    /** Give the cache `changes()`: what changed is said by `change(app, …)` rather than "everything". */
    scoped?: boolean;
  } = {},
): Promise<TestApp> {
  const testApp = { port: 0, renders: 0, version: "v1", pending: [] as TestApp["pending"], unknown: false, asked: 0 } as TestApp;
  const { scoped, ...cacheOptions } = options;
  const changes = () => {
    testApp.asked += 1;
    if (testApp.unknown) return null;
    const told = testApp.pending.splice(0);
    return { all: told.some((change) => change.all), scopes: told.flatMap((change) => change.scopes) };
  };
  testApp.cache = createPageCache({ version: () => testApp.version, ...(scoped ? { changes } : {}), isPersonal: isPersonalRequest, ...cacheOptions });
  const app = express();
  if (options.trustProxy) app.set("trust proxy", true);
  app.use(compression());
  app.use(testApp.cache.middleware);
  app.all("*", async (req: http.IncomingMessage & { originalUrl: string }, res: http.ServerResponse & { locals: Record<string, any> }) => {
    const render = ++testApp.renders;
    const flags = new URL(req.originalUrl, "http://test.invalid").searchParams;
    // A render that takes this long (ms), as a cold page's loaders do.
    if (flags.has("slow")) await new Promise((resolve) => setTimeout(resolve, Number(flags.get("slow"))));
    const nonce = crypto.randomBytes(16).toString("base64");
    res.setHeader("X-Offer-Available", res.locals.sharedCache ? "yes" : "no");
    if (flags.has("offer") && !req.headers["x-withhold"]) res.locals.sharedCache?.offer();
    res.statusCode = Number(flags.get("status") ?? 200);
    if (flags.has("setcookie")) res.setHeader("Set-Cookie", "flavour=umami; Path=/");
    res.setHeader("Cache-Control", flags.has("private") ? "private, no-cache" : "no-cache");
    res.setHeader("Content-Type", "text/html; charset=utf-8");
    res.setHeader("Vary", "Cookie"); // as app/entry.server.tsx does
    res.setHeader("Content-Security-Policy", POLICY(nonce));
    if (!flags.has("noetag")) res.setHeader("ETag", `W/"${crypto.createHash("sha1").update(req.originalUrl).digest("hex")}"`);
    res.setHeader("X-Render", String(render));
    let html = renderPage(nonce, render, Number(flags.get("pad") ?? 0), flags.has("random"));
    if (flags.has("inject")) html = html.replace("</body>", "<script>stolen(document.cookie)</script></body>");
    if (flags.has("withhold")) res.locals.sharedCache?.withhold();
    if (flags.has("bump")) testApp.version = `${testApp.version}+`;
    if (flags.has("scope")) res.locals.sharedCache?.scope(...(flags.get("scope") ? flags.get("scope")!.split(",") : []));
    if (flags.has("change")) change(testApp, flags.get("change")!);
    if (!flags.has("chunks")) return res.end(html);
    const piece = Math.ceil(html.length / 8);
    for (let i = 0; i < html.length; i += piece) res.write(html.slice(i, i + piece));
    res.end();
  });
  const server = http.createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  testApp.port = (server.address() as AddressInfo).port;
  return testApp;
}

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request over its own connection; nothing is sent but the given headers (and Host). */
function request(app: TestApp, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: app.port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Asserts that `action` made the handler render exactly `count` times. */
/** A commit that changed `scopes` ("*": everything): the version moves and `changes()` will say so. */
function change(app: TestApp, ...scopes: string[]): void {
  app.pending.push({ all: scopes.includes("*"), scopes: scopes.filter((scope) => scope !== "*") });
  app.version = `${app.version}+`;
}

async function expectRenders<T>(app: TestApp, count: number, action: () => Promise<T>): Promise<T> {
  const before = app.renders;
  const result = await action();
  expect(app.renders - before).toBe(count);
  return result;
}

const decode = (reply: Reply): string => {
  const encoding = reply.headers["content-encoding"];
  if (encoding === "br") return zlib.brotliDecompressSync(reply.body).toString("utf8");
  if (encoding === "gzip") return zlib.gunzipSync(reply.body).toString("utf8");
  expect(encoding).toBeUndefined();
  return reply.body.toString("utf8");
};

const directives = (policy: unknown) =>
  String(policy)
    .split(";")
    .map((directive) => directive.trim())
    .filter(Boolean);

// ---------------------------------------------------------------------------------------------

describe("page cache: what is kept and answered", () => {
  it("answers a second identical GET from the cache with the same body", async () => {
    const app = await startApp();
    const first = await expectRenders(app, 1, () => request(app, "/soup?offer"));
    const second = await expectRenders(app, 0, () => request(app, "/soup?offer"));
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.toString("utf8")).toBe(first.body.toString("utf8"));
    expect(second.headers["x-render"]).toBe("1");
    expect(second.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(app.cache.stats).toEqual({ hits: 1, misses: 1, stored: 1, joined: 0 });
    expect(app.cache.size).toBe(1);
  });

  it("keeps a body written in several pieces whole", async () => {
    const app = await startApp();
    const first = await expectRenders(app, 1, () => request(app, "/soup?offer&chunks"));
    const second = await expectRenders(app, 0, () => request(app, "/soup?offer&chunks"));
    expect(second.body.toString("utf8")).toBe(first.body.toString("utf8"));
    expect(first.body.toString("utf8")).toContain("</body></html>");
  });

  it("never keeps an answer the app did not offer", async () => {
    const app = await startApp();
    const first = await expectRenders(app, 1, () => request(app, "/soup"));
    expect(first.headers["x-offer-available"]).toBe("yes");
    await expectRenders(app, 1, () => request(app, "/soup"));
    expect(app.cache.size).toBe(0);
    expect(app.cache.stats.stored).toBe(0);
  });

  it.each([
    ["with Set-Cookie", "/soup?offer&setcookie"],
    ["with status 404", "/soup?offer&status=404"],
    ["with status 203", "/soup?offer&status=203"],
    ["with Cache-Control: private", "/soup?offer&private"],
  ])("does not keep an offered answer %s", async (_case, path) => {
    const app = await startApp();
    await expectRenders(app, 1, () => request(app, path));
    await expectRenders(app, 1, () => request(app, path));
    expect(app.cache.size).toBe(0);
  });

  it("answers the kept headers, with Vary: Accept-Encoding added and a fresh Date", async () => {
    const app = await startApp();
    const first = await request(app, "/soup?offer");
    const second = await expectRenders(app, 0, () => request(app, "/soup?offer"));
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers["cache-control"]).toBe("no-cache");
    expect(second.headers.vary).toBe("Cookie, Accept-Encoding");
    expect(second.headers.date).toBeDefined();
    expect(new Date(String(second.headers.date)).getTime()).not.toBeNaN();
  });
});

describe("page cache: single flight", () => {
  it("fifty visitors arriving together on a cold page cause one render, and all get it", async () => {
    const app = await startApp();
    const replies = await expectRenders(app, 1, () => Promise.all(Array.from({ length: 50 }, () => request(app, "/soup?offer&slow=150"))));
    expect(new Set(replies.map((reply) => reply.status))).toEqual(new Set([200]));
    expect(new Set(replies.map((reply) => decode(reply)))).toHaveProperty("size", 1);
    expect(decode(replies[0]!)).toContain("Render 1.");
    expect(app.cache.stats).toMatchObject({ misses: 1, joined: 49, hits: 49, stored: 1 });
  });

  it("when the render they waited for kept nothing (not offered, or failed), each renders its own", async () => {
    const app = await startApp();
    const unoffered = await expectRenders(app, 10, () => Promise.all(Array.from({ length: 10 }, () => request(app, "/soup?slow=100"))));
    expect(new Set(unoffered.map((reply) => reply.headers["x-render"])).size).toBe(10);
    await expectRenders(app, 5, () => Promise.all(Array.from({ length: 5 }, () => request(app, "/soup?offer&status=500&slow=100"))));
    // Requests for another page, or personal ones, never wait for this one.
    await expectRenders(app, 2, () => Promise.all([request(app, "/soup?offer&slow=100"), request(app, "/stew?offer&slow=100")]));
  });

  it("a request arriving after a change to what the render shows is not answered from it", async () => {
    const app = await startApp({ scoped: true });
    const first = request(app, "/soup?offer&scope=recipe:1&slow=150");
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = request(app, "/soup?offer&scope=recipe:1&slow=10");
    await new Promise((resolve) => setTimeout(resolve, 30));
    change(app, "recipe:1");
    const [one, two] = await Promise.all([first, second]);
    // The first render began before the change: it is not kept, and the waiting request renders again.
    expect(decode(one)).toContain("Render 1.");
    expect(decode(two)).toContain("Render 2.");
  });
});

describe("page cache: personal requests", () => {
  it.each([
    ["a session cookie", { Cookie: "recipals_session=abc123" }],
    ["a sign-up cookie after another cookie", { Cookie: "foo=1; recipals_signup=xyz" }],
    ["an Authorization header", { Authorization: "Bearer token-123" }],
  ])("bypasses the cache for a request with %s", async (_case, personal: Record<string, string>) => {
    const app = await startApp();
    // Never stored: the personal answer is rendered, offered, and still not kept.
    const own = await expectRenders(app, 1, () => request(app, "/soup?offer", personal));
    expect(own.headers["x-offer-available"]).toBe("no");
    expect(app.cache.size).toBe(0);
    await expectRenders(app, 1, () => request(app, "/soup?offer"));
    expect(app.cache.size).toBe(1);
    // Never served a stored page: rendered each time although one is kept for this URL.
    const again = await expectRenders(app, 1, () => request(app, "/soup?offer", personal));
    expect(again.headers["x-render"]).toBe(String(app.renders));
    await expectRenders(app, 1, () => request(app, "/soup?offer", personal));
    expect(app.cache.stats).toMatchObject({ hits: 0, stored: 1 });
  });

  it("shares answers with requests carrying only cookies that are not the app's", async () => {
    const app = await startApp();
    const stored = await expectRenders(app, 1, () => request(app, "/soup?offer", { Cookie: "theme=dark" }));
    expect(stored.headers["x-offer-available"]).toBe("yes");
    const anonymous = await expectRenders(app, 0, () => request(app, "/soup?offer"));
    const themed = await expectRenders(app, 0, () => request(app, "/soup?offer", { Cookie: "theme=dark; lang=recipals_en" }));
    expect(anonymous.body.equals(stored.body)).toBe(true);
    expect(themed.body.equals(stored.body)).toBe(true);
  });

  it("does not answer HEAD or POST from the cache, nor keep their answers", async () => {
    const app = await startApp();
    await expectRenders(app, 1, () => request(app, "/soup?offer", {}, "POST"));
    await expectRenders(app, 1, () => request(app, "/soup?offer", {}, "HEAD"));
    expect(app.cache.size).toBe(0);
    await expectRenders(app, 1, () => request(app, "/soup?offer"));
    const head = await expectRenders(app, 1, () => request(app, "/soup?offer", {}, "HEAD"));
    expect(head.body.length).toBe(0);
    await expectRenders(app, 1, () => request(app, "/soup?offer", {}, "POST"));
    await expectRenders(app, 0, () => request(app, "/soup?offer"));
  });
});

describe("page cache: freshness", () => {
  it("renders again once version() changes, then keeps the new answer", async () => {
    const app = await startApp();
    await expectRenders(app, 1, () => request(app, "/soup?offer"));
    app.version = "v2";
    const fresh = await expectRenders(app, 1, () => request(app, "/soup?offer"));
    expect(fresh.headers["x-render"]).toBe("2");
    const kept = await expectRenders(app, 0, () => request(app, "/soup?offer"));
    expect(kept.headers["x-render"]).toBe("2");
    expect(app.cache.size).toBe(1);
  });

  it("drops an out-of-date entry even when the new answer is not offered", async () => {
    const app = await startApp();
    await request(app, "/soup?offer");
    app.version = "v2";
    await expectRenders(app, 1, () => request(app, "/soup?offer", { "X-Withhold": "1" }));
    expect(app.cache.size).toBe(0);
    expect(app.cache.bytes).toBe(0);
  });

  it("dates an entry by the version when its render started", async () => {
    const app = await startApp();
    // The data changes while this page renders: what it shows may already be out of date.
    await expectRenders(app, 1, () => request(app, "/soup?offer&bump"));
    expect(app.version).toBe("v1+");
    await expectRenders(app, 1, () => request(app, "/soup?offer&bump"));
  });

  it("renders again once ttlMs has passed, and not a millisecond before", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2030-01-01T12:00:00Z") });
    const app = await startApp({ ttlMs: 5_000 });
    const stored = Date.now();
    await expectRenders(app, 1, () => request(app, "/soup?offer"));
    vi.setSystemTime(stored + 4_999);
    await expectRenders(app, 0, () => request(app, "/soup?offer"));
    vi.setSystemTime(stored + 5_000);
    await expectRenders(app, 1, () => request(app, "/soup?offer"));
    await expectRenders(app, 0, () => request(app, "/soup?offer"));
  });

  it("expires with a real clock too (short ttlMs)", async () => {
    const app = await startApp({ ttlMs: 40 });
    await expectRenders(app, 1, () => request(app, "/soup?offer"));
    await new Promise((resolve) => setTimeout(resolve, 80));
    await expectRenders(app, 1, () => request(app, "/soup?offer"));
  });
});

describe("page cache: keys", () => {
  it("keys entries by host", async () => {
    const app = await startApp();
    await expectRenders(app, 1, () => request(app, "/soup?offer", { Host: "a.example" }));
    await expectRenders(app, 1, () => request(app, "/soup?offer", { Host: "b.example" }));
    await expectRenders(app, 0, () => request(app, "/soup?offer", { Host: "a.example" }));
    await expectRenders(app, 0, () => request(app, "/soup?offer", { Host: "b.example" }));
    expect(app.cache.size).toBe(2);
  });

  it("keys entries by the full URL, query included", async () => {
    const app = await startApp();
    await expectRenders(app, 1, () => request(app, "/soup?offer&page=1"));
    await expectRenders(app, 1, () => request(app, "/soup?offer&page=2"));
    await expectRenders(app, 1, () => request(app, "/stew?offer&page=1"));
    await expectRenders(app, 0, () => request(app, "/soup?offer&page=1"));
    await expectRenders(app, 0, () => request(app, "/soup?offer&page=2"));
    expect(app.cache.size).toBe(3);
  });

  it("keys entries by Origin: a request with another (or no) Origin gets its own", async () => {
    const app = await startApp();
    await expectRenders(app, 1, () => request(app, "/api/soup?offer", { Origin: "https://spa.example" }));
    await expectRenders(app, 1, () => request(app, "/api/soup?offer", { Origin: "https://other.example" }));
    await expectRenders(app, 1, () => request(app, "/api/soup?offer"));
    await expectRenders(app, 0, () => request(app, "/api/soup?offer", { Origin: "https://spa.example" }));
    await expectRenders(app, 0, () => request(app, "/api/soup?offer"));
  });

  it("keys entries by X-Forwarded-Host (Remix builds the page's URL from it): one visitor's header cannot poison another's page", async () => {
    const app = await startApp();
    await expectRenders(app, 1, () => request(app, "/soup?offer", { Host: "recipals.example", "X-Forwarded-Host": "evil.example:6666" }));
    await expectRenders(app, 1, () => request(app, "/soup?offer", { Host: "recipals.example" }));
    await expectRenders(app, 0, () => request(app, "/soup?offer", { Host: "recipals.example" }));
    await expectRenders(app, 0, () => request(app, "/soup?offer", { Host: "recipals.example", "X-Forwarded-Host": "evil.example:6666" }));
  });

  it("keys entries by protocol (as Express sees it behind a trusted proxy)", async () => {
    const app = await startApp({ trustProxy: true });
    await expectRenders(app, 1, () => request(app, "/soup?offer", { "X-Forwarded-Proto": "https" }));
    await expectRenders(app, 1, () => request(app, "/soup?offer", { "X-Forwarded-Proto": "http" }));
    await expectRenders(app, 0, () => request(app, "/soup?offer", { "X-Forwarded-Proto": "https" }));
  });
});

describe("page cache: shuffled pages", () => {
  it("keeps several copies of a page the app says is shuffled, answering each request from one at random", async () => {
    const app = await startApp({ variantsOf: (url) => (url.startsWith("/home") ? 4 : 1) });
    const seen = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const reply = await request(app, "/home?offer");
      const render = String(reply.headers["x-render"]);
      seen.set(render, (seen.get(render) ?? 0) + 1);
    }
    // Four copies at most were rendered; with 40 random picks, all four (almost surely at least three) were answered.
    expect(app.renders).toBeLessThanOrEqual(4);
    expect(seen.size).toBeGreaterThanOrEqual(3);
    expect(app.cache.size).toBe(seen.size);
    // Other pages keep one copy.
    await expectRenders(app, 1, () => request(app, "/stew?offer"));
    await expectRenders(app, 0, () => request(app, "/stew?offer"));
  });
});

describe("page cache: Content-Security-Policy of kept pages", () => {
  it("does not keep a page holding an inline script its nonce did not allow", async () => {
    const app = await startApp();
    await expectRenders(app, 1, () => request(app, "/soup?offer&inject"));
    await expectRenders(app, 1, () => request(app, "/soup?offer&inject"));
    expect(app.cache.size).toBe(0);
  });

  it("answers the live render with its own nonce", async () => {
    const app = await startApp();
    const first = await request(app, "/soup?offer");
    const nonce = /<script nonce="([^"]+)">/.exec(first.body.toString("utf8"))?.[1];
    expect(nonce).toBeDefined();
    expect(first.headers["content-security-policy"]).toBe(POLICY(nonce!));
  });

  it("replaces the nonce by one hash per distinct executable inline script", async () => {
    const app = await startApp();
    const first = await request(app, "/soup?offer");
    const kept = await expectRenders(app, 0, () => request(app, "/soup?offer"));
    const policy = kept.headers["content-security-policy"];
    expect(policy).not.toMatch(/nonce/i);

    const before = directives(first.headers["content-security-policy"]);
    const after = directives(policy);
    // Every other directive is untouched, in its place.
    expect(after.length).toBe(before.length);
    after.forEach((directive, i) => {
      if (!directive.startsWith("script-src ")) expect(directive).toBe(before[i]);
    });

    const scriptSrc = after.find((directive) => directive.startsWith("script-src "))!.split(" ").slice(1);
    const hashes = scriptSrc.filter((source) => source.startsWith("'sha256-"));
    expect(scriptSrc.filter((source) => !source.startsWith("'sha256-"))).toEqual(["'self'"]);
    // The boot script (twice in the page) and the module script; not the JSON-LD, not /x.js.
    expect([...hashes].sort()).toEqual([sha256(BOOT_SCRIPT), sha256(MODULE_SCRIPT)].sort());
    expect(hashes).not.toContain(sha256(JSON_LD));
    expect(hashes).not.toContain(sha256(""));
  });

  it("computes the hashes from the exact script text the kept page carries", async () => {
    const app = await startApp();
    await request(app, "/soup?offer");
    const kept = await request(app, "/soup?offer");
    const html = kept.body.toString("utf8");
    const texts = [...html.matchAll(/<script nonce="[^"]*">([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
    expect(texts).toEqual([BOOT_SCRIPT, BOOT_SCRIPT]);
    for (const text of texts) expect(kept.headers["content-security-policy"]).toContain(sha256(text));
  });
});

describe("page cache: encodings", () => {
  async function keptPage(app: TestApp): Promise<string> {
    const first = await request(app, "/soup?offer");
    expect(first.headers["content-encoding"]).toBeUndefined();
    return first.body.toString("utf8");
  }

  it.each([
    ["br", "br"],
    ["gzip", "gzip"],
    ["gzip, deflate, br", "br"],
    ["br;q=0, gzip", "gzip"],
    ["deflate;q=0, identity", undefined],
    ["", undefined],
  ])("answers Accept-Encoding %j with %s", async (acceptEncoding, expected) => {
    const app = await startApp();
    const html = await keptPage(app);
    const reply = await expectRenders(app, 0, () => request(app, "/soup?offer", acceptEncoding ? { "Accept-Encoding": acceptEncoding } : {}));
    expect(reply.headers["content-encoding"]).toBe(expected);
    expect(Number(reply.headers["content-length"])).toBe(reply.body.length);
    expect(decode(reply)).toBe(html);
    expect(String(reply.headers.vary)).toMatch(/\bAccept-Encoding\b/i);
  });

  it("keeps the uncompressed page even when the live answer was compressed", async () => {
    const app = await startApp();
    const live = await request(app, "/soup?offer", { "Accept-Encoding": "br" });
    expect(live.headers["content-encoding"]).toBe("br");
    const kept = await expectRenders(app, 0, () => request(app, "/soup?offer"));
    expect(kept.headers["content-encoding"]).toBeUndefined();
    expect(kept.body.toString("utf8")).toBe(decode(live));
  });

  it("compresses the kept page smaller than it is", async () => {
    const app = await startApp();
    const html = await keptPage(app);
    const br = await request(app, "/soup?offer", { "Accept-Encoding": "br" });
    const gzip = await request(app, "/soup?offer", { "Accept-Encoding": "gzip" });
    expect(br.body.length).toBeLessThan(Buffer.byteLength(html) / 2);
    expect(gzip.body.length).toBeLessThan(Buffer.byteLength(html) / 2);
  });
});

describe("page cache: conditional requests", () => {
  it.each([
    ["the stored ETag", (etag: string) => etag],
    ["the ETag without its W/ prefix", (etag: string) => etag.replace(/^W\//, "")],
    ["the ETag in a list", (etag: string) => `"nope", ${etag} , "other"`],
    ["*", () => "*"],
  ])("answers If-None-Match with %s by a bodiless 304", async (_case, ifNoneMatch: (etag: string) => string) => {
    const app = await startApp();
    const first = await request(app, "/soup?offer");
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"[0-9a-f]+"$/);
    const reply = await expectRenders(app, 0, () => request(app, "/soup?offer", { "If-None-Match": ifNoneMatch(etag), "Accept-Encoding": "gzip" }));
    expect(reply.status).toBe(304);
    expect(reply.body.length).toBe(0);
    expect(reply.headers.etag).toBe(etag);
    expect(reply.headers["content-security-policy"]).toBeUndefined();
    expect(reply.headers["content-type"]).toBeUndefined();
    expect(reply.headers["content-encoding"]).toBeUndefined();
    // A 304 carries the Vary the 200 would have (compression adds none to a 304).
    expect(reply.headers.vary).toBe("Cookie, Accept-Encoding");
  });

  it("answers the whole page when If-None-Match names another tag", async () => {
    const app = await startApp();
    const first = await request(app, "/soup?offer");
    const reply = await expectRenders(app, 0, () => request(app, "/soup?offer", { "If-None-Match": 'W/"something-else"' }));
    expect(reply.status).toBe(200);
    expect(reply.body.equals(first.body)).toBe(true);
  });

  it("gives a kept answer without an ETag one derived from its body", async () => {
    const app = await startApp();
    const first = await request(app, "/soup?offer&noetag");
    expect(first.headers.etag).toBeUndefined();
    const kept = await request(app, "/soup?offer&noetag");
    const etag = String(kept.headers.etag);
    expect(etag).toMatch(/^W\/"[\w-]{27}"$/);
    const again = await expectRenders(app, 0, () => request(app, "/soup?offer&noetag", { "If-None-Match": etag }));
    expect(again.status).toBe(304);
  });
});

describe("page cache: withheld answers and memory", () => {
  it("does not keep an answer the app withheld, even when it was also offered", async () => {
    const app = await startApp();
    await expectRenders(app, 1, () => request(app, "/soup?offer&withhold"));
    await expectRenders(app, 1, () => request(app, "/soup?offer&withhold"));
    expect(app.cache.size).toBe(0);
  });

  it("drops every entry at once when the database version moves, not only the one asked for", async () => {
    const app = await startApp();
    await request(app, "/a?offer");
    await request(app, "/b?offer");
    expect(app.cache.size).toBe(2);
    app.version = "v2";
    await request(app, "/c");
    expect(app.cache.size).toBe(0);
    expect(app.cache.bytes).toBe(0);
  });

  it("keeps at most maxEntries, dropping the least recently used", async () => {
    const app = await startApp({ maxEntries: 2 });
    await request(app, "/a?offer");
    await request(app, "/b?offer");
    await expectRenders(app, 0, () => request(app, "/a?offer"));
    await request(app, "/c?offer");
    expect(app.cache.size).toBe(2);
    await expectRenders(app, 0, () => request(app, "/a?offer"));
    await expectRenders(app, 1, () => request(app, "/b?offer"));
  });

  it("counts an entry's key, headers and overhead, not only its bodies", async () => {
    const app = await startApp();
    const plain = await request(app, "/a?offer", { "Accept-Encoding": "identity" });
    await request(app, "/a?offer");
    const [gzip, br] = [await request(app, "/a?offer", { "Accept-Encoding": "gzip" }), await request(app, "/a?offer", { "Accept-Encoding": "br" })];
    expect(app.cache.bytes).toBeGreaterThan(plain.body.length + gzip.body.length + br.body.length + 1024);
  });
});

describe("page cache: size limits", () => {
  it("does not keep an answer larger than maxEntryBytes, even written in small pieces", async () => {
    const app = await startApp({ maxEntryBytes: 8 * 1024 });
    await expectRenders(app, 1, () => request(app, "/soup?offer&pad=10000"));
    await expectRenders(app, 1, () => request(app, "/soup?offer&pad=10000"));
    await expectRenders(app, 1, () => request(app, "/soup?offer&pad=10000&chunks"));
    await expectRenders(app, 1, () => request(app, "/soup?offer&pad=10000&chunks"));
    expect(app.cache.size).toBe(0);
    // A page under the limit is kept.
    await expectRenders(app, 1, () => request(app, "/soup?offer"));
    await expectRenders(app, 0, () => request(app, "/soup?offer"));
  });

  it("evicts the least recently used entry beyond maxBytes", async () => {
    // One page's size in the cache (identity + gzip + br), measured on a cache of its own.
    const probe = await startApp();
    await request(probe, "/a?offer");
    const entryBytes = probe.cache.bytes;
    expect(entryBytes).toBeGreaterThan(0);

    // Room for two such pages, not three.
    const app = await startApp({ maxBytes: Math.floor(entryBytes * 2.5) });
    await expectRenders(app, 1, () => request(app, "/a?offer"));
    await expectRenders(app, 1, () => request(app, "/b?offer"));
    await expectRenders(app, 0, () => request(app, "/a?offer")); // a is now the most recent
    await expectRenders(app, 1, () => request(app, "/c?offer")); // evicts b, the oldest untouched
    expect(app.cache.size).toBe(2);
    expect(app.cache.bytes).toBeLessThanOrEqual(Math.floor(entryBytes * 2.5));
    await expectRenders(app, 0, () => request(app, "/a?offer"));
    await expectRenders(app, 0, () => request(app, "/c?offer"));
    await expectRenders(app, 1, () => request(app, "/b?offer"));
  });

  it("does not let one answer larger than maxBytes flush the others", async () => {
    const probe = await startApp();
    await request(probe, "/a?offer");
    const app = await startApp({ maxBytes: probe.cache.bytes * 3 });
    await request(app, "/a?offer");
    await request(app, "/b?offer");
    // Random padding does not compress: this entry alone is over maxBytes.
    await expectRenders(app, 1, () => request(app, "/big?offer&pad=20000&random"));
    expect(app.cache.size).toBe(2);
    await expectRenders(app, 0, () => request(app, "/a?offer"));
    await expectRenders(app, 0, () => request(app, "/b?offer"));
  });

  it("counts bytes down again when entries are replaced or cleared", async () => {
    const app = await startApp();
    await request(app, "/a?offer");
    const one = app.cache.bytes;
    app.version = "v2";
    await request(app, "/a?offer");
    expect(app.cache.size).toBe(1);
    expect(Math.abs(app.cache.bytes - one)).toBeLessThan(one / 10); // replaced, not added
    app.cache.clear();
    expect(app.cache.size).toBe(0);
    expect(app.cache.bytes).toBe(0);
    await expectRenders(app, 1, () => request(app, "/a?offer"));
  });
});

describe("page cache: scopes (what a write drops)", () => {
  it("drops only the entries naming a changed scope", async () => {
    const app = await startApp({ scoped: true });
    await request(app, "/a?offer&scope=recipe:a,feed");
    await request(app, "/b?offer&scope=recipe:b");
    await request(app, "/info?offer&scope=");
    change(app, "recipe:a");
    await expectRenders(app, 1, () => request(app, "/a?offer&scope=recipe:a,feed"));
    await expectRenders(app, 0, () => request(app, "/b?offer&scope=recipe:b"));
    await expectRenders(app, 0, () => request(app, "/info?offer&scope="));
    change(app, "feed", "user:x");
    await expectRenders(app, 1, () => request(app, "/a?offer&scope=recipe:a,feed"));
    await expectRenders(app, 0, () => request(app, "/b?offer&scope=recipe:b"));
    expect(app.cache.dropped).toBe(2);
  });

  it("drops an answer that named no scope on any change, and keeps everything when nothing a page shows changed", async () => {
    const app = await startApp({ scoped: true });
    await request(app, "/list?offer");
    await request(app, "/b?offer&scope=recipe:b");
    // A commit that changed no scope (a sign-in): the version moves, nothing is dropped.
    change(app);
    await expectRenders(app, 0, () => request(app, "/list?offer"));
    await expectRenders(app, 0, () => request(app, "/b?offer&scope=recipe:b"));
    change(app, "recipe:zzz");
    await expectRenders(app, 1, () => request(app, "/list?offer"));
    await expectRenders(app, 0, () => request(app, "/b?offer&scope=recipe:b"));
  });

  it("drops every entry, those naming no data too, when everything changed", async () => {
    const app = await startApp({ scoped: true });
    await request(app, "/b?offer&scope=recipe:b");
    await request(app, "/info?offer&scope=");
    change(app, "*");
    expect(app.cache.size).toBe(2);
    await expectRenders(app, 1, () => request(app, "/info?offer&scope="));
    expect(app.cache.size).toBe(1);
    await expectRenders(app, 1, () => request(app, "/b?offer&scope=recipe:b"));
  });

  it("answers nothing from memory, and keeps nothing, while the changes cannot be told", async () => {
    const app = await startApp({ scoped: true });
    await request(app, "/b?offer&scope=recipe:b");
    app.unknown = true;
    change(app, "recipe:b");
    await expectRenders(app, 1, () => request(app, "/b?offer&scope=recipe:b"));
    await expectRenders(app, 1, () => request(app, "/c?offer&scope=recipe:c"));
    await expectRenders(app, 1, () => request(app, "/c?offer&scope=recipe:c"));
    app.unknown = false;
    await expectRenders(app, 1, () => request(app, "/b?offer&scope=recipe:b"));
    await expectRenders(app, 0, () => request(app, "/b?offer&scope=recipe:b"));
  });

  it("does not keep an answer whose scope changed while it rendered; keeps one when another scope changed", async () => {
    const app = await startApp({ scoped: true });
    await expectRenders(app, 1, () => request(app, "/a?offer&scope=recipe:a&change=recipe:a"));
    await expectRenders(app, 1, () => request(app, "/a?offer&scope=recipe:a&change=recipe:a"));
    await expectRenders(app, 1, () => request(app, "/b?offer&scope=recipe:b&change=recipe:a"));
    await expectRenders(app, 0, () => request(app, "/b?offer&scope=recipe:b&change=recipe:a"));
    // An answer that named nothing may show the changed scope.
    await expectRenders(app, 1, () => request(app, "/list?offer&change=recipe:a"));
    await expectRenders(app, 1, () => request(app, "/list?offer&change=recipe:a"));
  });

  it("asks what changed only when the version moved: a request costs one version() while nothing changes", async () => {
    const app = await startApp({ scoped: true });
    await request(app, "/b?offer&scope=recipe:b");
    const asked = app.asked;
    for (let i = 0; i < 20; i++) await request(app, "/b?offer&scope=recipe:b");
    expect(app.asked).toBe(asked);
    change(app, "recipe:c");
    await request(app, "/b?offer&scope=recipe:b");
    await request(app, "/b?offer&scope=recipe:b");
    expect(app.asked).toBe(asked + 1);
  });

  it("forgets an entry's scopes with the entry (evicted, expired or replaced)", async () => {
    const app = await startApp({ scoped: true, maxEntries: 1 });
    await request(app, "/a?offer&scope=recipe:a");
    await request(app, "/b?offer&scope=recipe:b");
    expect(app.cache.size).toBe(1);
    change(app, "recipe:a");
    await expectRenders(app, 0, () => request(app, "/b?offer&scope=recipe:b"));
    expect(app.cache.dropped).toBe(0);
  });
});

describe("pickEncoding", () => {
  it.each([
    [undefined, "identity"],
    ["", "identity"],
    ["identity", "identity"],
    ["deflate", "identity"],
    ["gzip", "gzip"],
    ["GZIP", "gzip"],
    ["br", "br"],
    ["gzip, deflate, br", "br"],
    ["gzip, deflate, br, zstd", "br"],
    ["br;q=0, gzip", "gzip"],
    ["br; q=0, gzip", "gzip"],
    ["br;q=0.5, gzip;q=0.8", "gzip"],
    ["br;q=0.8, gzip;q=0.8", "br"],
    ["br;q=0.9, gzip", "gzip"],
    ["gzip;q=0", "identity"],
    ["gzip;q=0, br;q=0", "identity"],
    ["*", "br"],
    ["*;q=0", "identity"],
    ["br;q=0, *", "gzip"],
    ["gzip;q=0.2, *;q=0.1", "gzip"],
    ["br;q=0, gzip;q=0, *", "identity"],
    ["br ;q=0, *", "gzip"],
    ["gzip ;q=1", "gzip"],
  ])("%j → %s", (acceptEncoding, expected) => expect(pickEncoding(acceptEncoding)).toBe(expected));
});

describe("inlineScripts", () => {
  it("finds the text of inline scripts, exactly", () => {
    expect(inlineScripts('<p>x</p><script nonce="n">\n  a();\n</script><script>b()</script>')).toEqual(["\n  a();\n", "b()"]);
  });

  it("skips external scripts, whatever else they carry", () => {
    expect(inlineScripts('<script src="/a.js"></script><script defer src=\'/b.js\'>ignored()</script><script data-src="x">kept()</script>')).toEqual([
      "kept()",
    ]);
  });

  it("skips data blocks such as JSON-LD but keeps JavaScript and modules", () => {
    const html = [
      '<script type="application/ld+json">{"@type":"Recipe"}</script>',
      '<script type="text/plain">not run</script>',
      '<script type="module">mod()</script>',
      '<script type="text/javascript">js()</script>',
      '<script type="application/javascript">app()</script>',
      '<script type=" Module ">spaced()</script>',
    ].join("");
    expect(inlineScripts(html)).toEqual(["mod()", "js()", "app()", "spaced()"]);
  });

  it("matches tags in any letter case and end tags with spaces", () => {
    expect(inlineScripts("<SCRIPT>upper()</SCRIPT ><Script nonce=x>mixed()</sCrIpT\n>")).toEqual(["upper()", "mixed()"]);
  });

  it("reads single-quoted and unquoted types, runs every JavaScript MIME type, and takes > inside quoted attributes", () => {
    const html = [
      "<script type='application/ld+json'>{}</script>",
      "<script type=text/plain>no()</script>",
      '<script type="application/x-javascript">legacy()</script>',
      "<script type=text/jscript>old()</script>",
      '<script data-x="a>b">quoted()</script>',
    ].join("");
    expect(inlineScripts(html)).toEqual(["legacy()", "old()", "quoted()"]);
  });

  it("normalises CR LF and lone CR to LF, as the HTML parser does before hashing", () => {
    expect(inlineScripts("<script>a();\r\nb();\rc();</script>")).toEqual(["a();\nb();\nc();"]);
  });

  it("keeps an empty inline script (its hash is that of the empty string)", () => {
    expect(inlineScripts("<script></script>")).toEqual([""]);
  });
});

describe("policyWithHashes", () => {
  const html = `<script nonce=abc>a()</script><script nonce="abc">a()</script><script nonce='abc'>b()</script><script type="application/ld+json">{}</script>`;

  it("refuses (null) a page with an inline script the nonce did not allow: hashing it would let it run for everyone", () => {
    const policy = "script-src 'self' 'nonce-abc'";
    expect(policyWithHashes(policy, `${html}<script>alert(document.cookie)</script>`)).toBeNull();
    expect(policyWithHashes(policy, `${html}<script nonce="other">x()</script>`)).toBeNull();
    // External scripts and data blocks need no nonce.
    expect(policyWithHashes(policy, `${html}<script src="/x.js"></script>`)).not.toBeNull();
  });

  it("puts the distinct hashes in place of the nonce and leaves other directives alone", () => {
    expect(policyWithHashes("default-src 'self'; script-src 'self' 'nonce-abc' 'strict-dynamic'; object-src 'none'", html)).toBe(
      `default-src 'self'; script-src 'self' 'strict-dynamic' ${sha256("a()")} ${sha256("b()")}; object-src 'none'`,
    );
  });

  it("leaves a policy without script-src as it is", () => {
    expect(policyWithHashes("default-src 'self'; img-src https:", html)).toBe("default-src 'self'; img-src https:");
  });

  it("allows no inline script when the page has none", () => {
    expect(policyWithHashes("script-src 'nonce-abc'", "<script src=/x.js></script>")).toBe("script-src");
  });
});

describe("isShareableRequest", () => {
  const req = (method: string, headers: Record<string, string> = {}) => ({ method, headers });

  it.each([
    ["a GET without cookies", req("GET"), true],
    ["a GET with another site's cookies", req("GET", { cookie: "theme=dark; _ga=1" }), true],
    ["a GET whose cookie value starts with recipals_", req("GET", { cookie: "theme=recipals_dark" }), true],
    ["a GET whose cookie name only contains recipals_", req("GET", { cookie: "my_recipals_x=1" }), true],
    ["a GET with the session cookie", req("GET", { cookie: "recipals_session=abc" }), false],
    ["a GET with the sign-up cookie after another", req("GET", { cookie: "foo=1; recipals_signup=x" }), false],
    ["a GET with our cookie after a bare semicolon", req("GET", { cookie: "foo=1;recipals_x=2" }), false],
    ["a GET with the session cookie written with a space before =", req("GET", { cookie: "recipals_session =abc" }), false],
    ["a GET with the session cookie after a tab", req("GET", { cookie: "a=1;\trecipals_session=abc" }), false],
    ["a GET with Authorization", req("GET", { authorization: "Bearer t" }), false],
    ["a HEAD", req("HEAD"), false],
    ["a POST", req("POST"), false],
  ])("%s → %s", (_case, incoming, expected) => expect(isShareableRequest(incoming, isPersonalRequest)).toBe(expected));
});

describe("shuffled copies (each route's rule, found by Remix's route matching)", () => {
  let shuffledVariants: (url: string) => number;
  beforeAll(async () => {
    shuffledVariants = requestRules(await appRoutes()).shuffledVariants;
  }, 60_000);

  it.each([
    ["/ReciPals/Home", SHUFFLED_COPIES],
    ["/recipals/home", SHUFFLED_COPIES],
    ["/ReciPals/Home.data?_routes=routes%2FReciPals.Home", SHUFFLED_COPIES],
    ["/ReciPals/Home?seed=42", 1],
    ["/ReciPals/Home?page=2&seed=42", 1],
    ["/ReciPals/Search", SHUFFLED_COPIES],
    ["/ReciPals/Search?q=", SHUFFLED_COPIES],
    ["/ReciPals/Search?q=chicken", 1],
    ["/ReciPals/Search?seed=7", 1],
    ["/ReciPals/Search.data?q=", SHUFFLED_COPIES],
    // The same page by another spelling of its address (a list of URL patterns missed these).
    ["/ReciPals/Home/", SHUFFLED_COPIES],
    ["/RECIPALS/HOME.data", SHUFFLED_COPIES],
    ["/ReciPals/Home/Likes/p1", SHUFFLED_COPIES],
    ["/ReciPals/Recipes/r1", 1],
    ["/ReciPals/Nowhere", 1],
  ])("%s → %d", (url, copies) => expect(shuffledVariants(url)).toBe(copies));
});
