import http from "node:http";
import type { AddressInfo } from "node:net";

import { createRequestHandler } from "@remix-run/node";
import express from "express";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import * as entry from "~/entry.server";
import { THEME_MESSAGES, themeHref } from "~/lib/theme";
import * as rootRoute from "~/root";
import * as layoutRoute from "~/routes/ReciPals";
import * as infoRoute from "~/routes/ReciPals.Info";
import * as themeRoute from "~/routes/ReciPals.Theme";
import { isPersonalRequest, themeOf } from "~/server/http/cookies.server";

import { createPageCache } from "../../app/server/runtime/page-cache.server";
import { cookiesFrom, dataOf, formRequest, getRequest, makeUser, ORIGIN, routeArgs, settle, signedInCookie } from "../support/app";
import { serverBuildOf } from "../support/server-build";

// The colour theme (docs/rules.md#theme): the Theme page's action and loader, the whole document
// as the server renders it (the theme is on <html> before any script), and the shared page cache
// in front of it, which must never hand a page rendered for one theme to someone with another.

const remix = createRequestHandler(
  serverBuildOf(entry, {
    root: { path: "", module: rootRoute },
    "routes/ReciPals": { parentId: "root", path: "ReciPals", module: layoutRoute },
    "routes/ReciPals.Info": { parentId: "routes/ReciPals", path: "Info", module: infoRoute },
    "routes/ReciPals.Theme": { parentId: "routes/ReciPals", path: "Theme", module: themeRoute },
  }),
  "production",
);
const handle = (request: Request, sharedCache: unknown = null) => remix(request, { clientAddress: "203.0.113.9", sharedCache });

/** The page's <html> start tag and its color-scheme meta tag. */
function documentTheme(html: string): { htmlTag: string; colorScheme: string | undefined } {
  const htmlTag = /<html\b[^>]*>/.exec(html)?.[0] ?? "";
  const colorScheme = /<meta name="color-scheme" content="([^"]*)"/.exec(html)?.[1];
  return { htmlTag, colorScheme };
}

/** A POST of the Theme form, as a browser sends it (from its own origin, to its own host). */
function themePost(fields: Record<string, string>, cookie?: string): Request {
  const request = formRequest("/ReciPals/Theme?returnTo=%2FReciPals%2FInfo", fields, cookie);
  request.headers.set("Origin", ORIGIN);
  request.headers.set("Host", new URL(ORIGIN).host);
  return request;
}

/** The value of the radio button the page checked. */
const checkedTheme = (html: string) => [...html.matchAll(/<input type="radio" name="theme"[^>]*>/g)].filter(([tag]) => tag.includes('checked=""')).map(([tag]) => /value="([^"]*)"/.exec(tag)?.[1]);

describe("saving a theme", () => {
  it("sets the cookie for a year and answers 303 to the page it came from", async () => {
    const result = await settle(() => themeRoute.action(routeArgs(themePost({ theme: "dark", returnTo: "/ReciPals/Recipes/jd-R1?scale=2" }))));
    expect(result).toBeInstanceOf(Response);
    const response = result as Response;
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/ReciPals/Recipes/jd-R1?scale=2");
    const [setCookie, ...others] = response.headers.getSetCookie();
    expect(others).toEqual([]);
    expect(setCookie).toMatch(/^recipals_theme=dark; /);
    expect(setCookie).toMatch(/Max-Age=31536000/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/Path=\//);
    expect(cookiesFrom(response)).toBe("recipals_theme=dark");
  });

  it("works the same signed in", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const response = (await settle(() => themeRoute.action(routeArgs(themePost({ theme: "light", returnTo: "/ReciPals/Home" }, cookie))))) as Response;
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/ReciPals/Home");
    expect(cookiesFrom(response, cookie)).toMatch(/recipals_session=.+; recipals_theme=light$/);
  });

  it("System forgets the choice (the cookie is removed)", async () => {
    const response = (await settle(() => themeRoute.action(routeArgs(themePost({ theme: "system", returnTo: "/ReciPals/Info" }, "recipals_theme=dark"))))) as Response;
    expect(response.status).toBe(303);
    expect(response.headers.get("Set-Cookie")).toMatch(/^recipals_theme=; .*Max-Age=0/);
    expect(cookiesFrom(response, "recipals_theme=dark")).toBe("");
  });

  it.each([
    ["an unknown theme", { theme: "purple" }],
    ["another spelling", { theme: "Dark" }],
    ["an empty choice", { theme: "" }],
    ["no choice at all", {}],
  ])("refuses %s: 400 with the message and no cookie", async (_case, fields) => {
    const result = await settle(() => themeRoute.action(routeArgs(themePost({ ...fields, returnTo: "/ReciPals/Info" }, "recipals_theme=dark"))));
    const { status, data } = dataOf<{ message: string }>(result);
    expect(status).toBe(400);
    expect(data.message).toBe("Choose System, Light or Dark.");
    expect(data.message).toBe(THEME_MESSAGES.invalid);
    expect((result as { init?: { headers?: unknown } }).init?.headers).toBeUndefined();
  });

  it("shows the refusal on the page, with the cookie unchanged and the current choice still checked", async () => {
    const response = await handle(themePost({ theme: "sepia", returnTo: "/ReciPals/Info" }, "recipals_theme=dark"));
    expect(response.status).toBe(400);
    expect(response.headers.getSetCookie()).toEqual([]);
    const html = await response.text();
    expect(html).toMatch(/<p class="form-alert" role="alert"[^>]*>Choose System, Light or Dark\.<\/p>/);
    expect(checkedTheme(html)).toEqual(["dark"]);
    expect(documentTheme(html).htmlTag).toContain('data-theme="dark"');
  });

  it.each([
    ["another site", "https://evil.example/ReciPals/Home"],
    ["a protocol-relative address", "//evil.example/ReciPals/Home"],
    ["a backslash trick", "/\\evil.example"],
    ["a path outside the product", "/api/users"],
    ["the base without a page", "/ReciPals"],
    ["a relative path", "ReciPals/Info"],
    ["a control character", "/ReciPals/\t/evil.example"],
    ["nothing", ""],
  ])("goes Home instead of %s", async (_case, returnTo) => {
    const response = (await settle(() => themeRoute.action(routeArgs(themePost({ theme: "dark", returnTo }))))) as Response;
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/ReciPals/Home");
    expect(cookiesFrom(response)).toBe("recipals_theme=dark");
  });
});

