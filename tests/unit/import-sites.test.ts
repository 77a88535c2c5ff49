import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";

import { createRequestHandler } from "@remix-run/node";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import * as entry from "~/entry.server";
import { draftToFields, emptyDraft, FIELD, type EditorResult } from "~/lib/recipe-form";
import * as rootRoute from "~/root";
import * as layoutRoute from "~/routes/ReciPals";
import { action as loginAction } from "~/routes/ReciPals.Account.Login";
import * as createRoute from "~/routes/ReciPals.Create";
import * as editorRoute from "~/routes/ReciPals.Editor.$rid";
import { guessRecipeFromPage } from "~/server/import/fallback.server";
import { ImportError, importRecipe, IMPORT_MESSAGES, type ImportOptions } from "~/server/import/import.server";
import { findRecipeMicrodata } from "~/server/import/microdata.server";

import { cookiesFrom, dataOf, expectRedirect, formRequest, getRequest, makeUser, ORIGIN, routeArgs, settle, signedInCookie } from "../support/app";
import { serverBuildOf } from "../support/server-build";
import { useScratchUploads } from "../support/settings";

// Import by link from pages without JSON-LD: schema.org microdata, and a guess from a page's title
// and lists (docs/rules.md#import-by-link). Real pages from a stub server on 127.0.0.1, started
// here; the stub is a private address, so imports pass `allowPrivate` (what IMPORT_ALLOW_PRIVATE=1
// does for the editor's own requests). Then sharing a page to ReciPals: Create → editor with the
// link filled in.

const GUESS_NOTE = "This page has no recipe data; we guessed the name, ingredients and steps from its lists. Check them before saving.";

const MICRODATA_PAGE = `<!doctype html><html><head><title>Country Bread | Stub Kitchen</title></head><body>
<nav><ul><li><a href="/">Home</a><li><a href="/a">A</a><li><a href="/b">B</a><li><a href="/c">C</a><li><a href="/d">D</a></ul></nav>
<article itemscope itemtype="https://schema.org/Recipe">
  <h1 itemprop="name">Country Bread</h1>
  <p itemprop="description">A crusty loaf &amp; an easy one.</p>
  <img itemprop="image" src="/photo.png" alt="The loaf">
  <meta itemprop="prepTime" content="PT15M">
  <p>Cook: <time itemprop="cookTime" datetime="PT45M">45 minutes</time> · <span itemprop="recipeYield">Makes 2 loaves</span></p>
  <meta itemprop="keywords" content="bread, baking, weekend, sourdough">
  <ul>
    <li itemprop="recipeIngredient"><span>500 g</span> <span>flour</span></li>
    <li itemprop="recipeIngredient">350 g water</li>
    <li itemprop="recipeIngredient">10 g salt</li>
  </ul>
  <ol>
    <li itemprop="recipeInstructions" itemscope itemtype="https://schema.org/HowToStep"><span itemprop="text">Mix everything.</span></li>
    <li itemprop="recipeInstructions" itemscope itemtype="https://schema.org/HowToSection">
      <span itemprop="name">Shape</span>
      <div itemprop="itemListElement" itemscope itemtype="https://schema.org/HowToStep"><p itemprop="text">Fold the dough.</p></div>
      <div itemprop="itemListElement" itemscope itemtype="https://schema.org/HowToStep"><p itemprop="text">Shape a round.</p></div>
    </li>
    <li itemprop="recipeInstructions" itemscope itemtype="https://schema.org/HowToStep">Bake for 45 minutes.</li>
  </ol>
</article></body></html>`;

// Older markup: http://schema.org, `ingredients`, one text block of steps, unclosed <li> tags.
const OLD_MICRODATA_PAGE = `<html><body><div itemscope itemtype="http://schema.org/Recipe">
<h2 itemprop="name">Lemonade</h2><span itemprop="totalTime" content="PT10M">Ten minutes</span>
<ul><li itemprop="ingredients">4 lemons<li itemprop="ingredients">1 l water<li itemprop="ingredients">Sugar</ul>
<ol itemprop="recipeInstructions"><li>Squeeze the lemons.<li>Stir in water and sugar.<br>Chill.</ol>
<meta itemprop="recipeYield" content="6"></div></body></html>`;

