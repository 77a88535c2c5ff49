import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { afterEach, describe, expect, it } from "vitest";

import { groupShared, rechunk } from "../../scripts/rechunk.js";

// The build's second pass (scripts/rechunk.js) merges the compiler's small shared chunks, so a
// page loads a handful of script modules instead of one per set of routes sharing code
// (docs/rules.md#first-paint). Here it runs on a small build written the way Remix's compiler
// writes one: modules that import each other by URL, the browser's manifest script, and the
// server build holding the same manifest.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Each script of the compiler's output, by its path under the assets directory. */
const SCRIPTS: Record<string, string> = {
  "entry.client-AAAAAAAA.js": 'import{h}from"/build/_shared/chunk-HELPERS1.js";import{F}from"/build/_shared/chunk-FRAMEWRK.js";globalThis.started=h("entry")+F();',
  // Used by the framework and by everything else, like esbuild's helpers (a function in a
  // variable: it exists only once its module has run).
  "_shared/chunk-HELPERS1.js": 'var h=(x)=>"helped "+x;export{h}',
  // Large: a chunk of its own. It calls the helpers as it loads.
  "_shared/chunk-FRAMEWRK.js": `import{h}from"/build/_shared/chunk-HELPERS1.js";var ready=h("framework"),big=${JSON.stringify("x".repeat(3000))};export function F(){return ready+big.length}`,
  // The root's code, which calls the framework as it loads: merged with the helpers, the two
  // chunks would import each other and this call would find F undefined.
  "_shared/chunk-COMMON01.js": 'import{F}from"/build/_shared/chunk-FRAMEWRK.js";import{h}from"/build/_shared/chunk-HELPERS1.js";var atLoad=F();export function c(){return h("common")+" "+atLoad}',
  "root-RRRRRRRR.js": 'import{c}from"/build/_shared/chunk-COMMON01.js";export default function Root(){return c()}export function links(){return[]}',
  "_shared/chunk-CARD0001.js": `import{c}from"/build/_shared/chunk-COMMON01.js";export function card(){return "card "+c()+${JSON.stringify("c".repeat(300))}.length}`,
  "_shared/chunk-AVATAR01.js": `export function avatar(){return "avatar"+${JSON.stringify("a".repeat(200))}.length}`,
  "routes/feed-FFFFFFFF.js": 'import{card}from"/build/_shared/chunk-CARD0001.js";import{c}from"/build/_shared/chunk-COMMON01.js";export default function Feed(){return card()+c()}export const handle={styles:["feed"]};',
  "routes/recipe-PPPPPPPP.js":
    'import{card}from"/build/_shared/chunk-CARD0001.js";export default function Recipe(){return card()}export async function scale(){return(await import("/build/_shared/lazy-LLLLLLLL.js")).double(2)}',
  "routes/profile-QQQQQQQQ.js": 'import{card}from"/build/_shared/chunk-CARD0001.js";import{avatar}from"/build/_shared/chunk-AVATAR01.js";export default function Profile(){return card()+avatar()}',
  "routes/search-SSSSSSSS.js": 'import{avatar}from"/build/_shared/chunk-AVATAR01.js";export default function Search(){return avatar()}',
  "_shared/lazy-LLLLLLLL.js": "export function double(n){return n*2}",
};

const ROUTES = {
  root: { id: "root", module: "/build/root-RRRRRRRR.js", imports: ["/build/_shared/chunk-COMMON01.js"] },
  "routes/feed": { id: "routes/feed", parentId: "root", module: "/build/routes/feed-FFFFFFFF.js", imports: ["/build/_shared/chunk-CARD0001.js"] },
  "routes/recipe": { id: "routes/recipe", parentId: "root", module: "/build/routes/recipe-PPPPPPPP.js", imports: ["/build/_shared/chunk-CARD0001.js"] },
  "routes/profile": { id: "routes/profile", parentId: "root", module: "/build/routes/profile-QQQQQQQQ.js", imports: ["/build/_shared/chunk-CARD0001.js", "/build/_shared/chunk-AVATAR01.js"] },
  "routes/search": { id: "routes/search", parentId: "root", module: "/build/routes/search-SSSSSSSS.js", imports: ["/build/_shared/chunk-AVATAR01.js"] },
};
const ENTRY = { module: "/build/entry.client-AAAAAAAA.js", imports: ["/build/_shared/chunk-HELPERS1.js", "/build/_shared/chunk-FRAMEWRK.js"] };

interface Manifest {
  entry: { module: string; imports?: string[] };
  routes: Record<string, { id: string; parentId?: string; module: string; imports?: string[] }>;
}

