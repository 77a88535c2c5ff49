import { expect } from "vitest";

import { discoverRoutes } from "./world";

type Handler = (args: unknown) => Promise<Response>;

/**
 * The `action` (or `loader`) of the route in app/routes whose pattern is `pattern` (as
 * discoverRoutes writes it, e.g. `/api/users/:`). A missing route or handler FAILS the calling
 * test, naming what is missing: a security test must never skip because its route went away.
 */
export async function requireRouteHandler(pattern: string, handler: "action" | "loader" = "action"): Promise<Handler> {
  const route = discoverRoutes().find((candidate) => candidate.pattern === pattern);
  expect(route, `no route file in app/routes answers ${pattern}`).toBeDefined();
  const module = (await import(route!.modulePath)) as Record<string, unknown>;
  expect(typeof module[handler], `${route!.file} exports no ${handler}`).toBe("function");
  return module[handler] as Handler;
}
