import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

import { readConfig } from "@remix-run/dev/dist/config.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";

// Our patch of @remix-run/router (patches/README.md): ranked route branches kept per route tree
// shape, compiled path patterns kept, and the last pathnames' matches remembered, so a document
// no longer flattens, ranks and compiles all 54 routes on each of its several matchRoutes calls.
// These tests fail when the patch is not applied, and compare the patched matching with
// upstream's own build of the same version over the app's route tree and random ones.

interface RouteLike {
  id?: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  children?: RouteLike[];
}
interface Match {
  params: Record<string, string | undefined>;
  pathname: string;
  pathnameBase: string;
  route: RouteLike;
}
interface RouterModule {
  matchRoutes(routes: RouteLike[], location: string, basename?: string): Match[] | null;
  matchPath(pattern: string, pathname: string): object | null;
  UNSAFE_convertRoutesToDataRoutes(routes: RouteLike[], mapRouteProperties: (route: RouteLike) => object): RouteLike[];
  UNSAFE_recipalsRouteMatching?: {
    stats: { flattened: number; scans: number; memoHits: number; compiled: number };
    clear(): void;
  };
}
type ServerManifest = Record<string, { id: string; parentId?: string; path?: string; index?: boolean; caseSensitive?: boolean; module: object }>;
interface ServerRuntimeRoutes {
  createRoutes(manifest: ServerManifest): RouteLike[];
  createStaticHandlerDataRoutes(manifest: ServerManifest, future: object): RouteLike[];
}

const root = path.resolve(__dirname, "../..");
// Resolved as @remix-run/server-runtime resolves it: the file the server really runs.
const serverRuntimeFile = createRequire(path.join(root, "package.json")).resolve("@remix-run/server-runtime");
const fromServerRuntime = createRequire(serverRuntimeFile);
const routerFile = fromServerRuntime.resolve("@remix-run/router");
const patched = fromServerRuntime("@remix-run/router") as RouterModule;
// Upstream's UMD build of the same version: the patch leaves it (and the browser's ESM build) alone.
const upstream = fromServerRuntime("@remix-run/router/dist/router.umd.js") as RouterModule;
const serverRoutes = fromServerRuntime("./routes.js") as ServerRuntimeRoutes;
// What <RemixServer> builds for the static router on every render.
const { createServerRoutes } = createRequire(path.join(root, "package.json"))("@remix-run/react/dist/routes.js") as {
  createServerRoutes(manifest: ServerManifest, routeModules: Record<string, object>, future: object, isSpaMode: boolean): RouteLike[];
};

function cache() {
  const found = patched.UNSAFE_recipalsRouteMatching;
  if (!found) throw new Error(`${path.relative(root, routerFile)} is not patched: run npm install (scripts/postinstall.js applies patches/).`);
  return found;
}

/** A result without its route objects, for comparing two implementations. */
function described(matches: Match[] | null) {
  if (!matches) return null;
  return {
    ids: matches.map((match) => match.route.id),
    // Upstream hands every match one params object holding all the params.
    sharedParams: matches.every((match) => match.params === matches[0]?.params),
    matches: matches.map(({ params, pathname, pathnameBase }) => ({ params: { ...params }, pathname, pathnameBase })),
  };
}

function outcome(router: RouterModule, routes: RouteLike[], pathname: string, basename?: string) {
  try {
    return { result: described(router.matchRoutes(routes, pathname, basename)) };
  } catch (error) {
    return { error: String(error) };
  }
}

function allRoutes(routes: RouteLike[]): RouteLike[] {
  return routes.flatMap((route) => [route, ...allRoutes(route.children ?? [])]);
}

// The app's route tree, as the server builds it: one array for matchServerRoutes and one for the
// static handler per request handler, and a new array for the static router on every render.
let manifest: ServerManifest;
let fullPaths: Map<string, string>;
const handlerRoutes = () => serverRoutes.createRoutes(manifest);
const staticHandlerRoutes = () => serverRoutes.createStaticHandlerDataRoutes(manifest, { v3_singleFetch: true });
const renderRoutes = () =>
  patched.UNSAFE_convertRoutesToDataRoutes(
    createServerRoutes(manifest, Object.fromEntries(Object.keys(manifest).map((id) => [id, {}])), {}, false),
    () => ({}),
  );

beforeAll(async () => {
  const config = await readConfig(root);
  manifest = Object.fromEntries(
    Object.values(config.routes).map((route) => [
      route.id,
      { id: route.id, parentId: route.parentId, path: route.path, index: route.index, caseSensitive: route.caseSensitive, module: {} },
    ]),
  );
  fullPaths = new Map();
  const walk = (routes: RouteLike[], parentPath: string) => {
    for (const route of routes) {
      const full = [parentPath, route.path ?? ""].filter(Boolean).join("/");
      fullPaths.set(route.id ?? "", `/${full}`);
      walk(route.children ?? [], full);
    }
  };
  walk(handlerRoutes(), "");
});

