import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

import { chromium } from "@playwright/test";
import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { paths } from "~/lib/paths";

import { suiteChromiumPath } from "../support/chromium";
import {
  ADMIN_PASSWORD,
  ASSETS_DIR,
  postForm,
  request,
  ROOT,
  seededDatabase,
  SEEDED,
  SEEDED_2,
  signIn,
  startServer,
  stopAllServers,
  tempDir,
  type HttpResult,
  type RunningServer,
} from "../support/server/server";

// Over real HTTP against scripts/server.js (NODE_ENV=production, loopback): the cross-site
// guard, the Content-Security-Policy and its nonce, the other security headers, cookie flags,
// stored markup rendered as text, and sign-in throttling that survives a restart.

const SPA_ORIGIN = "http://spa.example:3000";
let dir: string;
let prod: RunningServer;
let nonProd: RunningServer;
let dbFile: string;

beforeAll(async () => {
  dir = tempDir("http");
  dbFile = await seededDatabase(path.join(dir, "prod"));
  const otherDb = await seededDatabase(path.join(dir, "test-mode"));
  [prod, nonProd] = await Promise.all([
    startServer({ databasePath: dbFile, env: { ALLOWED_ORIGINS: SPA_ORIGIN } }),
    startServer({ databasePath: otherDb, env: { NODE_ENV: "test" } }),
  ]);
}, 300_000);

afterAll(async () => {
  await stopAllServers();
  fs.rmSync(dir, { recursive: true, force: true });
});

function readDb<T>(query: (db: SQLite.Database) => T): T {
  const db = new SQLite(dbFile, { readonly: true, fileMustExist: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
}

const FOREIGN = ["https://evil.example", "null", "http://127.0.0.1.evil.example", "http://localhost:1", "http://127.0.0.1:1"];

describe("cross-site guard", () => {
  it("refuses a state-changing page post from a foreign Origin with 403, before the route runs", async () => {
    const failuresBefore = readDb((db) => db.prepare("select count(*) as n from sign_in_failures").get() as { n: number }).n;
    for (const origin of FOREIGN) {
      const res = await postForm(prod, "/ReciPals/Account/Login", { username: SEEDED.username, password: SEEDED.password }, undefined, { Origin: origin });
      expect(res.status, origin).toBe(403);
      // A page saying why (app/server/http/early-answers.server.ts); the API and Remix's client get their own forms.
      expect(res.body).toContain("<h1>Not allowed</h1><p>Cross-site requests are not allowed.</p>");
      expect(res.setCookies, origin).toEqual([]);
    }
    // Refused before the route: not even a failed sign-in was recorded.
    expect(readDb((db) => db.prepare("select count(*) as n from sign_in_failures").get() as { n: number }).n).toBe(failuresBefore);
  });

  it("refuses a cross-site like even when the browser sends the session cookie, and nothing is written", async () => {
    const cookie = await signIn(prod, SEEDED_2.username, SEEDED_2.password);
    const res = await postForm(prod, "/ReciPals/Posts/recipeBot-P7/Like", { intent: "like" }, cookie, { Origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(readDb((db) => db.prepare("select count(*) as n from likes where post_id = 'recipeBot-P7' and user_id = ?").get(SEEDED_2.id) as { n: number }).n).toBe(0);
    // The same post from our own page works.
    const own = await postForm(prod, "/ReciPals/Posts/recipeBot-P7/Like", { intent: "like" }, cookie);
    expect(own.status).toBe(302);
    expect(readDb((db) => db.prepare("select count(*) as n from likes where post_id = 'recipeBot-P7' and user_id = ?").get(SEEDED_2.id) as { n: number }).n).toBe(1);
  });

  it("refuses every non-GET method on /api from a foreign Origin with a JSON 403", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      for (const urlPath of ["/api/users/signin", `/api/users/${SEEDED.id}`, "/api/posts", "/api/nothing"]) {
        const res = await request(prod, method, urlPath, { headers: { Origin: "https://evil.example", "Content-Type": "application/json" }, body: "{}" });
        expect(res.status, `${method} ${urlPath}`).toBe(403);
        expect(res.headers["content-type"]).toMatch(/json/);
        expect(JSON.parse(res.body)).toEqual({ message: "Cross-site requests are not allowed." });
        expect(res.headers["access-control-allow-origin"]).toBeUndefined();
      }
    }
  });

  it("lets our own origin, an ALLOWED_ORIGINS origin and Origin-less clients through", async () => {
    const own = await postForm(prod, "/ReciPals/Account/Login", { username: SEEDED.username, password: SEEDED.password });
    expect(own.status).toBe(302);
    const noOrigin = await request(prod, "POST", "/ReciPals/Account/Login", {
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: SEEDED.username, password: SEEDED.password }).toString(),
    });
    expect(noOrigin.status).toBe(302);
    const spa = await request(prod, "POST", "/api/users/signin", {
      headers: { Origin: SPA_ORIGIN, "Content-Type": "application/json" },
      body: JSON.stringify({ username: SEEDED.username, password: SEEDED.password }),
    });
    expect(spa.status).toBe(200);
    expect(spa.headers["access-control-allow-origin"]).toBe(SPA_ORIGIN);
    expect(spa.headers["access-control-allow-credentials"]).toBe("true");
  });

  it("answers a foreign preflight without any Access-Control-Allow-* header", async () => {
    const res = await request(prod, "OPTIONS", "/api/posts", {
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "content-type" },
    });
    expect(res.status).toBeLessThan(500);
    for (const name of Object.keys(res.headers)) expect(name).not.toMatch(/^access-control-allow/);
  });
});

