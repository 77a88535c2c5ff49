import http from "node:http";
import type { AddressInfo } from "node:net";

import { createRequestHandler } from "@remix-run/node";
import express from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import { createPageCache } from "../../app/server/runtime/page-cache.server";
import { TEST_POSTGRES } from "../support/postgres";
import { serverBuildOf } from "../support/server-build";

// What a write drops from the shared page cache (docs/scaling.md): every write service against
// every kind of page a visitor is answered from the cache, through the real layers — the app's
// route modules under Remix, app/server/runtime/page-cache.server.ts in front of them over HTTP,
// the database and its change feed. After each write:
//
// - every page is fresh: what the cache answers is what a render made now answers (the page's
//   ETag, made from its loaders' data, or the whole body of `.data` and JSON answers);
// - the pages the write does not change are still answered from the cache (not rendered again).
//
// On PostgreSQL (RECIPALS_TEST_POSTGRES) there are two servers, each its own copy of the app's
// modules (its own pool, listener and cache, as two processes have): the writes go through
// server A, and server B's cache must follow them too.

const ORIGIN = "http://localhost:4000";

/** One app server: the app's modules (a fresh copy when `fresh`), Remix, and the page cache in front, over HTTP. */
async function startServer(fresh: boolean) {
  const keptDb = globalThis.__recipalsDb;
  if (fresh) {
    vi.resetModules();
    globalThis.__recipalsDb = undefined;
  }
  try {
    const database = await import("~/server/db/connection.server");
    const [recipes, interactions, posts, follows, users, session, auth, passwords, entry, facade, moderation] = await Promise.all([
      import("~/server/services/recipes-service.server"),
      import("~/server/services/interactions-service.server"),
      import("~/server/services/posts-service.server"),
      import("~/server/services/follows-service.server"),
      import("~/server/services/users-service.server"),
      import("~/server/auth/session.server"),
      import("~/server/auth/sign-in.server"),
      import("~/server/auth/password.server"),
      import("~/entry.server"),
      import("~/server/facade.server"),
      import("~/server/services/moderation-service.server"),
    ]);
    // The routes a visitor's cached answers come from, nested as the compiler nests them.
    const modules = {
      root: await import("~/root"),
      "routes/ReciPals": await import("~/routes/ReciPals"),
      "routes/ReciPals.Home": await import("~/routes/ReciPals.Home"),
      "routes/ReciPals.Home.Likes.$pid": await import("~/routes/ReciPals.Home.Likes.$pid"),
      "routes/ReciPals.Recipes.$rid": await import("~/routes/ReciPals.Recipes.$rid"),
      "routes/ReciPals.Search": await import("~/routes/ReciPals.Search"),
      "routes/ReciPals.Info": await import("~/routes/ReciPals.Info"),
      "routes/api.recipes.$recipe_id": await import("~/routes/api.recipes.$recipe_id"),
      "routes/api.recipes.search": await import("~/routes/api.recipes.search"),
      "routes/api.recipes": await import("~/routes/api.recipes"),
      "routes/api.posts.$post_id": await import("~/routes/api.posts.$post_id"),
      "routes/api.posts.$post_id.comments": await import("~/routes/api.posts.$post_id.comments"),
      "routes/api.users.$id": await import("~/routes/api.users.$id"),
      "routes/api.users": await import("~/routes/api.users"),
    };
    const shape: Record<keyof typeof modules, { parentId?: string; path: string }> = {
      root: { path: "" },
      "routes/ReciPals": { parentId: "root", path: "ReciPals" },
      "routes/ReciPals.Home": { parentId: "routes/ReciPals", path: "Home" },
      "routes/ReciPals.Home.Likes.$pid": { parentId: "routes/ReciPals.Home", path: "Likes/:pid" },
      "routes/ReciPals.Recipes.$rid": { parentId: "routes/ReciPals", path: "Recipes/:rid" },
      "routes/ReciPals.Search": { parentId: "routes/ReciPals", path: "Search" },
      "routes/ReciPals.Info": { parentId: "routes/ReciPals", path: "Info" },
      "routes/api.recipes.$recipe_id": { parentId: "root", path: "api/recipes/:recipe_id" },
      "routes/api.recipes.search": { parentId: "root", path: "api/recipes/search" },
      "routes/api.recipes": { parentId: "root", path: "api/recipes" },
      "routes/api.posts.$post_id": { parentId: "root", path: "api/posts/:post_id" },
      "routes/api.posts.$post_id.comments": { parentId: "root", path: "api/posts/:post_id/comments" },
      "routes/api.users.$id": { parentId: "root", path: "api/users/:id" },
      "routes/api.users": { parentId: "root", path: "api/users" },
    };
    const build = serverBuildOf(
      entry,
      Object.fromEntries(Object.entries(modules).map(([id, module]) => [id, { ...shape[id as keyof typeof modules], module }])),
    );
    const remix = createRequestHandler(build, "production");
    const handle = (request: Request, sharedCache: unknown = null) => remix(request, { clientAddress: "203.0.113.9", sharedCache });

    // As app/server/runtime/serve.server.ts mounts it: the cache, then Remix. Renders are counted per URL.
    const feed = facade.pageCacheChanges();
    const cache = createPageCache({
      version: feed.version,
      changes: feed.changes,
      isPersonal: facade.isPersonalRequest,
      variantsOf: facade.requestRules(build.routes).shuffledVariants,
      ttlMs: 600_000,
    });
    const renders = new Map<string, number>();
    const app = express();
    app.use(cache.middleware);
    app.all("*", async (req: http.IncomingMessage & { originalUrl: string }, res: http.ServerResponse & { locals: Record<string, unknown> }) => {
      renders.set(req.originalUrl, (renders.get(req.originalUrl) ?? 0) + 1);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const response = await handle(new Request(new URL(req.originalUrl, ORIGIN), { method: req.method, headers }), res.locals.sharedCache ?? null);
      res.statusCode = response.status;
      for (const [name, value] of response.headers) res.setHeader(name, value);
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
      ...database,
      recipes,
      interactions,
      posts,
      follows,
      users,
      session,
      auth,
      passwords,
      moderation,
      cache,
      renders,
      handle,
      port: (server.address() as AddressInfo).port,
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        if (fresh) await database.closeDatabaseHandle(database.db);
      },
    };
  } finally {
    globalThis.__recipalsDb = keptDb;
  }
}