describe("the Theme page", () => {
  it("checks the current choice and keeps where to go back", async () => {
    expect(await themeRoute.loader(routeArgs(getRequest("/ReciPals/Theme?returnTo=%2FReciPals%2FSaved")))).toMatchObject({ theme: "system", returnTo: "/ReciPals/Saved" });
    expect(await themeRoute.loader(routeArgs(getRequest("/ReciPals/Theme?returnTo=//evil.example", "recipals_theme=light")))).toMatchObject({ theme: "light", returnTo: "/ReciPals/Home" });
    const response = await handle(getRequest("/ReciPals/Theme?returnTo=%2FReciPals%2FInfo", "recipals_theme=dark"));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<title>Theme · ReciPals</title>");
    expect(html).toMatch(/<form method="post"/);
    expect(html).toMatch(/<input type="hidden" name="returnTo" value="\/ReciPals\/Info"\/>/);
    const labels = [...html.matchAll(/<label class="radio"><input type="radio" name="theme"[^>]*value="(\w+)"\/> (?:<!-- -->)?(\w+)<\/label>/g)].map(([, value, label]) => `${value}:${label}`);
    expect(labels).toEqual(["system:System", "light:Light", "dark:Dark"]);
    expect(checkedTheme(html)).toEqual(["dark"]);
  });

  it("is linked from the top bar, coming back to the page and its search", async () => {
    const html = await (await handle(getRequest("/ReciPals/Info?x=1"))).text();
    expect(html).toContain('href="/ReciPals/Theme?returnTo=%2FReciPals%2FInfo%3Fx%3D1"');
    expect(themeHref("/ReciPals/Theme?returnTo=%2FReciPals%2FInfo")).toBe("/ReciPals/Theme?returnTo=%2FReciPals%2FInfo");
    expect(themeHref("/ReciPals/Themes")).toBe("/ReciPals/Theme?returnTo=%2FReciPals%2FThemes");
  });
});

describe("the document in the chosen theme", () => {
  it.each([
    ["dark", "recipals_theme=dark", 'data-theme="dark"', "dark"],
    ["light", "recipals_theme=light", 'data-theme="light"', "light"],
    ["dark, signed-in", "SIGNED_IN; recipals_theme=dark", 'data-theme="dark"', "dark"],
  ])("%s: <html> carries the theme, rendered by the server", async (_case, cookie, attribute, scheme) => {
    let header = cookie;
    if (cookie.startsWith("SIGNED_IN")) header = cookie.replace("SIGNED_IN", await signedInCookie((await makeUser()).id));
    const response = await handle(getRequest("/ReciPals/Info", header));
    expect(response.status).toBe(200);
    const html = await response.text();
    const { htmlTag, colorScheme } = documentTheme(html);
    expect(htmlTag).toBe(`<html lang="en" ${attribute}>`);
    expect(colorScheme).toBe(scheme);
    // In the markup itself, ahead of every script: the first paint needs none.
    expect(html.indexOf(attribute)).toBeLessThan(html.indexOf("<script"));
  });

  it.each([
    ["no cookie", undefined],
    ["a value we never set", "recipals_theme=purple"],
    ["another site's theme cookie", "theme=dark"],
  ])("System (%s): no forced theme, the device decides", async (_case, cookie) => {
    const html = await (await handle(getRequest("/ReciPals/Info", cookie))).text();
    const { htmlTag, colorScheme } = documentTheme(html);
    expect(htmlTag).toBe('<html lang="en">');
    expect(colorScheme).toBe("light dark");
  });
});

