import type { ServerBuild } from "@remix-run/node";

/** A route as the compiler lists it: where it sits, and its module. */
export interface TestRoute {
  parentId?: string;
  path: string;
  module: unknown;
}

/**
 * A production server build of the given routes (and entry), as the Remix compiler would write
 * it, for tests that drive the real request handler without building the app: the routes'
 * manifest entries say which exports each module has.
 */
export function serverBuildOf(entry: unknown, routeList: Record<string, TestRoute>): ServerBuild {
  const routes = Object.fromEntries(Object.entries(routeList).map(([id, route]) => [id, { id, ...route }]));
  const assetRoutes = Object.fromEntries(
    Object.entries(routeList).map(([id, route]) => {
      const exports = route.module as Record<string, unknown>;
      return [
        id,
        {
          id,
          parentId: route.parentId,
          path: route.path,
          module: `/build/${id}.js`,
          hasAction: "action" in exports,
          hasLoader: "loader" in exports,
          hasClientAction: "clientAction" in exports,
          hasClientLoader: "clientLoader" in exports,
          hasErrorBoundary: "ErrorBoundary" in exports,
        },
      ];
    }),
  );
  return {
    mode: "production",
    entry: { module: entry },
    routes,
    assets: { entry: { imports: [], module: "/build/entry.client.js" }, routes: assetRoutes, url: "/build/manifest.js", version: "test" },
    publicPath: "/build/",
    assetsBuildDirectory: "public/build",
    future: { v3_fetcherPersist: true, v3_relativeSplatPath: true, v3_throwAbortReason: true, v3_lazyRouteDiscovery: true, v3_singleFetch: true },
    isSpaMode: false,
  } as unknown as ServerBuild;
}
