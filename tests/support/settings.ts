import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll } from "vitest";

import { env, type Env } from "~/server/env.server";

/**
 * Changes one of the app's settings (app/server/env.server.ts) for this test file, as a deployment
 * would set it, and returns what puts it back. Each test file has its own copy of the app's modules,
 * so other files never see the change. Production modules carry no switch for tests.
 */
export function useSetting<K extends keyof Env>(name: K, value: Env[K]): () => void {
  const before = env[name];
  env[name] = value;
  return () => {
    env[name] = before;
  };
}

/**
 * Keeps the uploads of the calling test file in a fresh temp folder (UPLOADS_DIR, never
 * ./data/uploads), removed afterwards. `dir` is the folder, once the file's tests have started.
 */
export function useScratchUploads(name = "uploads"): { readonly dir: string } {
  let dir = "";
  let restore = () => {};
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `recipals-${name}-`));
    restore = useSetting("UPLOADS_DIR", dir);
  });
  afterAll(() => {
    restore();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
  };
}