// ---------------------------------------------------------------------------------------------

function cspOf(header: string | string[] | undefined): Map<string, string[]> {
  expect(typeof header, "Content-Security-Policy header").toBe("string");
  const directives = new Map<string, string[]>();
  for (const part of (header as string).split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) directives.set(name, values);
  }
  return directives;
}

function scriptTags(html: string): { attrs: string; content: string }[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].map((m) => ({ attrs: m[1] ?? "", content: m[2] ?? "" }));
}

/**
 * Checks the page's script policy against its body and says which kind it is: a fresh render
 * allows its inline scripts by this response's nonce; a page answered from the shared cache
 * (byte-for-byte the same for every visitor) by the SHA-256 of exactly its inline scripts.
 */
function checkScriptPolicy(page: string, res: HttpResult): { nonce: string } | { hashes: string[] } {
  const csp = cspOf(res.headers["content-security-policy"]);
  expect(csp.get("default-src")).toEqual(["'self'"]);
  expect(csp.get("object-src")).toEqual(["'none'"]);
  expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
  expect(csp.get("base-uri")).toEqual(["'self'"]);
  expect(csp.get("form-action")).toEqual(["'self'"]);
  const scriptSrc = csp.get("script-src") ?? [];
  expect(scriptSrc).toContain("'self'");
  expect(scriptSrc.join(" ")).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
  const nonceToken = scriptSrc.find((token) => token.startsWith("'nonce-"));
  const hashTokens = scriptSrc.filter((token) => token.startsWith("'sha256-"));
  expect(Boolean(nonceToken) !== hashTokens.length > 0, `${page}: a nonce or hashes, not both`).toBe(true);
  const nonce = nonceToken?.slice("'nonce-".length, -1);
  if (nonce !== undefined) expect(nonce.length).toBeGreaterThanOrEqual(16);

  const scripts = scriptTags(res.body);
  expect(scripts.length, `${page} has Remix's scripts`).toBeGreaterThan(0);
  const inlineHashes = new Set<string>();
  const renderedWith = new Set<string>();
  for (const { attrs, content } of scripts) {
    const src = /\bsrc="([^"]*)"/.exec(attrs)?.[1];
    if (src !== undefined) {
      expect(src, `${page}: scripts come from this origin`).toMatch(/^\/(?!\/)/);
      continue;
    }
    if (/type="application\/ld\+json"/.test(attrs)) {
      // Data, not code: not executed, but must not be able to close its tag.
      expect(content).not.toMatch(/<\/?script/i);
      continue;
    }
    if (nonce !== undefined) expect(attrs, `${page}: inline script without the nonce`).toContain(`nonce="${nonce}"`);
    renderedWith.add(/\bnonce="([^"]*)"/.exec(attrs)?.[1] ?? "(none)");
    inlineHashes.add(`'sha256-${crypto.createHash("sha256").update(content, "utf8").digest("base64")}'`);
  }
  // Hashes allow exactly the page's own inline scripts: none missing (the page would break),
  // none extra (the policy would allow code that is not on the page).
  if (nonce === undefined) expect(new Set(hashTokens), `${page}: hashes of its inline scripts`).toEqual(inlineHashes);
  // A kept page is one render's bytes: every inline script bears that render's nonce (a script
  // without it would be markup that got in, and is never made runnable by a hash).
  expect(renderedWith.size, `${page}: inline scripts from one render`).toBe(1);
  expect(renderedWith.has("(none)"), `${page}: an inline script without a nonce`).toBe(false);
  // Inline event handlers and javascript: URLs would be blocked by the CSP (and are an XSS smell).
  expect(res.body).not.toMatch(/<[^>]+\son[a-z]+=/i);
  expect(res.body).not.toMatch(/(href|src|action)="\s*javascript:/i);
  // Inline style attributes would be blocked by style-src 'self'.
  expect(res.body, `${page}: inline style attribute`).not.toMatch(/<[^>]+\sstyle="/i);
  // The inline stylesheets are the build's own (docs/rules.md#first-paint): the site-wide one
  // first, then the page's, each the very text of its file and allowed by exactly its hash: no
  // nonce, nothing that would allow any other <style>. None of the page's stylesheets is linked.
  const styles = [...res.body.matchAll(/<style\b([^>]*)>([\s\S]*?)<\/style>/gi)];
  const hrefs = styles.map((style) => /^data-href="(\/build\/_assets\/[a-z]+-[A-Z0-9]+\.css)"$/.exec((style[1] ?? "").trim())?.[1] ?? `not a stylesheet of ours: ${style[1]}`);
  expect(hrefs[0], `${page}: the site-wide stylesheet first`).toMatch(/^\/build\/_assets\/global-/);
  for (const [index, href] of hrefs.entries()) {
    expect(styles[index]?.[2], `${page}: ${href}`).toBe(fs.readFileSync(path.join(ROOT, ASSETS_DIR, href.slice("/build/".length)), "utf8"));
  }
  const styleHashes = styles.map((style) => `'sha256-${crypto.createHash("sha256").update(style[2] ?? "", "utf8").digest("base64")}'`);
  expect(csp.get("style-src"), `${page}: style policy`).toEqual(["'self'", ...styleHashes]);
  expect(res.body, `${page}: a linked stylesheet`).not.toMatch(/<link[^>]+rel="stylesheet"/);
  if (page.startsWith("/ReciPals/Home")) expect(hrefs.slice(1), "Home's own stylesheet").toEqual([expect.stringMatching(/^\/build\/_assets\/feed-/)]);
  return nonce !== undefined ? { nonce } : { hashes: hashTokens };
}

let signedIn: Promise<string> | null = null;
/** One session for the tests that only need to be signed in (sign-ins are throttled). */
function signedInCookie(): Promise<string> {
  signedIn ??= signIn(prod, SEEDED_2.username, SEEDED_2.password);
  return signedIn;
}

describe("security headers on HTML", () => {
  const PAGES = ["/ReciPals/Home", "/ReciPals/Recipes/recipeBot-R1", "/ReciPals/Search?q=chicken", "/ReciPals/Account/Login", "/ReciPals/Info", "/ReciPals/no/such/page"];

  it("every page carries a CSP that allows exactly its own inline scripts: a fresh nonce, never reused", async () => {
    const nonces: string[] = [];
    for (const page of PAGES) {
      // Signed in, no page is ever shared: each render has its own nonce.
      const res = await request(prod, "GET", page, { headers: { Cookie: await signedInCookie() } });
      if (res.status === 302) continue; // Login sends a signed-in user home
      expect(res.headers["content-type"], page).toMatch(/text\/html/);
      const policy = checkScriptPolicy(page, res);
      expect("nonce" in policy, `${page}: a signed-in page has a nonce`).toBe(true);
      if ("nonce" in policy) nonces.push(policy.nonce);
    }
    for (const page of PAGES) {
      const res = await request(prod, "GET", page);
      const policy = checkScriptPolicy(page, res);
      if ("nonce" in policy) nonces.push(policy.nonce);
    }
    expect(new Set(nonces).size, "a new nonce per response").toBe(nonces.length);
  });

  it("sends nosniff, Referrer-Policy, X-Frame-Options and HSTS in production — on pages, API, assets and redirects", async () => {
    const home = await request(prod, "GET", "/ReciPals/Home");
    const asset = /<link[^>]+rel="modulepreload"[^>]+href="(\/[^"]+\.js)"/.exec(home.body)?.[1] ?? /<script[^>]+src="(\/[^"]+\.js)"/.exec(home.body)?.[1];
    expect(asset).toBeDefined();
    for (const urlPath of ["/ReciPals/Home", "/api/recipes/search?q=x", asset!, "/", "/favicon.ico", "/ReciPals/no/such"]) {
      const res = await request(prod, "GET", urlPath);
      expect(res.status, urlPath).toBeLessThan(500);
      expect(res.headers["x-content-type-options"], urlPath).toBe("nosniff");
      expect(res.headers["referrer-policy"], urlPath).toBe("strict-origin-when-cross-origin");
      expect(res.headers["x-frame-options"], urlPath).toBe("DENY");
      expect(res.headers["strict-transport-security"], urlPath).toMatch(/^max-age=\d{7,}/);
      expect(res.headers["x-powered-by"], urlPath).toBeUndefined();
    }
  });

  it("sends no HSTS outside production", async () => {
    const res = await request(nonProd, "GET", "/ReciPals/Home");
    expect(res.headers["strict-transport-security"]).toBeUndefined();
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
  });
});

describe("shared page cache (app/server/runtime/page-cache.server.ts)", () => {
  // A kept page's scripts are allowed by their hashes (a fresh render's by a nonce).
  const isHit = (res: HttpResult) => (cspOf(res.headers["content-security-policy"]).get("script-src") ?? []).some((token) => token.startsWith("'sha256-"));

  it("a visitor's page is answered again from the cache, the same bytes under a hash policy, 304 on its ETag", async () => {
    const page = "/ReciPals/Search?q=cache+probe+one";
    const first = await request(prod, "GET", page);
    const second = await request(prod, "GET", page);
    expect(first.status).toBe(200);
    expect(isHit(first), "a fresh render has a nonce").toBe(false);
    expect(isHit(second), "the second answer comes from the cache").toBe(true);
    checkScriptPolicy(page, second);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers["x-content-type-options"]).toBe("nosniff");
    const revalidated = await request(prod, "GET", page, { headers: { "If-None-Match": String(first.headers.etag) } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body).toBe("");
  });

  it("a page from the cache runs its scripts in Chromium: it hydrates with no policy violation", async () => {
    const page = "/ReciPals/Home?seed=4242";
    await request(prod, "GET", page);
    expect(isHit(await request(prod, "GET", page))).toBe(true);
    const browser = await chromium.launch({
      executablePath: suiteChromiumPath(),
      args: ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
    });
    try {
      const tab = await browser.newPage();
      const violations: string[] = [];
      tab.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      const response = await tab.goto(`${prod.origin}${page}`);
      expect(response?.status()).toBe(200);
      expect(isHit({ status: 200, headers: await response!.allHeaders(), body: "", setCookies: [] }), "the browser got the cached page").toBe(true);
      await tab.waitForSelector("html[data-hydrated]", { timeout: 20_000 });
      expect(violations).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("a signed-in request never gets the shared page and never fills it", async () => {
    const page = "/ReciPals/Search?q=cache+probe+two";
    const cookie = await signedInCookie();
    for (let i = 0; i < 2; i++) {
      const mine = await request(prod, "GET", page, { headers: { Cookie: cookie } });
      expect(isHit(mine), "signed-in pages are rendered for their reader").toBe(false);
      expect(mine.body).toContain(paths.profile(SEEDED_2.id));
    }
    const visitor = await request(prod, "GET", page);
    expect(isHit(visitor), "nothing was stored by the signed-in requests").toBe(false);
    expect(visitor.body).not.toContain(paths.profile(SEEDED_2.id));
    expect(isHit(await request(prod, "GET", page)), "the visitor's page is").toBe(true);
    // Even with the visitor's page stored, the signed-in reader still gets their own.
    const mine = await request(prod, "GET", page, { headers: { Cookie: `theme=dark; ${cookie}` } });
    expect(isHit(mine)).toBe(false);
    expect(mine.body).toContain(paths.profile(SEEDED_2.id));
  });

  it("a write through the app shows at once: a new comment is on the next visitor's page", async () => {
    const page = "/ReciPals/Recipes/recipeBot-R9";
    await request(prod, "GET", page);
    expect(isHit(await request(prod, "GET", page))).toBe(true);
    const text = `Cache check ${crypto.randomUUID()}`;
    expect((await postForm(prod, page, { intent: "comment", text }, await signedInCookie())).status).toBe(302);
    const after = await request(prod, "GET", page);
    expect(isHit(after), "the stored page was dropped").toBe(false);
    expect(after.body).toContain(text);
  });

  it("a visitor's client-side navigation data (single fetch .data) is shared too, and dropped on a write", async () => {
    const data = "/ReciPals/Recipes/recipeBot-R14.data";
    const first = await request(prod, "GET", data);
    expect(first.status).toBe(200);
    // Only an answer from the cache carries a tag made from its bytes.
    expect(first.headers.etag).toBeUndefined();
    const second = await request(prod, "GET", data);
    expect(second.headers.etag, "the second answer comes from the cache").toMatch(/^W\/"/);
    expect(second.body).toBe(first.body);
    const text = `Data cache check ${crypto.randomUUID()}`;
    expect((await postForm(prod, "/ReciPals/Recipes/recipeBot-R14", { intent: "comment", text }, await signedInCookie())).status).toBe(302);
    const after = await request(prod, "GET", data);
    expect(after.headers.etag).toBeUndefined();
    expect(after.body).toContain(text);
    // Signed in, the data is never shared.
    const cookie = await signedInCookie();
    await request(prod, "GET", data, { headers: { Cookie: cookie } });
    expect((await request(prod, "GET", data, { headers: { Cookie: cookie } })).headers.etag).toBeUndefined();
  });

  it("a write by another process shows at once too (a script or a second server writing the file)", async () => {
    const api = "/api/recipes/recipeBot-R10";
    const before = JSON.parse((await request(prod, "GET", api)).body) as { name: string };
    expect(isHit(await request(prod, "GET", "/ReciPals/Recipes/recipeBot-R10"))).toBe(false);
    expect(isHit(await request(prod, "GET", "/ReciPals/Recipes/recipeBot-R10"))).toBe(true);
    const renamed = `${before.name} (renamed ${crypto.randomUUID().slice(0, 8)})`;
    const other = new SQLite(dbFile);
    try {
      other.pragma("busy_timeout = 5000");
      other.prepare("update recipes set name = ? where id = 'recipeBot-R10'").run(renamed);
    } finally {
      other.close();
    }
    const page = await request(prod, "GET", "/ReciPals/Recipes/recipeBot-R10");
    expect(page.body).toContain(renamed.replace(/&/g, "&amp;"));
    expect((JSON.parse((await request(prod, "GET", api)).body) as { name: string }).name).toBe(renamed);
  });
});

describe("cookies", () => {
  function flags(setCookie: string) {
    const [pair, ...attrs] = setCookie.split(";").map((s) => s.trim());
    return { pair: pair!, attrs: attrs.map((a) => a.toLowerCase()) };
  }

  it("session cookie (page and API sign-in): HttpOnly, SameSite=Lax, Secure, Path=/, 30 days", async () => {
    const page = await postForm(prod, "/ReciPals/Account/Login", { username: SEEDED.username, password: SEEDED.password });
    const api = await request(prod, "POST", "/api/users/signin", {
      headers: { Origin: prod.origin, "Content-Type": "application/json" },
      body: JSON.stringify({ username: SEEDED.username, password: SEEDED.password }),
    });
    for (const res of [page, api]) {
      const cookie = res.setCookies.find((c) => c.startsWith("recipals_session="));
      expect(cookie).toBeDefined();
      const { attrs } = flags(cookie!);
      expect(attrs).toContain("httponly");
      expect(attrs).toContain("samesite=lax");
      expect(attrs).toContain("secure");
      expect(attrs).toContain("path=/");
      expect(attrs).toContain(`max-age=${30 * 24 * 60 * 60}`);
    }
  });

  it("sign-up draft cookie: HttpOnly, SameSite=Lax, Secure; it never holds the password in plain text", async () => {
    const password = "plain-text-never-stored";
    const res = await postForm(prod, "/ReciPals/Account/Signup", { name: "Cookie Test", username: "cookie_test_user", password, verifyPassword: password });
    expect(res.status).toBe(302);
    const cookie = res.setCookies.find((c) => c.startsWith("recipals_signup="));
    expect(cookie).toBeDefined();
    const { pair, attrs } = flags(cookie!);
    expect(attrs).toEqual(expect.arrayContaining(["httponly", "samesite=lax", "secure"]));
    const value = decodeURIComponent(pair.split("=").slice(1).join("="));
    const decoded = Buffer.from(value.split(".")[0] ?? "", "base64").toString("utf8");
    expect(decoded + value).not.toContain(password);
  });

  it("outside production the cookie is not Secure (plain http on localhost works)", async () => {
    const res = await postForm(nonProd, "/ReciPals/Account/Login", { username: SEEDED.username, password: SEEDED.password });
    const cookie = res.setCookies.find((c) => c.startsWith("recipals_session="))!;
    expect(flags(cookie).attrs).not.toContain("secure");
    expect(flags(cookie).attrs).toEqual(expect.arrayContaining(["httponly", "samesite=lax"]));
  });

  it("signing out clears the cookie and ends the session on the server", async () => {
    const cookie = await signIn(prod, SEEDED.username, SEEDED.password);
    const out = await postForm(prod, "/ReciPals/Account/Logout", {}, cookie);
    expect(out.status).toBe(302);
    expect(out.setCookies.find((c) => c.startsWith("recipals_session="))).toMatch(/max-age=0|expires=thu, 01 jan 1970/i);
    // The old cookie is worthless now, even if someone kept it.
    const saved = await request(prod, "GET", "/ReciPals/Saved", { headers: { Cookie: cookie } });
    expect(saved.status).toBe(302);
    expect(saved.headers.location).toMatch(/\/ReciPals\/Account\/Login/);
  });
});

describe("stored markup renders as text", () => {
  const XSS = `<script>alert("xss")</script><img src=x onerror=alert(1)>`;

  it("a comment with a script tag appears escaped on the recipe page", async () => {
    const cookie = await signIn(prod, SEEDED_2.username, SEEDED_2.password);
    const res = await postForm(prod, "/ReciPals/Recipes/recipeBot-R3", { intent: "comment", text: XSS }, cookie);
    expect(res.status).toBe(302);
    const page = await request(prod, "GET", "/ReciPals/Recipes/recipeBot-R3", { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain("&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
    expect(page.body).not.toContain(XSS);
    expect(page.body).not.toContain("<img src=x");
  });

  it("a recipe named with markup is escaped in the page, its meta tags and its JSON-LD", async () => {
    const cookie = await signIn(prod, SEEDED_2.username, SEEDED_2.password);
    const rid = crypto.randomUUID();
    const name = `</script><script>alert(1)</script>`;
    const description = `"><svg onload=alert(2)>`;
    const res = await postForm(
      prod,
      `/ReciPals/Editor/${rid}`,
      { intent: "save", mode: "create", name, description, sectionId: "", sectionTitle: "Main", "ingredient-0": "<b>Salt</b>", step: "<iframe src=//evil>", totalTime: "1min", serves: "1", tags: "<i>x</i>" },
      cookie,
    );
    expect(res.status, res.body.slice(0, 300)).toBe(302);
    const page = await request(prod, "GET", `/ReciPals/Recipes/${rid}`);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain("<script>alert(1)</script>");
    expect(page.body).not.toContain("<svg onload");
    expect(page.body).not.toContain("<iframe src=//evil>");
    expect(page.body).not.toContain("<b>Salt</b>");
    expect(page.body).toContain("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    // JSON-LD: the name is inside, with < escaped so it cannot end the script element.
    const jsonLd = scriptTags(page.body).find((s) => /application\/ld\+json/.test(s.attrs));
    expect(jsonLd).toBeDefined();
    expect(jsonLd!.content).not.toMatch(/<\/?script/i);
    expect(JSON.parse(jsonLd!.content).name).toBe(name);
  });
});

describe("odd and oversized requests", () => {
  it("never serves files from outside the public folders (path traversal)", async () => {
    const secret = "sec-session-secret-0123456789abcdef"; // SESSION_SECRET of the test servers
    for (const urlPath of [
      "/../package.json",
      "/build/../../package.json",
      "/%2e%2e/package.json",
      "/images/..%2f..%2fpackage.json",
      "/images/%2e%2e/%2e%2e/package.json",
      "/uploads/..%2f.session-secret",
      "/uploads/%2e%2e%2frecipals.db",
      "/.session-secret",
      "/data/recipals.db",
      "/build/../remix.config.js",
    ]) {
      const res = await request(prod, "GET", urlPath);
      expect(res.status, urlPath).toBeLessThan(500);
      expect(res.body, urlPath).not.toContain('"name": "recipals"');
      expect(res.body, urlPath).not.toContain(secret);
      expect(res.body, urlPath).not.toContain("SQLite format");
      expect(res.body, urlPath).not.toContain("serverBuildPath");
    }
  });

  it("refuses a 30 MB form post and a 20 MB JSON body with 413 before reading them, and keeps serving", async () => {
    const cookie = await signIn(prod, SEEDED_2.username, SEEDED_2.password);
    const big = async (urlPath: string, contentType: string, length: number) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          { host: "127.0.0.1", port: prod.port, method: "POST", path: urlPath, headers: { "Content-Type": contentType, "Content-Length": String(length), Cookie: cookie, Origin: prod.origin } },
          (res) => {
            let body = "";
            res.on("data", (c) => (body += c));
            res.on("end", () => {
              resolve({ status: res.statusCode ?? 0, body });
              req.destroy();
            });
          },
        );
        req.on("error", (error) => (String(error).includes("EPIPE") || String(error).includes("ECONNRESET") ? undefined : reject(error)));
        req.write(Buffer.alloc(64 * 1024, 0x61));
      });
    const form = await big(`/ReciPals/Editor/${crypto.randomUUID()}`, "multipart/form-data; boundary=x", 30 * 1024 * 1024);
    expect(form.status).toBe(413);
    expect(form.body).toContain("The image is too large (10 MB at most).");
    const api = await big("/api/recipes", "application/json", 20 * 1024 * 1024);
    expect(api.status).toBe(413);
    expect(JSON.parse(api.body).message).toMatch(/too large/);
    expect((await request(prod, "GET", "/ReciPals/Info")).status).toBe(200);
  });

  it("a sign-in link whose redirectTo hides a tab (/\\t/evil) lands on this site", async () => {
    for (const redirectTo of ["/\t/evil.example", "/%09/evil.example", "/\u3000/evil.example"]) {
      const res = await postForm(prod, "/ReciPals/Account/Login", { username: "admin", password: ADMIN_PASSWORD, redirectTo });
      expect(res.status, JSON.stringify(redirectTo)).toBe(302);
      const location = String(res.headers.location);
      expect(new URL(location, prod.origin).origin, JSON.stringify(location)).toBe(prod.origin);
    }
  });
});

describe("sign-in throttling over HTTP", () => {
  it("after 5 failures the username is refused with 429 (right password included), also through the API, and a restart does not reset it", async () => {
    const target = "danieljacob";
    for (let i = 0; i < 5; i += 1) {
      // Case and surrounding spaces do not make a new username.
      const variant = i % 2 ? target.toUpperCase() : ` ${target} `;
      const res = await postForm(prod, "/ReciPals/Account/Login", { username: variant, password: `wrong-${i}` });
      expect(res.status).toBe(401);
    }
    const page = await postForm(prod, "/ReciPals/Account/Login", { username: target, password: SEEDED_2.password });
    expect(page.status).toBe(429);
    expect(page.body).toContain("Too many attempts. Please try again in a few minutes.");
    expect(Number(page.headers["retry-after"])).toBeGreaterThan(0);
    expect(page.setCookies.filter((c) => c.startsWith("recipals_session="))).toEqual([]);
    const api = await request(prod, "POST", "/api/users/signin", {
      headers: { "Content-Type": "application/json", Origin: prod.origin },
      body: JSON.stringify({ username: target, password: SEEDED_2.password }),
    });
    expect(api.status).toBe(429);
    expect(JSON.parse(api.body).message).toBe("Too many attempts. Please try again in a few minutes.");
    // Others from the same address still sign in.
    expect(await signIn(prod, "admin", ADMIN_PASSWORD)).toMatch(/^recipals_session=/);

    // Kept in SQLite: a restart on the same database still refuses.
    prod.kill("SIGTERM");
    await prod.exited;
    prod = await startServer({ databasePath: dbFile, env: { ALLOWED_ORIGINS: SPA_ORIGIN } });
    const after = await postForm(prod, "/ReciPals/Account/Login", { username: target, password: SEEDED_2.password });
    expect(after.status).toBe(429);
  }, 120_000);

  it("a forged X-Forwarded-For does not escape the per-address limit", async () => {
    // 20 failures from this address, each claiming another client address and using another username.
    for (let i = 0; i < 20; i += 1) {
      const res = await postForm(prod, "/ReciPals/Account/Login", { username: `nobody_${i}`, password: "x" }, undefined, { "X-Forwarded-For": `198.51.100.${i}` });
      expect([401, 404, 429]).toContain(res.status);
    }
    const res = await postForm(prod, "/ReciPals/Account/Login", { username: SEEDED.username, password: SEEDED.password }, undefined, { "X-Forwarded-For": "203.0.113.77" });
    expect(res.status).toBe(429);
  }, 120_000);
});

describe("absolute links (feeds, share previews) are not the request's to choose", () => {
  const atomLinks = (body: string) => [...body.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!);

  it("without TRUST_PROXY a forwarded host is not believed, its port neither", async () => {
    const feed = await request(prod, "GET", `/ReciPals/Users/${SEEDED.id}/recipes.atom`, { headers: { "X-Forwarded-Host": "evil.example:8443", "X-Forwarded-Proto": "https" } });
    expect(feed.status).toBe(200);
    const links = atomLinks(feed.body);
    expect(links.length).toBeGreaterThan(1);
    for (const link of links) expect(link, link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${prod.port}/`));
  });

  it("with PUBLIC_URL every absolute link is the site's, whatever the Host says", async () => {
    const server = await startServer({ databasePath: dbFile, env: { PUBLIC_URL: "https://recipes.example/" } });
    const feed = await request(server, "GET", `/ReciPals/Users/${SEEDED.id}/recipes.atom`, { headers: { Host: "evil.example" } });
    for (const link of atomLinks(feed.body)) expect(link, link).toMatch(/^https:\/\/recipes\.example\//);
    const recipe = await request(server, "GET", "/ReciPals/Recipes/jd-R1", { headers: { Host: "evil.example" } });
    expect(recipe.body).toContain('<meta property="og:url" content="https://recipes.example/ReciPals/Recipes/jd-R1"');
    expect(recipe.body).not.toContain("evil.example");
    server.kill("SIGTERM");
    await server.exited;
  }, 120_000);
});
