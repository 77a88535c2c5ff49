import http from "node:http";

import SQLite from "better-sqlite3";
import { expect } from "vitest";

import { ADMIN_PASSWORD, form, request, SEEDED, SEEDED_2, signIn, type HttpResult, type RunningServer } from "./server";

// A write (and read) load over loopback that keeps a ledger of every acknowledged write, so a
// test can check afterwards that each one is in the database.

export interface LoadUser {
  cookie: string;
  id: string;
  username?: string;
  role?: "USER" | "ADMIN";
}

/** The seeded users and the admin, each signed in to `server` (its database file is `file`). */
export async function usersOf(server: RunningServer, file: string): Promise<LoadUser[]> {
  const adminId = (() => {
    const db = new SQLite(file, { readonly: true });
    try {
      return (db.prepare("select id from users where username = 'admin'").get() as { id: string }).id;
    } finally {
      db.close();
    }
  })();
  return [
    { cookie: await signIn(server, SEEDED.username, SEEDED.password), id: SEEDED.id, username: SEEDED.username, role: "USER" },
    { cookie: await signIn(server, SEEDED_2.username, SEEDED_2.password), id: SEEDED_2.id, username: SEEDED_2.username, role: "USER" },
    { cookie: await signIn(server, "admin", ADMIN_PASSWORD), id: adminId, username: "admin", role: "ADMIN" },
  ];
}

export interface Ledger {
  likes: { postId: string; userId: string }[];
  comments: { postId: string; text: string }[];
  recipes: { recipeId: string; name: string; userId: string }[];
  reads: number;
  statuses: Record<number, number>;
  /** Requests that never got an answer (connection refused or reset: the server was killed). */
  transportErrors: number;
  /** Every 5xx answer, with a bit of its body. */
  serverErrors: { status: number; path: string; body: string }[];
}

export function emptyLedger(): Ledger {
  return { likes: [], comments: [], recipes: [], reads: 0, statuses: {}, transportErrors: 0, serverErrors: [] };
}

/** Bot posts of the sample data: recipeBot-R{n} has the post recipeBot-P{n}. */
export const BOT_COUNT = 302;
export const botRecipe = (n: number) => `recipeBot-R${n}`;
export const botPost = (n: number) => `recipeBot-P${n}`;

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

export type Op = "like" | "comment" | "recipe" | "profile" | "read";

export interface LoadOptions {
  servers: RunningServer[];
  users: LoadUser[];
  concurrency: number;
  /** Relative weights of the operations. */
  mix: Partial<Record<Op, number>>;
  /** Keep going while this returns true. */
  keepGoing: () => boolean;
  ledger?: Ledger;
  tag?: string;
  agent?: http.Agent;
}