/** A URL for every route (params, ending in `suffix`, and splats filled in) and the awkward ones. */
function appUrls(suffix = "1") {
  const fromPatterns = [...fullPaths.values()].flatMap((pattern) => {
    const filled = pattern.replace(/:[\w-]+/g, (name) => `${name.slice(1)}-${suffix}`).replace(/\/\*$/, "/x/y");
    return [filled, `${filled}/`, filled.toLowerCase(), filled.toUpperCase()];
  });
  return [
    ...fromPatterns,
    "",
    "/",
    "/ReciPals",
    "/recipals/home",
    "/ReciPals//Home",
    "/ReciPals/Account/Profile/u%201/Posts/p%2F1",
    "/ReciPals/Account/Profile/u1/Edit",
    "/ReciPals/Account/Profile/u1/Posts/p1/Likes",
    "/ReciPals/Users/u1/recipes.atom",
    "/ReciPals/Users/u1/recipesXatom",
    "/ReciPals/Nope/deeper",
    "/api/nope/x",
    "/uploads/a.webp",
    "/nope",
  ];
}

describe("the patch of @remix-run/router", () => {
  it("is in the file the server loads, and not in upstream's reference build", () => {
    expect(path.relative(root, routerFile)).toBe(path.join("node_modules", "@remix-run", "router", "dist", "router.cjs.js"));
    expect(fs.readFileSync(routerFile, "utf8")).toContain("ReciPals patch");
    expect(cache().stats).toBeDefined();
    expect(upstream.UNSAFE_recipalsRouteMatching).toBeUndefined();
  });

  it("flattens and ranks the app's routes once for all the arrays Remix makes of them", () => {
    cache().clear();
    const before = { ...cache().stats };
    const urls = ["/ReciPals/Home", "/ReciPals/Info", "/ReciPals/Account/Profile/u1/Posts/p1"];
    const handler = handlerRoutes();
    const staticHandler = staticHandlerRoutes();
    for (const url of urls) {
      // One request: matchServerRoutes, the static handler's query, then a render's new routes
      // (useRoutes, and <Scripts>' partial manifest for the URL and each of its parents).
      expect(patched.matchRoutes(handler, url)).not.toBeNull();
      expect(patched.matchRoutes(staticHandler, url)).not.toBeNull();
      const render = renderRoutes();
      expect(patched.matchRoutes(render, url)).not.toBeNull();
      for (let parent = url; parent.lastIndexOf("/") > 0; ) {
        parent = parent.slice(0, parent.lastIndexOf("/"));
        patched.matchRoutes(render, parent);
      }
    }
    const after = cache().stats;
    expect(after.flattened - before.flattened).toBe(1);
    // Each pathname is scanned once; every other call for it is answered from memory.
    const pathnames = new Set(urls.flatMap((url) => url.split("/").map((_, i, parts) => parts.slice(0, i + 1).join("/") || "/")).filter((p) => p !== "/"));
    expect(after.scans - before.scans).toBe(pathnames.size);
    expect(after.memoHits - before.memoHits).toBeGreaterThanOrEqual(urls.length * 2);

    // Compiled patterns are kept: matching other URLs of the same routes compiles nothing more.
    for (const url of appUrls("1")) patched.matchRoutes(handlerRoutes(), url);
    const { compiled, scans } = cache().stats;
    for (const url of appUrls("2")) patched.matchRoutes(renderRoutes(), url);
    expect(cache().stats.scans).toBeGreaterThan(scans);
    expect(cache().stats.compiled).toBe(compiled);
    patched.matchPath("/t/:id/*", "/t/1/x");
    expect(patched.matchPath("/t/:id/*", "/t/2/y")).toEqual(upstream.matchPath("/t/:id/*", "/t/2/y"));
    expect(cache().stats.compiled).toBe(compiled + 1);
  });

  it("answers each call with new match objects holding that call's own routes", () => {
    const a = handlerRoutes();
    const b = renderRoutes();
    const url = "/ReciPals/Account/Profile/u1/Posts/p1";
    const first = patched.matchRoutes(a, url);
    const second = patched.matchRoutes(b, url);
    const third = patched.matchRoutes(b, url);
    if (!first || !second || !third) throw new Error("no match");
    expect(first.map((m) => m.route.id)).toEqual(second.map((m) => m.route.id));
    for (const match of first) expect(allRoutes(a)).toContain(match.route);
    for (const match of second) expect(allRoutes(b)).toContain(match.route);
    expect(third).not.toBe(second);
    expect(third[0]).not.toBe(second[0]);
    expect(third[0]?.params).not.toBe(second[0]?.params);
    // A caller changing what it got changes nothing for the next caller.
    const params = second[0]?.params ?? {};
    params.uid = "changed";
    second.pop();
    expect(described(patched.matchRoutes(b, url))).toEqual(described(third));
    expect(patched.matchRoutes(b, url)?.[0]?.params.uid).toBe("u1");
  });

  it("matches every app URL as upstream does (route ids, params, pathnames), with and without a basename", () => {
    const expected: Record<string, string | undefined> = {
      "/": "routes/_index",
      "/ReciPals": "routes/ReciPals._index",
      "/recipals/home": "routes/ReciPals.Home",
      "/ReciPals/Home/": "routes/ReciPals.Home",
      "/ReciPals/Account/Profile/u1/Edit": "routes/ReciPals.Account.Profile.$uid_.Edit",
      "/ReciPals/Account/Profile/u1/Posts/p1/Likes": "routes/ReciPals.Account.Profile.$uid.Posts.$pid.Likes",
      "/ReciPals/Users/u1/recipes.atom": "routes/ReciPals.Users.$uid.recipes[.]atom",
      "/ReciPals/Users/u1/recipesXatom": "routes/$",
      "/ReciPals/Nope/deeper": "routes/$",
      "/api/nope/x": "routes/api.$",
      "/nope": "routes/$",
    };
    let compared = 0;
    for (const basename of [undefined, "/", "/ReciPals", "/recipals/"]) {
      for (const url of appUrls()) {
        const reference = outcome(upstream, handlerRoutes(), url, basename);
        for (const routes of [handlerRoutes(), staticHandlerRoutes(), renderRoutes()]) {
          expect(outcome(patched, routes, url, basename), `${url} (basename ${basename})`).toEqual(reference);
          // Asked again: from memory, the same answer.
          expect(outcome(patched, routes, url, basename), `${url} again`).toEqual(reference);
          compared++;
        }
        if (basename === undefined && url in expected) expect(reference.result?.ids.at(-1), url).toBe(expected[url]);
      }
    }
    expect(compared).toBeGreaterThan(1000);
    // Every route of the app without children is the deepest match of some URL above (index
    // routes by their parent's path); every route is in some match.
    const results = appUrls().map((url) => patched.matchRoutes(handlerRoutes(), url) ?? []);
    const deepest = new Set(results.map((matches) => matches.at(-1)?.route.id));
    const anywhere = new Set(results.flatMap((matches) => matches.map((match) => match.route.id)));
    for (const route of allRoutes(handlerRoutes())) expect(route.children?.length ? anywhere : deepest, route.id).toContain(route.id);
  });

  it("notices a routes array changed in place (patchRoutesOnNavigation adds children)", () => {
    const routes = handlerRoutes();
    const url = "/ReciPals/Home/Extra";
    const before = outcome(patched, routes, url);
    const home = allRoutes(routes).find((route) => route.id === "routes/ReciPals.Home");
    home?.children?.push({ id: "extra", path: "Extra" });
    const after = outcome(patched, routes, url);
    expect(after).not.toEqual(before);
    expect(after.result?.ids.at(-1)).toBe("extra");
    expect(after).toEqual(outcome(upstream, routes, url));
    // The next render's routes (without the extra child) are matched as before.
    expect(outcome(patched, handlerRoutes(), url)).toEqual(before);
  });

  it("matches random route trees as upstream does: ranking, optional segments, splats, index routes, case, errors", () => {
    const segment = fc.constantFrom("a", "b", "B", "x-y", ":p", ":q?", "c?", "", "a.b");
    // Now and then an absolute path or an index route with children: upstream's errors must stay.
    const pathArb = fc
      .tuple(fc.integer({ min: 0, max: 39 }), fc.array(segment, { maxLength: 3 }), fc.constantFrom("", "", "*"))
      .map(([absolute, parts, splat]) => (absolute === 0 ? "/" : "") + [...parts, ...(splat ? [splat] : [])].join("/"));
    const { tree } = fc.letrec<{ route: RouteLike; tree: RouteLike[] }>((tie) => ({
      route: fc
        .tuple(
          fc.record({
            path: fc.option(pathArb, { nil: undefined }),
            index: fc.constantFrom(false, false, false, true),
            caseSensitive: fc.boolean(),
            children: fc.option(fc.array(tie("route"), { maxLength: 3 }), { nil: undefined, depthSize: "small" }),
          }),
          fc.integer({ min: 0, max: 19 }),
        )
        .map(([route, dice]): RouteLike => (route.index && dice > 0 ? { ...route, children: undefined } : route)),
      tree: fc.array(tie("route"), { minLength: 1, maxLength: 4 }),
    }));
    const pathname = fc
      .array(fc.constantFrom("a", "A", "b", "B", "c", "x-y", "a.b", "1", "%20", ""), { maxLength: 5 })
      .map((parts) => `/${parts.join("/")}`);
    const withIds = (routes: RouteLike[], prefix = ""): RouteLike[] =>
      routes.map((route, i) => ({ ...route, id: `${prefix}${i}`, ...(route.children ? { children: withIds(route.children, `${prefix}${i}.`) } : {}) }));

    fc.assert(
      fc.property(tree, fc.array(pathname, { minLength: 1, maxLength: 6 }), fc.constantFrom(undefined, "/", "/a"), (routes, pathnames, basename) => {
        const reference = withIds(routes);
        for (const url of pathnames) {
          const expectedOutcome = outcome(upstream, reference, url, basename);
          // A fresh copy of the same tree, as each render makes, and the same array asked twice.
          const copy = withIds(routes);
          expect(outcome(patched, copy, url, basename)).toEqual(expectedOutcome);
          expect(outcome(patched, copy, url, basename)).toEqual(expectedOutcome);
          expect(outcome(patched, reference, url, basename)).toEqual(expectedOutcome);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