const BOTH_PAGE = `<!doctype html><html><head><script type="application/ld+json">${JSON.stringify({
  "@context": "https://schema.org",
  "@type": "Recipe",
  name: "Soup from JSON-LD",
  recipeIngredient: ["Leeks"],
  recipeInstructions: ["Simmer."],
})}</script></head><body><div itemscope itemtype="https://schema.org/Recipe"><h1 itemprop="name">Soup from microdata</h1>
<p itemprop="recipeIngredient">Potatoes</p><p itemprop="recipeInstructions">Boil.</p></div></body></html>`;

const GUESS_PAGE = `<!doctype html><html><head><title>Grandma's pancakes - a blog</title>
<meta property="og:title" content="Grandma&#39;s Pancakes"><meta property="og:image" content="/photo.png"></head><body>
<header><ul><li>Home</li><li>Recipes</li><li>About</li><li>Shop</li><li>Contact</li><li>Newsletter</li><li>Login</li></ul></header>
<h1>Grandma's pancakes, the story</h1>
<p>When I was little…</p>
<ul class="ingredients"><li>2 eggs</li><li>250 ml milk</li><li>125 g flour</li><li>1 pinch <b>salt</b></li><li>Butter, for the pan</li></ul>
<ol class="related"><li>Waffles</li><li>Crêpes</li></ol>
<ol class="method">
  <li>Whisk the eggs and milk.</li>
  <li>Whisk in the flour and salt until smooth, then let the batter rest for half an hour.</li>
  <li>Fry thin pancakes in butter.</li>
</ol>
<footer><ul><li>a</li><li>b</li><li>c</li><li>d</li><li>e</li><li>f</li><li>g</li><li>h</li></ul></footer>
</body></html>`;

// No og:title: the <h1> names it. The ingredients are the longest <ol>, so the steps are the next.
const GUESS_H1_PAGE = `<html><head><title>Tea - Site</title></head><body><h1>Mint <em>tea</em></h1>
<ol><li>1 handful of fresh mint leaves, washed</li><li>1 teaspoon of green tea leaves, or one bag</li><li>Sugar to taste, if you like it sweet</li></ol>
<ol><li>Boil water.</li><li>Steep.</li></ol></body></html>`;

const NO_LISTS_PAGE = `<!doctype html><html><head><title>About us</title></head><body><h1>About us</h1>
<p>We write about food.</p><ul><li>Only one thing</li></ul></body></html>`;

let server: http.Server;
let base: string;
let photo: Buffer;

