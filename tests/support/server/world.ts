import fs from "node:fs";
import path from "node:path";

import { db } from "~/server/db/connection.server";
import { hashPassword } from "~/server/auth/password.server";
import { createUser, type Role } from "~/server/queries/users.server";
import { setFollowing } from "~/server/services/follows-service.server";
import { addComment, setLike, setSaved } from "~/server/services/interactions-service.server";
import type { Outcome as ServiceOutcome } from "~/server/services/outcome-service.server";
import { useScratchUploads as scratchUploads } from "../settings";

import { CONTENT_TABLES } from "../../../seed/test-support";
import { makeRecipeWithPost } from "../factories";
import { signedInCookie, uniqueUsername } from "../app";

// In-process fixtures for the security tests: a small "world" of three users, a recipe with
// its post, comments, a like, a save and a follow, built fresh for every probe so one probe's
// success never becomes the next probe's starting point.

/** Keeps any upload a test causes in a temp folder (never ./data/uploads), removed afterwards. */
export function useScratchUploads(): void {
  scratchUploads("sec-uploads");
}

export const PASSWORD = "correct horse battery";
let passwordHash: Promise<string> | null = null;

/** A user with the shared test password (hashed once per file: scrypt is slow on a busy machine). */
export async function quickUser({ role = "USER" as Role, name = "Sec Tester", tags = [] as string[] } = {}) {
  passwordHash ??= hashPassword(PASSWORD);
  const user = await createUser({ username: uniqueUsername("sec"), name, role, tags, passwordHash: await passwordHash });
  return { ...user, password: PASSWORD, cookie: await signedInCookie(user.id) };
}

/** The value of a service's answer; a refusal while building the world is a broken test. */
function done<T>(outcome: ServiceOutcome<T>): T {
  if (!outcome.ok) throw new Error(`The world could not be built: ${outcome.message}`);
  return outcome.value;
}

export type Actor = "anon" | "other" | "owner" | "admin";
export const ACTORS: readonly Actor[] = ["anon", "other", "owner", "admin"];

export type World = Awaited<ReturnType<typeof makeWorld>>;

/**
 * owner: a USER with a recipe and its post; other: another USER who liked and commented on it
 * and follows the owner; admin: an ADMIN. `cookie(actor)` is that actor's signed-in Cookie header.
 */
export async function makeWorld() {
  const [owner, other, admin] = [await quickUser({ name: "Owen Owner" }), await quickUser({ name: "Otto Other" }), await quickUser({ role: "ADMIN", name: "Ada Admin" })];
  const recipe = await makeRecipeWithPost({ userId: owner.id, name: "Owner's Stew" });
  const postId = recipe.postId!;
  // Through the services, as the app writes them: each with the owner's notification.
  const ownerComment = done(await addComment({ actor: owner, postId, text: "My own stew" }));
  const otherComment = done(await addComment({ actor: other, postId, text: "Looks great" }));
  done(await setLike({ actor: other, postId, liked: true }));
  done(await setSaved({ actor: other, recipeId: recipe.recipeId, saved: true }));
  done(await setFollowing({ actor: other, targetId: owner.id, following: true }));
  const users = { owner, other, admin };
  return {
    ...users,
    recipeId: recipe.recipeId,
    postId,
    ownerCommentId: ownerComment.comment_id,
    otherCommentId: otherComment.comment_id,
    cookie: (actor: Actor): string | undefined => (actor === "anon" ? undefined : users[actor].cookie),
    user: (actor: Exclude<Actor, "anon">) => users[actor],
  };
}

// Every table whose rows a request could change; a refused request must leave all of them as they were.
export const TABLES = [
  ...CONTENT_TABLES,
  "sessions",
  "sign_in_failures",
  "account_tokens",
  // Federation (docs/federation.md): children after their parents.
  "remote_actors",
  "remote_followers",
  "remote_follows",
  "remote_blocks",
  "remote_posts",
  "remote_likes",
  "remote_post_likes",
  "remote_post_replies",
  "remote_comments",
  "blocked_domains",
  "actor_keys",
  "federation_kv",
  "federation_queue",
] as const;
export type Table = (typeof TABLES)[number];

export type Snapshot = Record<Table, string[]>;

/**
 * Empties every table a snapshot reads, children first: a probe that builds its world in an empty
 * database compares a few dozen rows, not every earlier probe's world too (the permission matrix's
 * snapshots grew with each of its 400 probes).
 */
export async function emptyTables(): Promise<void> {
  for (const table of [...TABLES].reverse()) await db.deleteFrom(table).execute();
}

/** Every row of every table, as sorted JSON strings (order-insensitive, exact content). */
export async function snapshot(): Promise<Snapshot> {
  const entries = await Promise.all(
    TABLES.map(async (table) => {
      const rows = await db.selectFrom(table).selectAll().execute();
      return [table, rows.map((row) => JSON.stringify(row)).sort()] as const;
    }),
  );
  return Object.fromEntries(entries) as Snapshot;
}

/** Tables whose rows differ between two snapshots, with what was added and removed. */
export function diff(before: Snapshot, after: Snapshot, ignore: readonly Table[] = []) {
  const changes: { table: Table; added: string[]; removed: string[] }[] = [];
  for (const table of TABLES) {
    if (ignore.includes(table)) continue;
    const a = new Set(before[table]);
    const b = new Set(after[table]);
    const added = [...b].filter((row) => !a.has(row));
    const removed = [...a].filter((row) => !b.has(row));
    if (added.length || removed.length) changes.push({ table, added, removed });
  }
  return changes;
}