/** A build directory: `assets` as the compiler writes `public/build`, and the server build beside it. */
function compilerOutput(): { assets: string; server: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rechunk-"));
  dirs.push(dir);
  const assets = path.join(dir, "assets");
  for (const [file, text] of Object.entries(SCRIPTS)) {
    fs.mkdirSync(path.dirname(path.join(assets, file)), { recursive: true });
    fs.writeFileSync(path.join(assets, file), text);
  }
  fs.mkdirSync(path.join(assets, "_assets"));
  fs.writeFileSync(path.join(assets, "_assets/feed-ABCDEFGH.css"), ".feed{display:flex}");
  const manifest = { entry: ENTRY, routes: ROUTES, url: "/build/manifest-12345678.js", version: "12345678" };
  fs.writeFileSync(path.join(assets, "manifest-12345678.js"), `window.__remixManifest=${JSON.stringify(manifest)};`);
  // The server build writes the manifest as an object literal (esbuild's minified form).
  const literal = (entry: { module: string; imports?: string[] }) => `module: ${JSON.stringify(entry.module)}, imports: ${entry.imports ? JSON.stringify(entry.imports) : "void 0"}`;
  const routes = Object.values(ROUTES)
    .map((route) => `${JSON.stringify(route.id)}: { id: ${JSON.stringify(route.id)}, parentId: ${"parentId" in route ? JSON.stringify(route.parentId) : "void 0"}, ${literal(route)}, hasLoader: !0 }`)
    .join(", ");
  const server = path.join(dir, "index.js");
  fs.writeFileSync(
    server,
    `var assets_manifest_default = { entry: { ${literal(ENTRY)} }, routes: { ${routes} }, version: "12345678", url: "/build/manifest-12345678.js" };\nexport { assets_manifest_default as assets };\n`,
  );
  return { assets, server };
}

function browserManifest(assets: string): Manifest {
  const text = fs.readFileSync(path.join(assets, "manifest-12345678.js"), "utf8");
  return JSON.parse(text.replace(/^window\.__remixManifest=/, "").replace(/;$/, "")) as Manifest;
}

const scriptsIn = (assets: string) =>
  fs
    .readdirSync(assets, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".js") && !file.startsWith("manifest-"))
    .sort();

/** The modules a page loads (its client entry, then its routes from the root down) with what they import. */
function pageModules(manifest: Manifest, routeId: string): string[] {
  const chain = [];
  for (let route: Manifest["routes"][string] | undefined = manifest.routes[routeId]; route; route = route.parentId ? manifest.routes[route.parentId] : undefined) chain.unshift(route);
  return [...new Set([manifest.entry, ...chain].flatMap((entry) => [entry.module, ...(entry.imports ?? [])]))];
}

