import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";

import { bodyLimitOf, declaredBodyKind, type BodyLimit, type RequestBodyKind } from "./body.server";

// What the server decides about a request before any route runs comes from the route the request
// will reach, found with Remix's own route matching over the server build's routes — never from a
// second list of URL patterns that would drift from the routes (a `….data` address once got the
// wrong body limit that way). A route module says it with plain exports, which the browser
// build leaves out:
//
//   export const requestBody = "photo-form";                   what its requests may carry (body.server.ts)
//   export const shuffledCopies = (search) => number;          how many differently shuffled copies
//                                                              of its page the shared cache keeps
//
// Both are read once, when the server starts; a route declaring something unknown stops it.

/** A route as the server build lists it (ServerBuild["routes"], what is read of it here). */
export interface BuildRoute {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  module: object;
}

type ShuffledCopies = (searchParams: URLSearchParams) => number;

type RouteNode = AgnosticRouteObject & { id: string; body: RequestBodyKind; shuffledCopies: ShuffledCopies | null; children?: RouteNode[] };

function shuffledCopiesOf(route: BuildRoute): ShuffledCopies | null {
  const declared = (route.module as { shuffledCopies?: unknown }).shuffledCopies;
  if (declared === undefined) return null;
  if (typeof declared !== "function") throw new Error(`${route.id}: shuffledCopies must be a function of the address's search parameters`);
  return declared as ShuffledCopies;
}

/** The build's flat route list as the tree Remix matches against. */
function routeTree(routes: Record<string, BuildRoute | undefined>): RouteNode[] {
  const childrenOf = new Map<string | undefined, RouteNode[]>();
  for (const route of Object.values(routes)) {
    if (!route) continue;
    const node = {
      id: route.id,
      path: route.path,
      caseSensitive: route.caseSensitive,
      body: declaredBodyKind(route.id, route.module),
      shuffledCopies: shuffledCopiesOf(route),
      ...(route.index ? { index: true as const } : {}),
    } as RouteNode;
    const siblings = childrenOf.get(route.parentId) ?? [];
    siblings.push(node);
    childrenOf.set(route.parentId, siblings);
  }
  const attach = (nodes: RouteNode[]): RouteNode[] =>
    nodes.map((node) => {
      const children = childrenOf.get(node.id);
      return children && !node.index ? { ...node, children: attach(children) } : node;
    });
  return attach(childrenOf.get(undefined) ?? []);
}

/** The routes an address matches, as Remix matches them: a `….data` address names the page it ends in (`/_root.data` the root). */
function matchesOf(tree: RouteNode[], pathname: string) {
  const path = pathname.endsWith(".data") ? pathname.slice(0, -".data".length).replace(/^\/_root$/, "/") : pathname;
  const matches = matchRoutes(tree, path);
  return matches && matches.length > 0 ? matches.map((match) => match.route) : null;
}

/** The route whose action a write to this address runs: the deepest with a path, an index route only when asked with `?index`. */
function actionTarget(matches: RouteNode[], search: string): RouteNode {
  const last = matches[matches.length - 1]!;
  if (last.index && new URLSearchParams(search).getAll("index").some((value) => value === "")) return last;
  const withPath = matches.filter((route, i) => i === 0 || (route.path !== undefined && route.path.length > 0));
  return withPath[withPath.length - 1]!;
}

export interface RequestRules {
  /** The most a request may send: what the route it reaches declares (an unknown address: the small limit of its kind). */
  bodyLimitFor(pathname: string, search: string, contentType: string): BodyLimit;
  /** How many differently shuffled copies the shared page cache may keep of the page at `url` (1 unless one of its routes says). */
  shuffledVariants(url: string): number;
  /** The route that answers a request (a read: the deepest match; a write: the route whose action runs); null for no route. */
  routeIdOf(method: string, pathname: string, search: string): string | null;
}

/** The rules of every request, from the routes of a server build. */
export function requestRules(routes: Record<string, BuildRoute | undefined>): RequestRules {
  const tree = routeTree(routes);
  return {
    bodyLimitFor(pathname, search, contentType) {
      const matches = matchesOf(tree, pathname);
      const kind = matches ? actionTarget(matches, search).body : pathname.startsWith("/api/") ? "json" : "form";
      return bodyLimitOf(kind, contentType);
    },
    shuffledVariants(url) {
      const { pathname, searchParams } = new URL(url, "http://rules.invalid");
      // The deepest route that says: a dialog over the feed shows the feed too.
      const page = (matchesOf(tree, pathname) ?? []).filter((route) => route.shuffledCopies !== null).at(-1);
      const copies = page?.shuffledCopies?.(searchParams) ?? 1;
      return Number.isInteger(copies) && copies >= 1 ? copies : 1;
    },
    routeIdOf(method, pathname, search) {
      const matches = matchesOf(tree, pathname);
      if (!matches) return null;
      return method === "GET" || method === "HEAD" ? matches[matches.length - 1]!.id : actionTarget(matches, search).id;
    },
  };
}
