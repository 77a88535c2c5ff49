import { expect } from "vitest";

import { db } from "~/server/db/connection.server";
import { hashPassword } from "~/server/auth/password.server";
import { createUser, type Role } from "~/server/queries/users.server";
import { createUserSession } from "~/server/auth/session.server";

export const ORIGIN = "http://localhost:4000";

let counter = 0;
/** A unique, valid username per call, so tests in one file never collide. */
export function uniqueUsername(prefix = "user"): string {
  counter += 1;
  return `${prefix}_${counter}_${Math.random().toString(36).slice(2, 7)}`;
}

// A password hash costs about 0.3 s (the production cost): tests reuse one per password.
const hashes = new Map<string, Promise<string>>();
const hashOf = (password: string) => {
  if (!hashes.has(password)) hashes.set(password, hashPassword(password));
  return hashes.get(password)!;
};

export async function makeUser({
  username = uniqueUsername(),
  password = "correct horse",
  role = "USER" as Role,
  name = "Test Person",
  tags = [] as string[],
} = {}) {
  const user = await createUser({ username, name, role, tags, passwordHash: await hashOf(password) });
  return { ...user, password };
}

/** The `name=value` pairs a response sets, ready to send back as a Cookie header. */
export function cookiesFrom(response: Response, previous = ""): string {
  const jar = new Map<string, string>();
  for (const pair of previous.split(/;\s*/).filter(Boolean)) {
    const [name, ...rest] = pair.split("=");
    jar.set(name!, rest.join("="));
  }
  for (const header of response.headers.getSetCookie()) {
    const [pair] = header.split(";");
    const [name, ...rest] = pair!.split("=");
    const value = rest.join("=");
    if (/max-age=0|expires=thu, 01 jan 1970/i.test(header) || value === "") jar.delete(name!);
    else jar.set(name!, value);
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
}

/** A signed-in Cookie header for the user, made the way sign-in makes it. */
export async function signedInCookie(userId: string): Promise<string> {
  const response = await createUserSession({ request: new Request(ORIGIN), userId, redirectTo: "/" });
  return cookiesFrom(response);
}

export function getRequest(path: string, cookie?: string): Request {
  return new Request(new URL(path, ORIGIN), { headers: cookie ? { Cookie: cookie } : {} });
}

export function formRequest(path: string, fields: Record<string, string | string[]>, cookie?: string): Request {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
  }
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (cookie) headers.Cookie = cookie;
  return new Request(new URL(path, ORIGIN), { method: "POST", body, headers });
}

/** Runs a loader or action and returns what it threw when it threw a Response (redirects, 404s). */
export async function settle<T>(run: () => Promise<T> | T): Promise<T | Response> {
  try {
    return await run();
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

export function expectRedirect(result: unknown, location: string | RegExp): Response {
  expect(result).toBeInstanceOf(Response);
  const response = result as Response;
  expect(response.status).toBe(302);
  const actual = response.headers.get("Location") ?? "";
  if (typeof location === "string") expect(actual).toBe(location);
  else expect(actual).toMatch(location);
  return response;
}

/** The status and payload of an action's `data(payload, { status })` answer. */
export function dataOf<T>(result: unknown): { status: number; data: T } {
  const value = result as { type?: string; data: T; init?: { status?: number } | null };
  expect(value).toHaveProperty("data");
  return { status: value.init?.status ?? 200, data: value.data };
}

export async function countRows(table: "users" | "sessions" | "user_tags"): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

export const routeArgs = (request: Request, params: Record<string, string> = {}) => ({ request, params, context: {} });
