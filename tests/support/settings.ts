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