type Server = Awaited<ReturnType<typeof startServer>>;

interface Answer {
  status: number;
  /** The ETag of a page (its loaders' data), or the whole body of `.data` and JSON answers. */
  content: string;
}

const isPage = (path: string) => !path.startsWith("/api/") && !path.split("?")[0]!.endsWith(".data");

/** A visitor's GET through the server's cache: what it answered, and whether the app rendered it. */
function visit(server: Server, path: string): Promise<Answer & { rendered: boolean }> {
  const before = server.renders.get(path) ?? 0;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path, method: "GET", agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const status = res.statusCode ?? 0;
        resolve({ status, content: contentOf(path, status, res.headers.etag, body), rendered: (server.renders.get(path) ?? 0) > before });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** What a render made now answers (past the cache). */
async function live(server: Server, path: string): Promise<Answer> {
  const response = await server.handle(new Request(new URL(path, ORIGIN)));
  const body = await response.text();
  return { status: response.status, content: contentOf(path, response.status, response.headers.get("ETag"), body) };
}

/** A page's ETag (its loaders' data); the body of anything else, but a page's per-response nonce. */
function contentOf(path: string, status: number, etag: string | null | undefined, body: string): string {
  if (isPage(path) && status === 200) return String(etag);
  return body.replace(/nonce="[^"]*"/g, 'nonce=""');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The community: four people, three recipes with posts and one without, a like, a comment, a
// save and a follow.

const PASSWORD = "correct horse";
let passwordHash = "";

async function community(a: Server) {
  const admin = { id: "setup", role: "ADMIN" } as const;
  const person = async (username: string, role: "USER" | "ADMIN" = "USER") => {
    const created = await a.users.createAccount({ name: `Person ${username}`, username, passwordHash, role }, admin);
    if (!created.ok) throw new Error(created.message);
    return { id: created.value.id, username, role };
  };
  const suffix = Math.random().toString(36).slice(2, 7);
  const alice = await person(`cachetest_alice_${suffix}`);
  const bob = await person(`cachetest_bob_${suffix}`);
  const carol = await person(`cachetest_carol_${suffix}`);
  const boss = await person(`cachetest_boss_${suffix}`, "ADMIN");
  const recipe = async (actor: { id: string; role: string }, name: string) => {
    const recipeId = crypto.randomUUID();
    const created = await a.recipes.createRecipe({
      actor: actor as never,
      recipeId,
      input: {
        name,
        description: `${name}, as we make it.`,
        totalTime: "30min",
        serves: 2,
        tags: [],
        sections: [{ id: "", title: "Main", ingredients: ["Water (1 l)", "Salt"] }],
        steps: ["Boil.", "Serve."],
      },
      photo: { kind: "keep" },
      fallbackPhoto: "/images/recipe-placeholder.png",
    });
    if (!created.ok) throw new Error(created.message);
    return created.value;
  };
  const A = await recipe(alice, "Lemon Soup");
  const B = await recipe(bob, "Tomato Soup");
  const C = await recipe(alice, "Green Salad");
  const D = await recipe(alice, "Plain Rice");
  // D loses its post (as recipes imported before posts existed have none): a write that names no scope.
  await a.db.deleteFrom("posts").where("recipe_id", "=", D.recipeId).execute();
  expect(await a.interactions.setLike({ actor: carol as never, postId: A.postId, liked: true })).toMatchObject({ ok: true });
  expect(await a.interactions.addComment({ actor: carol as never, postId: A.postId, text: "Lovely." })).toMatchObject({ ok: true });
  expect(await a.interactions.setSaved({ actor: carol as never, recipeId: B.recipeId, saved: true })).toMatchObject({ ok: true });
  expect(await a.follows.setFollowing({ actor: carol as never, targetId: bob.id, following: true })).toMatchObject({ ok: true });
  return { alice, bob, carol, boss, A, B, C, D: { recipeId: D.recipeId } };
}

type Community = Awaited<ReturnType<typeof community>>;

/** Every kind of answer a visitor gets from the cache, by name. */
const PAGES = {
  home: () => "/ReciPals/Home?seed=7",
  homeData: () => "/ReciPals/Home.data?seed=7",
  likesA: (c: Community) => `/ReciPals/Home/Likes/${c.A.postId}?seed=7`,
  recipeA: (c: Community) => `/ReciPals/Recipes/${c.A.recipeId}`,
  recipeAData: (c: Community) => `/ReciPals/Recipes/${c.A.recipeId}.data`,
  recipeB: (c: Community) => `/ReciPals/Recipes/${c.B.recipeId}`,
  recipeC: (c: Community) => `/ReciPals/Recipes/${c.C.recipeId}`,
  recipeD: (c: Community) => `/ReciPals/Recipes/${c.D.recipeId}`,
  search: () => "/ReciPals/Search?q=soup&seed=7",
  searchAll: () => "/ReciPals/Search?seed=7",
  searchPeople: () => "/ReciPals/Search?q=cachetest&seed=7",
  info: () => "/ReciPals/Info",
  apiRecipeA: (c: Community) => `/api/recipes/${c.A.recipeId}`,
  apiRecipeB: (c: Community) => `/api/recipes/${c.B.recipeId}`,
  apiRecipeD: (c: Community) => `/api/recipes/${c.D.recipeId}`,
  apiPostA: (c: Community) => `/api/posts/${c.A.postId}`,
  apiPostB: (c: Community) => `/api/posts/${c.B.postId}`,
  apiCommentsA: (c: Community) => `/api/posts/${c.A.postId}/comments`,
  apiUserAlice: (c: Community) => `/api/users/${c.alice.id}`,
  apiUserBob: (c: Community) => `/api/users/${c.bob.id}`,
  apiUserCarol: (c: Community) => `/api/users/${c.carol.id}`,
  apiSearch: () => "/api/recipes/search?q=soup",
  apiPeople: () => "/api/users?name=cachetest",
  apiRecipes: () => "/api/recipes?limit=50",
} as const;
type Page = keyof typeof PAGES;
const ALL_PAGES = Object.keys(PAGES) as Page[];

const but = (...left: Page[]): Page[] => ALL_PAGES.filter((page) => !left.includes(page));

interface WriteCase {
  name: string;
  /** The write, through its service on server A. */
  write: (c: Community, a: Server) => Promise<unknown>;
  /** Pages whose content the write changes (they must be rendered again, everywhere). */
  changed: Page[];
  /** Pages that must still be answered from the cache afterwards. */
  kept: Page[];
  /**
   * Made outside the app's services, as another process (a script, a database shell) makes it:
   * on PostgreSQL every server, server A too, hears of it by the notice its trigger sends.
   */
  outside?: true;
}

const ok = async (outcome: Promise<{ ok: boolean; message?: string }>) => {
  const result = await outcome;
  if (!result.ok) throw new Error(`refused: ${result.message}`);
  return result;
};
const as = (who: { id: string; role: string }) => who as never;

// Home (and the Likes dialog above it) show every post: a change to any recipe with a post is on
// them. `apiRecipes` names no scope (a list of everything): any content write drops it.
const HOME: Page[] = ["home", "homeData", "likesA"];
const USER_APIS: Page[] = ["apiUserAlice", "apiUserBob", "apiUserCarol", "apiPeople"];

const CASES: WriteCase[] = [
  {
    name: "like (interactions.setLike)",
    write: (c, a) => ok(a.interactions.setLike({ actor: as(c.carol), postId: c.C.postId, liked: true })),
    changed: [...HOME, "recipeC"],
    kept: but(...HOME, "recipeC", "apiRecipes"),
  },
  {
    name: "unlike (interactions.setLike)",
    write: (c, a) => ok(a.interactions.setLike({ actor: as(c.carol), postId: c.A.postId, liked: false })),
    changed: [...HOME, "recipeA", "recipeAData", "apiPostA"],
    kept: but(...HOME, "recipeA", "recipeAData", "apiPostA", "apiCommentsA", "apiRecipeA", "apiSearch", "apiRecipes"),
  },
  {
    name: "comment (interactions.addComment)",
    write: (c, a) => ok(a.interactions.addComment({ actor: as(c.carol), postId: c.B.postId, text: "Needs salt." })),
    changed: [...HOME, "recipeB", "apiPostB"],
    // Carol saved B: her JSON entity lists it, so it goes with B's scope.
    kept: but(...HOME, "recipeB", "apiPostB", "apiRecipeB", "apiSearch", "apiUserCarol", "apiPeople", "apiRecipes"),
  },
  {
    name: "comment removed by an admin (interactions.removeComment)",
    write: async (c, a) => {
      const [comment] = (await a.db.selectFrom("comments").select("id").where("post_id", "=", c.A.postId).execute()) as { id: string }[];
      return ok(a.interactions.removeComment({ actor: as(c.boss), postId: c.A.postId, commentId: comment!.id }));
    },
    changed: [...HOME, "recipeA", "recipeAData", "apiPostA", "apiCommentsA"],
    kept: but(...HOME, "recipeA", "recipeAData", "apiPostA", "apiCommentsA", "apiRecipeA", "apiSearch", "apiRecipes"),
  },
  {
    name: "whole post changed (posts.changePost: caption and a like)",
    write: (c, a) =>
      ok(
        a.posts.changePost({
          actor: as(c.boss),
          postId: c.A.postId,
          changes: { content: { title: "Lemon Soup", caption: "Brighter than ever." }, likes: [{ userId: c.boss.id, liked: true }] },
        }),
      ),
    changed: [...HOME, "recipeA", "recipeAData", "apiPostA"],
    kept: but(...HOME, "recipeA", "recipeAData", "apiPostA", "apiCommentsA", "apiRecipeA", "apiSearch", "apiRecipes"),
  },
  {
    name: "save (interactions.setSaved)",
    write: (c, a) => ok(a.interactions.setSaved({ actor: as(c.carol), recipeId: c.A.recipeId, saved: true })),
    changed: ["apiUserCarol", "apiPeople"],
    kept: but("apiUserCarol", "apiPeople", "apiRecipes"),
  },
  {
    name: "unsave (interactions.setSaved)",
    write: (c, a) => ok(a.interactions.setSaved({ actor: as(c.carol), recipeId: c.B.recipeId, saved: false })),
    changed: ["apiUserCarol", "apiPeople"],
    kept: but("apiUserCarol", "apiPeople", "apiRecipes"),
  },
  {
    name: "follow (follows.setFollowing)",
    write: (c, a) => ok(a.follows.setFollowing({ actor: as(c.carol), targetId: c.alice.id, following: true })),
    changed: ["apiUserCarol", "apiUserAlice", "apiPeople"],
    kept: but("apiUserCarol", "apiUserAlice", "apiPeople", "apiRecipes"),
  },
  {
    name: "unfollow (follows.setFollowing)",
    write: (c, a) => ok(a.follows.setFollowing({ actor: as(c.carol), targetId: c.bob.id, following: false })),
    changed: ["apiUserCarol", "apiUserBob", "apiPeople"],
    kept: but("apiUserCarol", "apiUserBob", "apiPeople", "apiRecipes"),
  },
  {
    name: "follower removed (follows.removeFollower)",
    write: (c, a) => ok(a.follows.removeFollower({ actor: as(c.bob), ownerId: c.bob.id, followerId: c.carol.id })),
    changed: ["apiUserCarol", "apiUserBob", "apiPeople"],
    kept: but("apiUserCarol", "apiUserBob", "apiPeople", "apiRecipes"),
  },
  {
    name: "new recipe (recipes.createRecipe)",
    write: (c, a) =>
      ok(
        a.recipes.createRecipe({
          actor: as(c.alice),
          recipeId: crypto.randomUUID(),
          input: { name: "Pea Soup", description: "Green.", totalTime: "", serves: 2, tags: [], sections: [{ id: "", title: "Main", ingredients: ["Peas"] }], steps: ["Cook."] },
          photo: { kind: "keep" },
          fallbackPhoto: "/images/recipe-placeholder.png",
        }),
      ),
    changed: [...HOME, "search", "searchAll", "apiSearch", "apiUserAlice", "apiPeople", "apiRecipes"],
    kept: ["recipeA", "recipeAData", "recipeB", "recipeC", "recipeD", "info", "apiRecipeA", "apiRecipeB", "apiRecipeD", "apiPostA", "apiPostB", "apiCommentsA", "apiUserBob", "apiUserCarol"],
  },
  {
    name: "recipe edited (recipes.updateRecipe)",
    write: (c, a) =>
      ok(
        a.recipes.updateRecipe({
          actor: as(c.bob),
          recipeId: c.B.recipeId,
          input: { name: "Tomato Stew", description: "Thicker.", totalTime: "1h", serves: 4, tags: [], sections: [{ id: "", title: "Main", ingredients: ["Tomatoes"] }], steps: ["Stew."] },
          photo: { kind: "keep" },
        }),
      ),
    changed: [...HOME, "recipeB", "search", "searchAll", "apiSearch", "apiRecipeB", "apiPostB", "apiRecipes"],
    kept: ["recipeA", "recipeAData", "recipeC", "recipeD", "info", "apiRecipeA", "apiRecipeD", "apiPostA", "apiCommentsA", "apiUserAlice", "apiUserBob"],
  },
  {
    name: "recipe without a post edited: it gets one (recipes.updateRecipe)",
    write: (c, a) =>
      ok(
        a.recipes.updateRecipe({
          actor: as(c.alice),
          recipeId: c.D.recipeId,
          input: { name: "Plain Rice", description: "Steamed.", totalTime: "", serves: 2, tags: [], sections: [{ id: "", title: "Main", ingredients: ["Rice"] }], steps: ["Steam."] },
          photo: { kind: "keep" },
        }),
      ),
    changed: [...HOME, "recipeD", "searchAll", "apiRecipeD", "apiUserAlice", "apiPeople", "apiRecipes"],
    kept: ["recipeA", "recipeAData", "recipeB", "recipeC", "info", "apiRecipeA", "apiRecipeB", "apiPostA", "apiPostB", "apiCommentsA", "apiUserBob", "apiUserCarol"],
  },
  {
    name: "post added to a recipe without one (posts.addPostToRecipe, the API's POST /api/posts)",
    write: (c, a) => a.posts.addPostToRecipe({ postId: crypto.randomUUID(), recipeId: c.D.recipeId, creatorId: c.alice.id }),
    changed: [...HOME, "recipeD", "apiRecipeD", "apiUserAlice", "apiPeople", "apiRecipes"],
    kept: but(...HOME, "recipeD", "apiRecipeD", "apiUserAlice", "apiPeople", "apiRecipes"),
  },
  {
    name: "steps replaced by an admin (recipes.editRecipeText)",
    write: (c, a) => ok(a.recipes.editRecipeText({ actor: as(c.boss), recipeId: c.C.recipeId, part: "instructions", text: "Wash.\nToss." })),
    changed: ["recipeC"],
    kept: but(...HOME, "recipeC", "apiRecipes"),
  },
  {
    name: "ingredients replaced by an admin (recipes.editRecipeText)",
    write: (c, a) => ok(a.recipes.editRecipeText({ actor: as(c.boss), recipeId: c.A.recipeId, part: "ingredients", text: "Main:\nLemons (2)\nWater (1 l)" })),
    changed: ["recipeA", "recipeAData", "apiRecipeA", "apiSearch"],
    kept: ["recipeB", "recipeC", "recipeD", "info", "apiRecipeB", "apiRecipeD", "apiPostB", ...USER_APIS],
  },
  {
    name: "recipe deleted (recipes.deleteRecipe): its creator's posts and its saver's saves go too",
    write: (c, a) => ok(a.recipes.deleteRecipe({ actor: as(c.bob), recipeId: c.B.recipeId })),
    changed: [...HOME, "recipeB", "search", "searchAll", "apiSearch", "apiRecipeB", "apiPostB", "apiUserBob", "apiUserCarol", "apiPeople", "apiRecipes"],
    kept: ["recipeA", "recipeAData", "recipeC", "recipeD", "info", "apiRecipeA", "apiRecipeD", "apiPostA", "apiCommentsA", "apiUserAlice"],
  },
  {
    name: "profile bio (users.updateProfile)",
    write: (c, a) => ok(a.users.updateProfile({ actor: as(c.alice), userId: c.alice.id, changes: { bio: "I cook." } })),
    changed: ["apiUserAlice", "apiPeople"],
    kept: but("apiUserAlice", "apiPeople", "apiRecipes"),
  },
  {
    name: "role (users.changeRole)",
    write: (c, a) => ok(a.users.changeRole({ actor: as(c.boss), userId: c.bob.id, role: "ADMIN" })),
    changed: ["apiUserBob", "apiPeople"],
    kept: but("apiUserBob", "apiPeople", "apiRecipes"),
  },
  {
    name: "username (users.updateProfile): shown on every page they posted or commented on",
    write: (c, a) => ok(a.users.updateProfile({ actor: as(c.carol), userId: c.carol.id, changes: { username: `${c.carol.username}x` } })),
    changed: [...HOME, "recipeA", "recipeAData", "searchPeople", "apiUserCarol", "apiPeople"],
    kept: [],
  },
  {
    // docs/rules.md#suspension: what Alice made leaves every visitor's page at once, on every server.
    name: "user suspended by an admin (moderation.suspend)",
    write: (c, a) => ok(a.moderation.suspend({ actor: as(c.boss), userId: c.alice.id, why: "Spam" })),
    changed: [...HOME, "recipeA", "recipeAData", "apiPostA", "apiRecipeA", "searchPeople"],
    kept: [],
  },
  {
    name: "user deleted by an admin (users.deleteUser)",
    write: (c, a) => ok(a.users.deleteUser({ actor: as(c.boss), userId: c.carol.id })),
    changed: [...HOME, "recipeA", "recipeAData", "searchPeople", "apiPostA", "apiCommentsA", "apiUserCarol", "apiUserBob", "apiPeople"],
    kept: [],
  },
  {
    name: "sign-up (users.createAccount)",
    write: (_c, a) => ok(a.users.createAccount({ name: "New Person", username: `cachetest_new_${Math.random().toString(36).slice(2, 7)}`, passwordHash })),
    changed: ["searchPeople", "apiPeople"],
    kept: but("search", "searchPeople", "apiPeople", "apiRecipes"),
  },
  {
    name: "placeholder user by an admin (users.addPlaceholderUser)",
    write: (c, a) => ok(a.users.addPlaceholderUser({ actor: as(c.boss) })),
    changed: [],
    kept: but("search", "searchPeople", "apiPeople", "apiRecipes"),
  },
  {
    name: "sign-in, sign-out and a wrong password (sessions, throttle): nothing a visitor sees",
    write: async (c, a) => {
      const signedIn = await a.session.createUserSession({ request: new Request(ORIGIN), userId: c.alice.id, redirectTo: "/" });
      const cookie = signedIn.headers.getSetCookie().map((header) => header.split(";")[0]).join("; ");
      await a.session.logout(new Request(ORIGIN, { headers: { Cookie: cookie } }));
      const wrong = a.auth.throttledSignIn({ username: c.bob.username, address: "203.0.113.9" }, () => a.auth.checkCredentials({ username: c.bob.username, password: "wrong" }));
      await expect(wrong).rejects.toThrow();
    },
    changed: [],
    kept: ALL_PAGES,
  },
  {
    name: "a write that names no scope (a script, the SQLite shell): everything",
    write: (c, a) => a.db.updateTable("recipes").set({ total_time: "2h" }).where("id", "=", c.C.recipeId).execute(),
    changed: ["recipeC"],
    kept: [],
    outside: true,
  },
];

// ---------------------------------------------------------------------------------------------

describe("what a write drops from the page cache (docs/scaling.md)", () => {
  const servers: Server[] = [];
  let a: Server;

  beforeAll(async () => {
    a = await startServer(false);
    servers.push(a);
    // PostgreSQL: a second server on the same database, as another process is.
    if (TEST_POSTGRES) servers.push(await startServer(true));
    passwordHash = await a.passwords.hashPassword(PASSWORD);
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  beforeEach(async () => {
    // A clean community for each write (a write naming no scope: every cache drops everything).
    await a.db.deleteFrom("recipes").execute();
    await a.db.deleteFrom("users").execute();
  });

  /** Visits every page on every server until each is answered from the cache, then says which answers they hold. */
  async function warm(c: Community) {
    for (const server of servers) {
      for (const page of ALL_PAGES) {
        const path = PAGES[page](c);
        // On another server the cache may still be catching up with the set-up writes.
        await until(async () => {
          await visit(server, path);
          const again = await visit(server, path);
          return !again.rendered && again.status === 200;
        }, `${page} is not kept on server ${servers.indexOf(server) + 1}`);
      }
    }
  }

  async function until(check: () => Promise<boolean>, message: string, timeoutMs = 3000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await check()) return;
      if (Date.now() > deadline) throw new Error(message);
      await sleep(20);
    }
  }

  it.each(CASES.map((write) => [write.name, write] as const))("%s", async (_name, write) => {
    const c = await community(a);
    await warm(c);
    const rendersBefore = servers.map((server) => new Map(ALL_PAGES.map((page) => [page, server.renders.get(PAGES[page](c)) ?? 0])));
    await write.write(c, a);

    for (const [index, server] of servers.entries()) {
      const where = `server ${index + 1}`;
      if (index > 0 || (write.outside && TEST_POSTGRES)) {
        // Another server (on PostgreSQL, every server for a write made outside the app) hears of
        // the write by a notice: wait for it on a page it changes.
        const probe = write.changed[0];
        if (probe) await until(async () => (await visit(server, PAGES[probe](c))).content === (await live(server, PAGES[probe](c))).content, `${where} never saw ${probe} change`);
        else await sleep(300);
      }
      for (const page of ALL_PAGES) {
        const path = PAGES[page](c);
        const answered = await visit(server, path);
        // Fresh: the cached answer is what a render makes now.
        const now = await live(server, path);
        expect({ page, where, status: answered.status, content: answered.content }).toEqual({ page, where, status: now.status, content: now.content });
      }
      const rendered = ALL_PAGES.filter((page) => (server.renders.get(PAGES[page](c)) ?? 0) > rendersBefore[index]!.get(page)!);
      // What the write changed was rendered again; what it does not change was answered from memory.
      for (const page of write.changed) expect(rendered, `${page} should be rendered again on ${where}`).toContain(page);
      for (const page of write.kept) expect(rendered, `${page} should stay kept on ${where}`).not.toContain(page);
      if (write.kept.length === 0) expect(rendered.sort(), `a change to everything renders every page again on ${where}`).toEqual([...ALL_PAGES].sort());
    }
  });
});
