import path from "node:path";

import { readConfig } from "@remix-run/dev/dist/config.js";

import type { BuildRoute } from "~/server/http/route-rules.server";

const root = path.resolve(__dirname, "../..");

/**
 * The app's routes as the server build lists them (id, parent, path, index), each with its real
 * module loaded through the test runner: what the server sees at start, without building the app.
 */
export async function appRoutes(): Promise<Record<string, BuildRoute & { file: string }>> {
  const config = await readConfig(root);
  const entries = await Promise.all(
    Object.values(config.routes).map(async (route) => {
      const module = (await import(path.join(config.appDirectory, route.file))) as object;
      const file = path.join(config.appDirectory, route.file);
      const entry: BuildRoute & { file: string } = { id: route.id, parentId: route.parentId, path: route.path, index: route.index, caseSensitive: route.caseSensitive, module, file };
      return [route.id, entry] as const;
    }),
  );
  return Object.fromEntries(entries);
}
