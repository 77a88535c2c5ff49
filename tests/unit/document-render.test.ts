import { readFileSync } from "node:fs";
import path from "node:path";

import { createRequestHandler } from "@remix-run/node";
import { describe, expect, it } from "vitest";

import * as entry from "~/entry.server";
import * as rootRoute from "~/root";
import * as layoutRoute from "~/routes/ReciPals";
import * as homeRoute from "~/routes/ReciPals.Home";
import { hydrateAfterFirstPhoto, LINKS_PER_TASK } from "~/server/document/hydrate-after-photo.server";

import { serverBuildOf } from "../support/server-build";
import { getRequest, makeUser, signedInCookie } from "../support/app";

// app/entry.server.tsx renders a page to one string in one pass once its data is read to the end
// (renderAtOnce). The document must come out as the stream renderer wrote it: one well-formed
// document, the page's data in the nonce'd scripts, the data stream closed before </body></html>.

const handle = createRequestHandler(
  serverBuildOf(entry, {
    root: { path: "", module: rootRoute },
    "routes/ReciPals": { parentId: "root", path: "ReciPals", module: layoutRoute },
    "routes/ReciPals.Home": { parentId: "routes/ReciPals", path: "Home", module: homeRoute },
  }),
  "production",
);

describe("a document rendered at once", () => {
  it("is one well-formed HTML document whose data scripts end before </body></html>", async () => {
    const user = await makeUser();
    const response = await handle(getRequest("/ReciPals/Home", await signedInCookie(user.id)));
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html.startsWith("<!DOCTYPE html><html lang=\"en\">")).toBe(true);
    expect(html.endsWith("</body></html>")).toBe(true);
    expect(html.split("</body></html>")).toHaveLength(2);
    // The loader data is in the page, and the stream that carries it is closed, last.
    expect(html).toContain(user.username);
    const close = html.lastIndexOf("window.__remixContext.streamController.close();");
    expect(close).toBeGreaterThan(html.lastIndexOf("streamController.enqueue("));
    expect(close).toBeLessThan(html.length - "</body></html>".length);
  });

  it("gives every inline script the nonce of the page's Content-Security-Policy", async () => {
    const response = await handle(getRequest("/ReciPals/Home"));
    const policy = response.headers.get("Content-Security-Policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    const html = await response.text();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThanOrEqual(4);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
  });

  it("gives every page a nonce of its own, 16 random bytes, also past a refill of the bytes kept for them", async () => {
    const nonces: string[] = [];
    // More pages than the 256 nonces drawn at a time.
    for (let page = 0; page < 300; page++) {
      const response = await handle(getRequest("/ReciPals/Home"));
      await response.arrayBuffer();
      nonces.push(/'nonce-([^']+)'/.exec(response.headers.get("Content-Security-Policy") ?? "")?.[1] ?? "");
    }
    for (const nonce of nonces) expect(Buffer.from(nonce, "base64")).toHaveLength(16);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it("keeps the page's scripts inert until its first photo, behind a gate with the nonce", async () => {
    const response = await handle(getRequest("/ReciPals/Home"));
    const nonce = /'nonce-([^']+)'/.exec(response.headers.get("Content-Security-Policy") ?? "")?.[1];
    const html = await response.text();
    // The module links stay where Remix wrote them, of no kind until the gate gives it back.
    const preloads = /(?:<link data-rel="modulepreload" href="[^"]+"\/>)+/.exec(html);
    const modules = /<template id="hydrate-modules">(<script nonce="([^"]+)" type="module" async="">[\s\S]*?<\/script>)<\/template><script nonce="([^"]+)">([\s\S]*?)<\/script>/.exec(html);
    expect(preloads?.[0]).toContain('href="/build/entry.client.js"');
    expect(modules?.[1]).toContain('import("/build/entry.client.js")');
    expect([modules?.[2], modules?.[3]]).toEqual([nonce, nonce]);
    // Outside the template, nothing fetches or runs the page's modules.
    const outside = html.replace(modules![0], "");
    expect(outside).not.toMatch(/ rel="modulepreload"|type="module"/);
    // The gate: the first photo, a time limit, the template replaced by its copy, then the links.
    expect(modules?.[4]).toContain('img[fetchpriority="high"]');
    expect(modules?.[4]).toContain("setTimeout(go,3000)");
    expect(modules?.[4]).toContain("t.replaceWith(t.content.cloneNode(true))");
    expect(modules?.[4]).toContain(`links.splice(0,${LINKS_PER_TASK}).forEach(function(l){l.rel=l.dataset.rel})`);
    // The links and the template come before the page's data scripts, which stay where they were.
    expect(html.indexOf(preloads![0])).toBeLessThan(html.indexOf(modules![0]));
    expect(html.indexOf(modules![0])).toBeLessThan(html.indexOf("streamController.enqueue("));
  });
});

describe("the scripts' gate on documents not shaped as expected", () => {
  const links = '<link rel="modulepreload" href="/build/a.js"/><link rel="modulepreload" href="/build/b.js"/>';
  const module = (nonce: string) => `<script nonce="${nonce}" type="module" async="">import("/build/a.js")</script>`;
  it("leaves a document as Remix wrote it unless it has one module script with the nonce, after its links", () => {
    for (const html of [
      `<html><body>${links}${module("n1")}${module("n1")}</body></html>`, // two module scripts
      `<html><body>${links}${module("other")}</body></html>`, // another nonce
      `<html><body>${module("n1")}${links}</body></html>`, // links after it
      `<html><body>${module("n1")}</body></html>`, // no links
      `<html><body>${links}<script nonce="n1" type="module">import("/build/a.js")</script></body></html>`, // not async
    ]) {
      expect(hydrateAfterFirstPhoto(html, "n1")).toBe(html);
    }
  });

  it("gates exactly the run of links and the module script, and keeps everything around them", () => {
    const html = `<html><head><script nonce="n1">var x = 1;</script></head><body><p>Soup</p>${links}<link rel="stylesheet" href="/s.css"/>${module("n1")}<script nonce="n1">data()</script></body></html>`;
    const gated = hydrateAfterFirstPhoto(html, "n1");
    expect(gated.startsWith('<html><head><script nonce="n1">var x = 1;</script></head><body><p>Soup</p><link data-rel="modulepreload" href="/build/a.js"/><link data-rel="modulepreload" href="/build/b.js"/><link rel="stylesheet" href="/s.css"/>')).toBe(true);
    expect(gated).toContain(`<template id="hydrate-modules">${module("n1")}</template><script nonce="n1">(function(){`);
    expect(gated.endsWith('})()</script><script nonce="n1">data()</script></body></html>')).toBe(true);
  });
});

describe("the pictures every page loads", () => {
  it("has a PNG icon and the navigation icons as one SVG picture", () => {
    // Each SVG picture is a small document the browser builds and lays out in the page's main
    // thread: one per navigation icon, or the tab's icon, cost the first seconds tens of milliseconds.
    const root = path.resolve(__dirname, "../..");
    const icons = rootRoute.links().filter((link) => "rel" in link && link.rel === "icon");
    expect(icons).toEqual([{ rel: "icon", href: "/icons/favicon-48.png", type: "image/png", sizes: "48x48" }]);
    expect(readFileSync(path.join(root, "public/icons/favicon-48.png")).subarray(1, 4).toString()).toBe("PNG");
    expect(readFileSync(path.join(root, "public/offline.html"), "utf8")).not.toContain("favicon.svg");
    const css = readFileSync(path.join(root, "app/styles/global.css"), "utf8");
    expect(new Set(css.match(/data:image\/svg\+xml[^")]+/g)).size).toBe(1);
  });
});