/** Every module `file` imports statically, as the browser follows them. */
function staticImports(assets: string, url: string, seen = new Set<string>()): Set<string> {
  const file = path.join(assets, url.replace(/^\/build\//, ""));
  for (const [, specifier] of fs.readFileSync(file, "utf8").matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[^"'();]*?from\s*)?["']([^"']+)["']/g)) {
    const imported = new URL(specifier!, `http://x${url}`).pathname;
    if (seen.has(imported)) continue;
    seen.add(imported);
    staticImports(assets, imported, seen);
  }
  return seen;
}

describe("rechunk", () => {
  it("merges the small shared chunks and leaves the pages working", async () => {
    const { assets, server } = compilerOutput();
    const result = await rechunk(assets, server, { minChunkBytes: 2000, maxUnusedBytes: 1000 });
    expect(result.before).toBe(Object.keys(SCRIPTS).length);
    expect(result.after).toBeLessThan(result.before);

    const manifest = browserManifest(assets);
    // The server build names the same modules (it lists a page's modules, and answers the
    // browser's questions about routes it has not seen yet).
    const { assets: serverManifest } = (await import(`${pathToFileURL(server).href}?t=${Date.now()}`)) as { assets: Manifest };
    expect(serverManifest.entry).toEqual(manifest.entry);
    for (const [id, route] of Object.entries(manifest.routes)) {
      expect({ module: serverManifest.routes[id]!.module, imports: serverManifest.routes[id]!.imports }, id).toEqual({ module: route.module, imports: route.imports });
    }
    // Only the new scripts are left, and every module the manifest names is one of them; the
    // stylesheets are untouched.
    const files = scriptsIn(assets);
    expect(files).toHaveLength(result.after);
    expect(files.some((file) => /-(?:HELPERS1|COMMON01|CARD0001|AVATAR01|FRAMEWRK|RRRRRRRR|FFFFFFFF)\.js$/.test(file))).toBe(false);
    for (const routeId of Object.keys(manifest.routes)) {
      for (const url of pageModules(manifest, routeId)) expect(files, `${routeId}: ${url}`).toContain(url.replace(/^\/build\//, ""));
    }
    expect(fs.readFileSync(path.join(assets, "_assets/feed-ABCDEFGH.css"), "utf8")).toBe(".feed{display:flex}");

    // The manifest lists every module a page's scripts import, so the page can ask for all of
    // them at once.
    for (const routeId of ["routes/feed", "routes/recipe", "routes/profile", "routes/search"]) {
      const listed = new Set(pageModules(manifest, routeId));
      for (const url of [...listed]) for (const imported of staticImports(assets, url)) expect(listed, `${routeId} imports ${imported}`).toContain(imported);
    }

    // The modules run as before: the entry, every route's exports, and a module a route imports
    // only when it needs it.
    const load = async (url: string) => (await import(pathToFileURL(path.join(assets, url.replace(/^\/build\//, ""))).href)) as Record<string, unknown>;
    await load(manifest.entry.module);
    expect((globalThis as { started?: string }).started).toBe("helped entry" + `helped framework3000`);
    const root = await load(manifest.routes.root!.module);
    expect(Object.keys(root).sort()).toEqual(["default", "links"]);
    const feed = await load(manifest.routes["routes/feed"]!.module);
    expect(Object.keys(feed).sort()).toEqual(["default", "handle"]);
    expect((feed.default as () => string)()).toBe("card helped common helped framework3000300helped common helped framework3000");
    const recipe = await load(manifest.routes["routes/recipe"]!.module);
    expect(await (recipe.scale as () => Promise<number>)()).toBe(4);
    const profile = await load(manifest.routes["routes/profile"]!.module);
    expect((profile.default as () => string)()).toContain("avatar200");
  });

  it("merges a card used by three pages with an avatar used by two only as far as the unused code allowed", async () => {
    const generous = compilerOutput();
    await rechunk(generous.assets, generous.server, { minChunkBytes: 2000, maxUnusedBytes: 1000 });
    const strict = compilerOutput();
    await rechunk(strict.assets, strict.server, { minChunkBytes: 2000, maxUnusedBytes: 0 });
    const profileModules = (assets: string) => pageModules(browserManifest(assets), "routes/profile").length;
    // Together, the search page loads the card's ~350 bytes it does not use, and the feed and
    // recipe pages the avatar's ~250: within 1000 bytes, not within 0.
    expect(profileModules(generous.assets)).toBeLessThan(profileModules(strict.assets));
    const searchOf = (assets: string) => pageModules(browserManifest(assets), "routes/search").map((url) => fs.readFileSync(path.join(assets, url.replace(/^\/build\//, "")), "utf8")).join("");
    expect(searchOf(generous.assets)).toContain("card");
    expect(searchOf(strict.assets)).not.toContain('"card "');
  });

  it("refuses a directory without the compiler's manifest", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rechunk-"));
    dirs.push(dir);
    await expect(rechunk(dir, path.join(dir, "index.js"))).rejects.toThrow(/no assets manifest/);
  });
});

describe("groupShared", () => {
  const node = (id: string, bytes: number, imports: string[] = [], isEntry = false) => ({ id, bytes, imports, isEntry });

  it("keeps two chunks apart when merging them would make them import each other", () => {
    // helpers ← framework ← common, and common → helpers: helpers and common together would
    // import the framework, which imports them.
    const modules = [
      node("entry", 10, ["helpers", "framework"], true),
      node("root", 10, ["common"], true),
      node("page", 10, ["common"], true),
      node("helpers", 100),
      node("framework", 5000, ["helpers"]),
      node("common", 100, ["framework", "helpers"]),
    ];
    const names = groupShared(modules, [["entry", "root", "page"]], { minChunkBytes: 1000, maxUnusedBytes: 10_000 });
    expect(names.get("helpers")).toBeDefined();
    expect(names.get("common")).toBeDefined();
    expect(names.get("helpers")).not.toBe(names.get("common"));
    expect(names.get("framework")).not.toBe(names.get("helpers"));
  });

  it("merges chunks every page loads together, and leaves a module one entry uses to that entry", () => {
    const modules = [
      node("entry", 10, ["a"], true),
      node("root", 10, ["a", "b", "own"], true),
      node("page", 10, ["b"], true),
      node("a", 100),
      node("b", 100),
      node("own", 100),
    ];
    const names = groupShared(modules, [["entry", "root", "page"]], { minChunkBytes: 1000, maxUnusedBytes: 0 });
    expect(names.get("a")).toBe(names.get("b"));
    expect(names.has("own")).toBe(false);
  });
});