// ---------------------------------------------------------------------------------------------
// Route discovery: the list of routes comes from app/routes itself, so a new route cannot be
// forgotten by the security tests.

export const ROUTES_DIR = path.resolve(__dirname, "../../../app/routes");

export interface DiscoveredRoute {
  /** File (or folder) name in app/routes. */
  file: string;
  /** Absolute path of the module. */
  modulePath: string;
  /** The URL pattern with every dynamic segment written `:` (e.g. `/api/users/:/save`); index routes end in `/(index)`. */
  pattern: string;
  /** Param names in URL order (`$uid` → `uid`, a splat → `*`). */
  params: string[];
  /** The URL with `:name` for each param and `*` for a splat, e.g. `/ReciPals/Account/Profile/:uid/Edit`. */
  template: string;
  /** An `_index` route: Remix sends a POST to it only with `?index` (else the parent layout gets it). */
  index: boolean;
  /** Under /api. */
  api: boolean;
  /** The module exports an action. */
  hasAction: boolean;
}

const ROUTE_EXTENSIONS = /\.(tsx|ts|jsx|js)$/;

/** Splits a flat-route name on dots, keeping `[.]`-escaped dots inside their segment. */
function splitSegments(name: string): string[] {
  const segments: string[] = [];
  let current = "";
  let escaped = false;
  for (const char of name) {
    if (char === "[") escaped = true;
    else if (char === "]") escaped = false;
    else if (char === "." && !escaped) {
      segments.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  segments.push(current);
  return segments;
}

export function routePattern(name: string): { pattern: string; params: string[]; template: string; index: boolean } {
  const parts: string[] = [];
  const named: string[] = [];
  const params: string[] = [];
  let index = false;
  for (const raw of splitSegments(name)) {
    if (raw === "_index") {
      parts.push("(index)");
      index = true;
      continue;
    }
    if (raw.startsWith("_")) continue; // pathless layout
    const segment = raw.endsWith("_") ? raw.slice(0, -1) : raw;
    if (segment === "$") {
      params.push("*");
      parts.push("*");
      named.push("*");
    } else if (segment.startsWith("$")) {
      params.push(segment.slice(1));
      parts.push(":");
      named.push(`:${segment.slice(1)}`);
    } else if (segment.startsWith("(") && segment.endsWith(")")) {
      parts.push(segment); // optional segment, kept as written
      named.push(segment);
    } else {
      const literal = segment.replace(/\[(.*?)\]/g, "$1");
      parts.push(literal);
      named.push(literal);
    }
  }
  return { pattern: `/${parts.join("/")}`, params, template: `/${named.join("/")}`, index };
}

export function discoverRoutes(): DiscoveredRoute[] {
  const routes: DiscoveredRoute[] = [];
  for (const entry of fs.readdirSync(ROUTES_DIR, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || /\.test\.(ts|tsx)$/.test(entry.name) || entry.name.endsWith(".css")) continue;
    let modulePath: string;
    let name: string;
    if (entry.isDirectory()) {
      const routeFile = ["route.tsx", "route.ts", "route.jsx", "route.js"].find((file) => fs.existsSync(path.join(ROUTES_DIR, entry.name, file)));
      if (!routeFile) continue;
      modulePath = path.join(ROUTES_DIR, entry.name, routeFile);
      name = entry.name;
    } else {
      if (!ROUTE_EXTENSIONS.test(entry.name)) continue;
      modulePath = path.join(ROUTES_DIR, entry.name);
      name = entry.name.replace(ROUTE_EXTENSIONS, "");
    }
    const source = fs.readFileSync(modulePath, "utf8");
    const hasAction = /export\s+(async\s+function\s+action\b|const\s+action\b|function\s+action\b|\{[^}]*\baction\b[^}]*\})/.test(source);
    const shape = routePattern(name);
    routes.push({ file: entry.name, modulePath, ...shape, api: shape.template === "/api" || shape.template.startsWith("/api/"), hasAction });
  }
  return routes.sort((a, b) => a.pattern.localeCompare(b.pattern));
}

// ---------------------------------------------------------------------------------------------
// What an action or loader answered, whatever form it took.

export interface Outcome {
  status: number;
  location: string | null;
  body: unknown;
  headers: Headers;
  threw: boolean;
}

export async function outcomeOf(run: () => unknown): Promise<Outcome> {
  let value: unknown;
  let threw = false;
  try {
    value = await run();
  } catch (error) {
    if (!(error instanceof Response)) throw error;
    value = error;
    threw = true;
  }
  if (value instanceof Response) {
    const text = await value.text();
    let body: unknown = text;
    if ((value.headers.get("Content-Type") ?? "").includes("json")) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    return { status: value.status, location: value.headers.get("Location"), body, headers: value.headers, threw };
  }
  // Single fetch: `data(payload, init)` in a unit test is { type: "DataWithResponseInit", data, init }.
  if (value && typeof value === "object" && (value as { type?: unknown }).type === "DataWithResponseInit") {
    const wrapped = value as { data: unknown; init?: ResponseInit | null };
    return { status: wrapped.init?.status ?? 200, location: null, body: wrapped.data, headers: new Headers(wrapped.init?.headers), threw };
  }
  return { status: 200, location: null, body: value, headers: new Headers(), threw };
}

export const ORIGIN = "http://localhost:4000";

/** A JSON request as the original client sends it (credentials = the Cookie header). */
export function jsonRequest(method: string, urlPath: string, body: unknown, cookie?: string): Request {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (cookie) headers.Cookie = cookie;
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  return new Request(new URL(urlPath, ORIGIN), init);
}