/** Runs `concurrency` workers until `keepGoing()` is false; resolves with the ledger. */
export async function writeLoad(options: LoadOptions): Promise<Ledger> {
  const ledger = options.ledger ?? emptyLedger();
  const tag = options.tag ?? Math.random().toString(36).slice(2, 8);
  const agent = options.agent ?? new http.Agent({ keepAlive: true, maxSockets: options.concurrency * 2 });
  // Each like is a new (post, user) pair, so an acknowledged like can only be there if it was kept.
  const likePairs = shuffled(options.users.flatMap((user) => Array.from({ length: BOT_COUNT }, (_, i) => ({ postId: botPost(i + 1), user }))));
  const ops = Object.entries(options.mix).flatMap(([op, weight]) => Array.from({ length: weight ?? 0 }, () => op as Op));
  let counter = 0;

  const record = (res: HttpResult, urlPath: string) => {
    ledger.statuses[res.status] = (ledger.statuses[res.status] ?? 0) + 1;
    if (res.status >= 500) ledger.serverErrors.push({ status: res.status, path: urlPath, body: res.body.slice(0, 300) });
  };

  const worker = async (index: number) => {
    while (options.keepGoing()) {
      const server = options.servers[(counter + index) % options.servers.length]!;
      const user = options.users[(counter + index) % options.users.length]!;
      let op = ops[Math.floor(Math.random() * ops.length)]!;
      if (op === "like" && likePairs.length === 0) op = "comment";
      if (op === "profile" && !user.username) op = "comment";
      counter += 1;
      const n = counter;
      const send = (method: string, urlPath: string, fields?: Record<string, string | string[]>, cookie = user.cookie) =>
        request(server, method, urlPath, {
          agent,
          timeoutMs: 60_000,
          headers: fields ? { "Content-Type": "application/x-www-form-urlencoded", Origin: server.origin, Cookie: cookie } : { Cookie: cookie },
          body: fields ? form(fields) : undefined,
        });
      try {
        if (op === "like") {
          const pair = likePairs.pop()!;
          const urlPath = `/ReciPals/Posts/${pair.postId}/Like`;
          const res = await send("POST", urlPath, { intent: "like", redirectTo: "/ReciPals/Home" }, pair.user.cookie);
          record(res, urlPath);
          if (res.status === 302 && res.headers.location === "/ReciPals/Home") ledger.likes.push({ postId: pair.postId, userId: pair.user.id });
        } else if (op === "comment") {
          const k = 1 + Math.floor(Math.random() * BOT_COUNT);
          const text = `load ${tag} #${n} ${Math.random().toString(36).slice(2)}`;
          const urlPath = `/ReciPals/Recipes/${botRecipe(k)}`;
          const res = await send("POST", urlPath, { intent: "comment", text });
          record(res, urlPath);
          if (res.status === 302 && (res.headers.location ?? "").startsWith(`/ReciPals/Recipes/${botRecipe(k)}#comment-`)) ledger.comments.push({ postId: botPost(k), text });
        } else if (op === "recipe") {
          const recipeId = crypto.randomUUID();
          const name = `Load ${tag} ${n}`;
          const urlPath = `/ReciPals/Editor/${recipeId}`;
          const res = await send("POST", urlPath, {
            intent: "save",
            mode: "create",
            name,
            description: "Written under load",
            sectionId: "",
            sectionTitle: "Main",
            "ingredient-0": ["Flour (200g)", "Water (100ml)"],
            step: ["Mix.", "Bake."],
            totalTime: "20min",
            serves: "2",
            tags: "Load, Test",
          });
          record(res, urlPath);
          if (res.status === 302 && /^\/ReciPals\/Account\/Profile\/[^/]+\/Posts\//.test(res.headers.location ?? "")) ledger.recipes.push({ recipeId, name, userId: user.id });
        } else if (op === "profile") {
          // A read-then-write transaction (is the username free? then update): the kind that
          // meets SQLITE_BUSY_SNAPSHOT when another connection commits in between.
          const urlPath = `/ReciPals/Account/Profile/${user.id}/Edit`;
          const res = await send("POST", urlPath, { name: `Loaded ${n}`, username: user.username!, password: "", role: user.role ?? "USER", bio: `bio ${n}`, adminPassword: "" });
          record(res, urlPath);
        } else {
          const k = 1 + Math.floor(Math.random() * BOT_COUNT);
          const pages = ["/ReciPals/Home", `/ReciPals/Recipes/${botRecipe(k)}`, "/ReciPals/Search?q=chicken", `/api/recipes/search?q=beef`, `/ReciPals/Account/Profile/${user.id}`];
          const urlPath = pages[n % pages.length]!;
          const res = await send("GET", urlPath);
          record(res, urlPath);
          if (res.status === 200) ledger.reads += 1;
        }
      } catch {
        ledger.transportErrors += 1;
        if (!options.keepGoing()) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => worker(i)));
  if (!options.agent) agent.destroy();
  return ledger;
}

/** Every acknowledged write is in the database, complete; the file passes integrity and foreign-key checks. */
export function verifyDatabase(file: string, ledger: Ledger): { likes: number; comments: number; recipes: number } {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(db.pragma("foreign_key_check")).toEqual([]);
    const like = db.prepare("select 1 from likes where post_id = ? and user_id = ?");
    for (const { postId, userId } of ledger.likes) expect(like.get(postId, userId), `acknowledged like ${postId} by ${userId}`).toBeDefined();
    const comment = db.prepare("select 1 from comments where post_id = ? and text = ?");
    for (const { postId, text } of ledger.comments) expect(comment.get(postId, text), `acknowledged comment "${text}"`).toBeDefined();
    const recipe = db.prepare("select user_created, name from recipes where id = ?");
    const post = db.prepare("select 1 from posts where recipe_id = ? and created_by = ?");
    for (const { recipeId, name, userId } of ledger.recipes) {
      expect(recipe.get(recipeId), `acknowledged recipe ${recipeId}`).toEqual({ user_created: userId, name });
      expect(post.get(recipeId, userId), `its post`).toBeDefined();
    }
    // Nothing half-written, acknowledged or not: every recipe the load wrote has its post, lines and steps.
    const incomplete = db
      .prepare(
        `select r.id from recipes r
         where r.name like 'Load %' and (not exists (select 1 from posts p where p.recipe_id = r.id)
            or not exists (select 1 from ingredient_sections s join ingredient_lines l on l.section_id = s.id where s.recipe_id = r.id)
            or not exists (select 1 from steps t where t.recipe_id = r.id))`,
      )
      .all();
    expect(incomplete, "recipes missing their post, lines or steps").toEqual([]);
    return { likes: ledger.likes.length, comments: ledger.comments.length, recipes: ledger.recipes.length };
  } finally {
    db.close();
  }
}