beforeAll(async () => {
  photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: "#c2410c" } }).png().toBuffer();
  const pages: Record<string, string> = {
    "/microdata": MICRODATA_PAGE,
    "/old-microdata": OLD_MICRODATA_PAGE,
    "/both": BOTH_PAGE,
    "/guess": GUESS_PAGE,
    "/guess-h1": GUESS_H1_PAGE,
    "/no-lists": NO_LISTS_PAGE,
  };
  server = http.createServer((request, response) => {
    const { pathname } = new URL(request.url ?? "/", "http://stub");
    if (pathname === "/photo.png") return response.writeHead(200, { "Content-Type": "image/png" }).end(photo);
    const page = pages[pathname];
    if (page === undefined) return response.writeHead(404).end();
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const scratch = useScratchUploads("import-sites");

const allowStub: ImportOptions = { allowPrivate: true };

describe("a page with schema.org microdata", () => {
  it("fills the draft: name, description, ingredients, steps, yield, time, tags and photo", async () => {
    const imported = await importRecipe(`${base}/microdata`, allowStub);
    const { draft, notes } = imported;
    expect(draft.name).toBe("Country Bread");
    expect(draft.description).toBe("A crusty loaf & an easy one.");
    expect(draft.sections).toEqual([{ id: "", title: "Main Ingredients", ingredients: ["500 g flour", "350 g water", "10 g salt"] }]);
    expect(draft.steps).toEqual(["Mix everything.", "Fold the dough.", "Shape a round.", "Bake for 45 minutes."]);
    expect(draft.serves).toBe("2");
    expect(draft.totalTime).toBe("1 hr"); // prep 15 min + cook 45 min
    expect(draft.tags).toBe("bread, baking, weekend");
    expect(imported.photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    expect(fs.readdirSync(scratch.dir).some((file) => imported.photo!.endsWith(file))).toBe(true);
    expect(notes[0]).toBe(`Imported “Country Bread” from 127.0.0.1. Check it, then press Save: nothing is saved until then.`);
    expect(notes).not.toContain(GUESS_NOTE);
  });

  it("reads older markup: http://schema.org, `ingredients`, a block of steps, unclosed list items, content on a span", async () => {
    const { draft } = await importRecipe(`${base}/old-microdata`, allowStub);
    expect(draft.name).toBe("Lemonade");
    expect(draft.sections[0]!.ingredients).toEqual(["4 lemons", "1 l water", "Sugar"]);
    expect(draft.steps).toEqual(["Squeeze the lemons.", "Stir in water and sugar.", "Chill."]);
    expect(draft.totalTime).toBe("10 min");
    expect(draft.serves).toBe("6");
  });

  it("gives way to JSON-LD when a page has both", async () => {
    const { draft } = await importRecipe(`${base}/both`, allowStub);
    expect(draft.name).toBe("Soup from JSON-LD");
    expect(draft.sections[0]!.ingredients).toEqual(["Leeks"]);
    expect(draft.steps).toEqual(["Simmer."]);
  });
});

describe("a page with no recipe data", () => {
  it("gets a guessed draft to correct: og:title, the biggest list, the longest numbered list, og:image, and a note saying so", async () => {
    const imported = await importRecipe(`${base}/guess`, allowStub);
    const { draft, notes } = imported;
    expect(draft.name).toBe("Grandma's Pancakes");
    // The header and footer menus are longer, but they are not the recipe.
    expect(draft.sections[0]!.ingredients).toEqual(["2 eggs", "250 ml milk", "125 g flour", "1 pinch salt", "Butter, for the pan"]);
    expect(draft.steps).toEqual([
      "Whisk the eggs and milk.",
      "Whisk in the flour and salt until smooth, then let the batter rest for half an hour.",
      "Fry thin pancakes in butter.",
    ]);
    expect(imported.photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    expect(notes[0]).toBe(GUESS_NOTE);
    expect(notes).toContain("Imported “Grandma's Pancakes” from 127.0.0.1. Check it, then press Save: nothing is saved until then.");
    expect(notes).toContain("The page gives no description: please write one before saving.");
  });

  it("names the guess by its <h1> without og:title, and takes the next numbered list when the longest is the ingredients", async () => {
    const { draft, notes } = await importRecipe(`${base}/guess-h1`, { ...allowStub, photo: false });
    expect(draft.name).toBe("Mint tea");
    expect(draft.sections[0]!.ingredients).toHaveLength(3);
    expect(draft.sections[0]!.ingredients[0]).toBe("1 handful of fresh mint leaves, washed");
    expect(draft.steps).toEqual(["Boil water.", "Steep."]);
    expect(notes[0]).toBe(GUESS_NOTE);
  });

  it("is still refused when the page has no list to guess from", async () => {
    const error = await importRecipe(`${base}/no-lists`, allowStub).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).problem).toBe("no-recipe");
    expect((error as ImportError).message).toBe(IMPORT_MESSAGES.noRecipe);
  });

  it("shows the guess and its note in the editor after Import, saving nothing", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const formData = new FormData();
    for (const [name, value] of draftToFields(emptyDraft())) formData.append(name, value);
    formData.append(FIELD.mode, "create");
    formData.append(FIELD.importLink, `${base}/guess`);
    formData.append(FIELD.intent, "import");
    const rid = crypto.randomUUID();
    const request = new Request(new URL(`/ReciPals/Editor/${rid}`, ORIGIN), { method: "POST", body: formData, headers: { Cookie: cookie } });
    process.env.IMPORT_ALLOW_PRIVATE = "1";
    try {
      const { status, data } = dataOf<EditorResult>(await settle(() => editorRoute.action(routeArgs(request, { rid }))));
      expect(status).toBe(200);
      expect(data.draft.name).toBe("Grandma's Pancakes");
      expect(data.importNotes[0]).toBe(GUESS_NOTE);
      expect(data.fieldErrors).toEqual({});
    } finally {
      delete process.env.IMPORT_ALLOW_PRIVATE;
    }
  });
});

describe("hostile pages", () => {
  // 2 MB is the most a page may be (IMPORT_LIMITS). Each shape below makes a naive reader go back
  // over the page once per tag (minutes); read in one pass, each takes about a second at most.
  const MB2 = 2 * 1024 * 1024;
  const fill = (unit: string, head = "", tail = "") => head + unit.repeat(Math.floor((MB2 - head.length - tail.length) / unit.length)) + tail;
  const shapes: Record<string, string> = {
    "unclosed items in a list deep in divs": fill("<li>x", `<ul>${"<div>".repeat(200_000)}`),
    "empty items under many open divs": fill("<li></li>", `<ul>${"<div>".repeat(100_000)}`),
    "nested properties": fill(`<span itemprop="recipeIngredient">a`, `<div itemscope itemtype="https://schema.org/Recipe">`),
    "items in items": fill(`<div itemprop="recipeInstructions" itemscope itemtype="https://schema.org/HowToStep">`, `<div itemscope itemtype="https://schema.org/Recipe">`),
    "stray end tags": fill("</div>", "<div>".repeat(100_000)),
    "a lone <": fill("< "),
    "an unclosed quote": fill("a", `<ul><li>x</li><li>y</li></ul><a href="`),
    "an unclosed comment": fill("<li>x", "<ul><!--"),
    "lists in lists": fill("<ul><li>x"),
  };
  for (const [name, html] of Object.entries(shapes)) {
    it(`reads ${name} quickly`, () => {
      const started = performance.now();
      findRecipeMicrodata(html);
      guessRecipeFromPage(html);
      // A reader that goes back over the page takes minutes here; the margin is for a busy machine.
      expect(performance.now() - started).toBeLessThan(8_000);
    });
  }

  it("keeps a guess from a huge list to the editor's limits", () => {
    const node = guessRecipeFromPage(fill("<li>1 egg</li>", "<ul>", "</ul>"));
    expect((node?.recipeIngredient as string[]).length).toBeLessThanOrEqual(201);
  });
});

describe("sharing a page to ReciPals", () => {
  const handle = createRequestHandler(
    serverBuildOf(entry, {
      root: { path: "", module: rootRoute },
      "routes/ReciPals": { parentId: "root", path: "ReciPals", module: layoutRoute },
      "routes/ReciPals.Create": { parentId: "routes/ReciPals", path: "Create", module: createRoute },
      "routes/ReciPals.Editor.$rid": { parentId: "routes/ReciPals", path: "Editor/:rid", module: editorRoute },
    }),
    "production",
  );

  /** Create with the share's query, as the phone opens it: the editor address it redirects to. */
  async function share(query: Record<string, string>, cookie: string): Promise<URL> {
    const response = await handle(getRequest(`/ReciPals/Create?${new URLSearchParams(query)}`, cookie));
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("Location") ?? "", ORIGIN);
    expect(location.pathname).toMatch(/^\/ReciPals\/Editor\/[0-9a-f-]{36}$/);
    return location;
  }

  /** The value of the `Import from link` box on the editor page at `location`. */
  async function linkBoxValue(location: URL, cookie: string): Promise<string | null> {
    const response = await handle(getRequest(location.pathname + location.search, cookie));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("Import from link");
    const input = /<input[^>]*name="importLink"[^>]*>/.exec(html)?.[0];
    expect(input).toBeDefined();
    const value = /\svalue="([^"]*)"/.exec(input!)?.[1];
    return value === undefined ? null : value.replace(/&amp;/g, "&");
  }

  it("declares a GET share target on Create in the web app manifest", () => {
    const manifest = JSON.parse(fs.readFileSync("public/manifest.webmanifest", "utf8")) as {
      share_target?: { action: string; method: string; params: Record<string, string> };
    };
    expect(manifest.share_target).toEqual({ action: "/ReciPals/Create", method: "GET", params: { title: "title", text: "text", url: "url" } });
  });

  it("opens the editor with the shared url in `Import from link`", async () => {
    const cookie = await signedInCookie((await makeUser()).id);
    const link = "https://cooking.example/recipes/soup?ref=share&x=1";
    const location = await share({ title: "Soup", url: link }, cookie);
    expect(location.searchParams.get("link")).toBe(link);
    const loaded = (await editorRoute.loader(routeArgs(getRequest(location.pathname + location.search, cookie), { rid: location.pathname.split("/").pop()! }))) as {
      mode: string;
      importLink: string;
    };
    expect(loaded).toMatchObject({ mode: "create", importLink: link });
    expect(await linkBoxValue(location, cookie)).toBe(link);
  });

  it("finds the link inside the shared text, as Android sends it", async () => {
    const cookie = await signedInCookie((await makeUser()).id);
    const location = await share({ title: "", text: "Look at this https://cooking.example/pie. So good!" }, cookie);
    expect(location.searchParams.get("link")).toBe("https://cooking.example/pie");
    expect(await linkBoxValue(location, cookie)).toBe("https://cooking.example/pie");
  });

  it("ignores a link it would not import: an empty editor, no error", async () => {
    const cookie = await signedInCookie((await makeUser()).id);
    const queries: Record<string, string>[] = [{ url: "javascript:alert(1)" }, { url: "not a link", text: "nothing here" }, { text: "ftp://example.com/x" }];
    for (const query of queries) {
      const location = await share(query, cookie);
      expect(location.search, JSON.stringify(query)).toBe("");
    }
    // The editor's own parameter is checked too.
    const rid = crypto.randomUUID();
    const location = new URL(`/ReciPals/Editor/${rid}?link=${encodeURIComponent("javascript:alert(1)")}`, ORIGIN);
    expect(await linkBoxValue(location, cookie)).toBe("");
    const loaded = (await editorRoute.loader(routeArgs(getRequest(location.pathname + location.search, cookie), { rid }))) as { importLink: string };
    expect(loaded.importLink).toBe("");
  });

  it("sends a visitor to sign in, then back to the same share and on to the editor with the link", async () => {
    const user = await makeUser();
    const sharePath = `/ReciPals/Create?${new URLSearchParams({ title: "Pie", text: "Pie! https://cooking.example/pie" })}`;
    const toLogin = await handle(getRequest(sharePath));
    expect(toLogin.status).toBe(302);
    const login = new URL(toLogin.headers.get("Location") ?? "", ORIGIN);
    expect(login.pathname).toBe("/ReciPals/Account/Login");
    expect(login.searchParams.get("reason")).toBe("create");
    expect(login.searchParams.get("redirectTo")).toBe(sharePath);

    const signedIn = await settle(() =>
      loginAction(
        routeArgs(formRequest("/ReciPals/Account/Login", { username: user.username, password: user.password, redirectTo: login.searchParams.get("redirectTo")! })),
      ),
    );
    const back = expectRedirect(signedIn, sharePath);
    const cookie = cookiesFrom(back);
    const response = await handle(getRequest(sharePath, cookie));
    const location = new URL(response.headers.get("Location") ?? "", ORIGIN);
    expect(location.searchParams.get("link")).toBe("https://cooking.example/pie");
    expect(await linkBoxValue(location, cookie)).toBe("https://cooking.example/pie");
  });
});