describe("the shared page cache and themes", () => {
  let server: http.Server;
  let port = 0;
  let renders = 0;
  let cache: ReturnType<typeof createPageCache>;

  beforeAll(async () => {
    // As app/server/runtime/serve.server.ts mounts it: the cache, then Remix.
    cache = createPageCache({ version: () => "v1", isPersonal: isPersonalRequest, ttlMs: 600_000 });
    const app = express();
    app.use(cache.middleware);
    app.all("*", async (req: http.IncomingMessage & { originalUrl: string }, res: http.ServerResponse & { locals: Record<string, unknown> }) => {
      renders += 1;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const response = await handle(new Request(new URL(req.originalUrl, ORIGIN), { method: req.method, headers }), res.locals.sharedCache ?? null);
      res.statusCode = response.status;
      for (const [name, value] of response.headers) res.setHeader(name, value);
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A GET through the cache: the page, its caching header, and whether the app rendered it. */
  async function visit(path: string, cookie?: string) {
    const before = renders;
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: cookie ? { Cookie: cookie } : {} });
    const html = await response.text();
    return { status: response.status, ...documentTheme(html), html, cacheControl: response.headers.get("Cache-Control"), rendered: renders > before };
  }

  it("keeps visitors' System pages and never answers or keeps a page of a chosen theme", async () => {
    const first = await visit("/ReciPals/Info");
    expect(first).toMatchObject({ status: 200, htmlTag: '<html lang="en">', rendered: true });
    // The cache is working: the next visitor is answered without a render.
    expect(await visit("/ReciPals/Info")).toMatchObject({ status: 200, htmlTag: '<html lang="en">', rendered: false });

    const dark = await visit("/ReciPals/Info", "recipals_theme=dark");
    expect(dark).toMatchObject({ status: 200, htmlTag: '<html lang="en" data-theme="dark">', colorScheme: "dark", rendered: true });
    expect(dark.cacheControl).toBe("private, no-store");
    // Asked again, rendered again: never from the cache.
    expect(await visit("/ReciPals/Info", "other=1; recipals_theme=dark")).toMatchObject({ htmlTag: '<html lang="en" data-theme="dark">', rendered: true });

    // The dark page was not kept: the next visitor still gets the System page from the cache.
    expect(await visit("/ReciPals/Info")).toMatchObject({ htmlTag: '<html lang="en">', colorScheme: "light dark", rendered: false });
    expect(await visit("/ReciPals/Info", "recipals_theme=light")).toMatchObject({ htmlTag: '<html lang="en" data-theme="light">', rendered: true });
    expect(await visit("/ReciPals/Info")).toMatchObject({ htmlTag: '<html lang="en">', rendered: false });
    expect(cache.size).toBe(1);
  });

  it("answers the Theme page with each person's own choice checked", async () => {
    const path = "/ReciPals/Theme?returnTo=%2FReciPals%2FInfo";
    await visit(path);
    const visitor = await visit(path);
    expect(visitor.rendered).toBe(false);
    expect(checkedTheme(visitor.html)).toEqual(["system"]);
    const dark = await visit(path, "recipals_theme=dark");
    expect(dark.rendered).toBe(true);
    expect(checkedTheme(dark.html)).toEqual(["dark"]);
  });

  it("whenever a Cookie header chooses a theme, the request is personal (never shared)", () => {
    const part = fc.constantFrom("", " ", "a=1", "theme=dark", "recipals_theme=dark", "recipals_theme =light", " recipals_theme=dark", "recipals_theme=sepia", "recipals_themes=dark", "x=recipals_theme=dark", ";", "=");
    fc.assert(
      fc.property(fc.array(part, { maxLength: 5 }), fc.constantFrom(";", "; ", ";\t"), (parts, separator) => {
        const header = parts.join(separator);
        if (themeOf(header) !== "system") expect(isPersonalRequest(header)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
