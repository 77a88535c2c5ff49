import crypto from "node:crypto";
import net from "node:net";
import { performance } from "node:perf_hooks";

import { createRequestHandler } from "@remix-run/node";
import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

import { PROFILE_TAGS } from "~/lib/tags";
import { withLiterals } from "~/server/db/engines/postgres.server";

import { makeRecipeWithPost } from "../support/factories";
import { TEST_POSTGRES } from "../support/postgres";
import { serverBuildOf } from "../support/server-build";

// The rules of docs/scaling.md across two app servers on one PostgreSQL database. Each "server"
// here is its own copy of the app's modules (vi.resetModules, then import): its own pool, its own
// change listener, its own module state — what two processes have. Requests go through the app's
// own doors (services, route actions, a Remix request handler); nothing in the database is mocked.
// PostgreSQL only: on a SQLite run the whole file is skipped.

const log = (line: string) => console.log(`[postgres-engine] ${line}`);

/** One app server: a fresh copy of the app's modules on `url` (a pool of its own, as another process has). */
async function startServer(url: string) {
  const keptDb = globalThis.__recipalsDb;
  const keptUrl = process.env.DATABASE_URL;
  vi.resetModules();
  globalThis.__recipalsDb = undefined;
  process.env.DATABASE_URL = url;
  try {
    const database = await import("~/server/db/connection.server");
    const [users, follows, recipes, passwords, throttle, loginRoute, apiUserRoute, recipeRoute, searchRoute, root, entry, interactions, shopping, people, moderation, scopes] = await Promise.all([
      import("~/server/services/users-service.server"),
      import("~/server/services/follows-service.server"),
      import("~/server/services/recipes-service.server"),
      import("~/server/auth/password.server"),
      import("~/server/auth/limits.server"),
      import("~/routes/ReciPals.Account.Login"),
      import("~/routes/api.users.$id"),
      import("~/routes/ReciPals.Recipes.$rid"),
      import("~/routes/ReciPals.Search"),
      import("~/root"),
      import("~/entry.server"),
      import("~/server/services/interactions-service.server"),
      import("~/server/services/shopping-service.server"),
      import("~/server/services/people-service.server"),
      import("~/server/services/moderation-service.server"),
      import("~/server/cache/scopes.server"),
    ]);
    // The few routes these tests ask for, as the compiler would list them.
    const routes = {
      root: { path: "", module: root },
      "routes/ReciPals.Account.Login": { parentId: "root", path: "ReciPals/Account/Login", module: loginRoute },
      "routes/ReciPals.Recipes.$rid": { parentId: "root", path: "ReciPals/Recipes/:rid", module: recipeRoute },
      "routes/ReciPals.Search": { parentId: "root", path: "ReciPals/Search", module: searchRoute },
    };
    const build = serverBuildOf(entry, routes);
    const handler = createRequestHandler(build, "production");
    return {
      ...database,
      users,
      follows,
      recipes,
      passwords,
      throttle,
      interactions,
      shopping,
      people,
      moderation,
      scopes,
      loginAction: loginRoute.action,
      apiUser: apiUserRoute,
      /** A request answered by Remix, as the server answers it (a clientAddress in the load context). */
      handle: (request: Request) => handler(request, { clientAddress: "203.0.113.250" }),
    };
  } finally {
    globalThis.__recipalsDb = keptDb;
    process.env.DATABASE_URL = keptUrl;
  }
}

type Server = Awaited<ReturnType<typeof startServer>>;

const ORIGIN = "http://localhost:4000";
const uniqueName = (prefix: string) => `${prefix}_${crypto.randomBytes(4).toString("hex")}`;

/** The status of what a route action answered or threw (a `data(…, { status })`, a Response). */
async function statusOf(run: () => Promise<unknown>): Promise<number> {
  try {
    const value = await run();
    if (value instanceof Response) return value.status;
    return (value as { init?: { status?: number } | null }).init?.status ?? 200;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown.status;
    throw thrown;
  }
}

const loginForm = (fields: Record<string, string>, path = "/ReciPals/Account/Login") =>
  new Request(new URL(path, ORIGIN), {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });

/**
 * A TCP proxy in front of PostgreSQL, so a test can take the database away from one server (cut:
 * every connection dropped, nothing listening) and give it back (start again on the same port).
 */
class CuttableProxy {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | null = null;
  port = 0;
  /** Cuts everything when a client sends bytes that match (before they reach PostgreSQL). */
  cutWhen: ((chunk: Buffer) => boolean) | null = null;

  constructor(target: string) {
    const url = new URL(target);
    this.#target = { host: url.hostname, port: Number(url.port || 5432) };
  }

  urlFor(target: string): string {
    const url = new URL(target);
    url.host = `127.0.0.1:${this.port}`;
    return url.toString();
  }

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.#target.port, this.#target.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.setNoDelay(true);
        socket.on("error", () => undefined);
        socket.on("close", () => {
          this.#sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      // The end of the last chunk too, so a statement split across two chunks is still seen.
      let tail = Buffer.alloc(0);
      client.on("data", (chunk: Buffer) => {
        const seen = Buffer.concat([tail, chunk]);
        tail = seen.subarray(-64);
        if (this.cutWhen?.(seen)) {
          this.cutWhen = null;
          void this.cut();
          return;
        }
        upstream.write(chunk);
      });
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  /** Drops every connection and stops listening: the database is gone for whoever came through here. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;

/** What `promise` rejected with (failing when it resolved instead). */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    return error;
  }
  throw new Error(`Expected a rejection, got ${JSON.stringify(value)}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `done()` (checking on every turn of the event loop); the time it took, or null past `withinMs`. */
async function timeUntil(done: () => boolean, withinMs: number): Promise<number | null> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > withinMs) return null;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return performance.now() - start;
}

describe.skipIf(!TEST_POSTGRES)("PostgreSQL across two app servers (docs/scaling.md)", () => {
  let a: Server;
  let b: Server;
  let passwordHash: string;
  const password = "correct horse";

  beforeAll(async () => {
    a = await startServer(process.env.DATABASE_URL!);
    b = await startServer(process.env.DATABASE_URL!);
    passwordHash = await a.passwords.hashPassword(password);
  });

  afterAll(async () => {
    await a?.closeDatabaseHandle(a.db);
    await b?.closeDatabaseHandle(b.db);
  });

  /** A new account, made through the sign-up service on server A. */
  async function account(role: "USER" | "ADMIN" = "USER") {
    const username = uniqueName(role.toLowerCase());
    const admin = { id: "setup", role: "ADMIN" } as const;
    const created = await a.users.createAccount({ name: "Test Person", username, passwordHash, role }, admin);
    if (!created.ok) throw new Error(created.message);
    return created.value;
  }

  it("is two servers: each its own copy of the app's modules, its own pool", () => {
    expect(a.db).not.toBe(b.db);
    expect(a.DatabaseUnavailableError).not.toBe(b.DatabaseUnavailableError);
    expect(a.engineOf(a.db).name).toBe("postgres");
    expect(b.engineOf(b.db).name).toBe("postgres");
  });

  describe("sign-in throttling counts every server's attempts", () => {
    it("40 wrong passwords for one account from one address at once, half on each server: exactly 5 are checked, 35 refused", async () => {
      const user = await account();
      const { THROTTLE } = a.throttle;
      const statuses = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          statusOf(() =>
            (i % 2 === 0 ? a : b).loginAction({
              request: loginForm({ username: user.username, password: `wrong-${i}` }),
              params: {},
              context: { clientAddress: "198.51.100.7" },
            }),
          ),
        ),
      );
      expect(statuses.filter((status) => status === 401)).toHaveLength(THROTTLE.perUsernameAndAddress);
      expect(statuses.filter((status) => status === 429)).toHaveLength(40 - THROTTLE.perUsernameAndAddress);
      const counted = await a.db.selectFrom("sign_in_failures").select("id").where("username_key", "=", user.username.toLowerCase()).execute();
      expect(counted).toHaveLength(THROTTLE.perUsernameAndAddress);
      // The right password is refused from there, on either server, until the window has passed.
      for (const server of [a, b]) {
        const status = await statusOf(() =>
          server.loginAction({ request: loginForm({ username: user.username, password }), params: {}, context: { clientAddress: "198.51.100.7" } }),
        );
        expect(status).toBe(429);
      }
    });
  });

  describe("check-then-write rules hold across servers", () => {
    /** Only these two are ADMIN: earlier rounds' survivors step down first (setup, not the rule under test). */
    async function onlyAdmins(ids: string[]) {
      await a.db.updateTable("users").set({ role: "USER" }).where("role", "=", "ADMIN").where("id", "not in", ids).execute();
      await a.db.updateTable("users").set({ role: "ADMIN" }).where("id", "in", ids).execute();
      const admins = await a.db.selectFrom("users").select("id").where("role", "=", "ADMIN").execute();
      expect(admins.map((row) => row.id).sort()).toEqual([...ids].sort());
    }
    const adminsLeft = async () => (await a.db.selectFrom("users").select("id").where("role", "=", "ADMIN").execute()).map((row) => row.id);

    it("two admins demote each other at once, one on each server: one succeeds, one admin remains (10 rounds)", async () => {
      const x = await account("ADMIN");
      const y = await account("ADMIN");
      for (let round = 0; round < 10; round++) {
        await onlyAdmins([x.id, y.id]);
        const [byA, byB] = await Promise.all([
          a.users.changeRole({ actor: { id: x.id, role: "ADMIN" }, userId: y.id, role: "USER" }),
          b.users.changeRole({ actor: { id: y.id, role: "ADMIN" }, userId: x.id, role: "USER" }),
        ]);
        const outcomes = [byA, byB];
        expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
        expect(outcomes.find((outcome) => !outcome.ok)).toMatchObject({ ok: false, status: 409, message: "You cannot remove the last admin's role." });
        const left = await adminsLeft();
        expect(left).toHaveLength(1);
        expect(left[0]).toBe(byA.ok ? x.id : y.id);
      }
    });

    it("two admins delete each other at once, one on each server: one is deleted, one admin remains (5 rounds)", async () => {
      for (let round = 0; round < 5; round++) {
        const x = await account("ADMIN");
        const y = await account("ADMIN");
        await onlyAdmins([x.id, y.id]);
        const outcomes = await Promise.all([
          a.users.deleteUser({ actor: { id: x.id, role: "ADMIN" }, userId: y.id }),
          b.users.deleteUser({ actor: { id: y.id, role: "ADMIN" }, userId: x.id }),
        ]);
        expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
        expect(outcomes.find((outcome) => !outcome.ok)).toMatchObject({ ok: false, status: 409, message: "You cannot delete the last admin." });
        const remaining = await a.db.selectFrom("users").select("id").where("id", "in", [x.id, y.id]).execute();
        expect(remaining).toHaveLength(1);
        expect(await adminsLeft()).toEqual([remaining[0]!.id]);
      }
    });

    it("one username signed up 6 times at once, 3 on each server, in different letter cases: one account, five 409s (5 rounds)", async () => {
      for (let round = 0; round < 5; round++) {
        const username = uniqueName("Same");
        const spellings = [username, username.toLowerCase(), username.toUpperCase()];
        const outcomes = await Promise.all(
          Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).users.createAccount({ name: "Same Person", username: spellings[i % 3], passwordHash })),
        );
        expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
        const refused = outcomes.filter((outcome) => !outcome.ok);
        expect(refused).toHaveLength(5);
        for (const outcome of refused) expect(outcome).toMatchObject({ status: 409, message: a.users.USER_MESSAGES.usernameTaken });
        const rows = await a.db.selectFrom("users").select("id").where(a.engineOf(a.db).equalsIgnoringCase("username", username)).execute();
        expect(rows).toHaveLength(1);
      }
    });
  });

  // With no lock every write takes (docs/scaling.md, "How writers meet"), each rule that reads
  // before it writes holds by its own tool. Half of each burst goes to each server.
  describe("independent writers side by side, the rules still holding", () => {
    const on = (i: number) => (i % 2 === 0 ? a : b);
    const actor = (user: { id: string }) => ({ id: user.id, role: "USER" as const });
    const ok = <T extends { ok: boolean }>(outcome: T) => {
      expect(outcome).toMatchObject({ ok: true });
      return outcome;
    };

    it("30 people like one post and comment on it at once: every like, comment and notification kept once, each with its own seq", async () => {
      const owner = await account();
      const postId = (await makeRecipeWithPost({ userId: owner.id })).postId!;
      const fans = await Promise.all(Array.from({ length: 30 }, () => account()));
      const [likes, comments] = await Promise.all([
        Promise.all(fans.map((fan, i) => on(i).interactions.setLike({ actor: actor(fan), postId, liked: true }))),
        Promise.all(fans.map((fan, i) => on(i + 1).interactions.addComment({ actor: actor(fan), postId, text: `Lovely ${i}` }))),
      ]);
      for (const outcome of [...likes, ...comments]) ok(outcome);
      const rows = await a.db.selectFrom("likes").select("user_id").where("post_id", "=", postId).execute();
      expect(rows.map((row) => row.user_id).sort()).toEqual(fans.map((fan) => fan.id).sort());
      const written = await a.db.selectFrom("comments").select("seq").where("post_id", "=", postId).execute();
      expect(written).toHaveLength(30);
      expect(new Set(written.map((row) => row.seq)).size).toBe(30);
      const notices = await a.db.selectFrom("notifications").select(["kind", "seq"]).where("user_id", "=", owner.id).execute();
      expect(notices.filter((row) => row.kind === "like")).toHaveLength(30);
      expect(notices.filter((row) => row.kind === "comment")).toHaveLength(30);
      expect(new Set(notices.map((row) => row.seq)).size).toBe(60);
    });

    it("20 people sign up and 20 recipes are created at once: every one kept, no seq twice, each newer than what was there", async () => {
      const before = Number((await a.db.selectFrom("recipes").select((eb) => eb.fn.max("seq").as("m")).executeTakeFirstOrThrow()).m ?? 0);
      const cooks = await Promise.all(Array.from({ length: 20 }, (_, i) => on(i).users.createAccount({ name: "Cook", username: uniqueName("cook"), passwordHash })));
      const ids = cooks.map((outcome) => {
        if (!outcome.ok) throw new Error(outcome.message);
        return outcome.value.id;
      });
      const users = await a.db.selectFrom("users").select("seq").where("id", "in", ids).execute();
      expect(new Set(users.map((row) => row.seq)).size).toBe(20);
      const made = await Promise.all(ids.map((id) => makeRecipeWithPost({ userId: id })));
      const recipes = await a.db.selectFrom("recipes").select("seq").where("id", "in", made.map((m) => m.recipeId)).execute();
      expect(recipes).toHaveLength(20);
      expect(new Set(recipes.map((row) => row.seq)).size).toBe(20);
      for (const row of recipes) expect(row.seq).toBeGreaterThan(before);
      // A row given a seq of its own (a tool) moves the sequence on: the next one taken is above it.
      const explicitSeq = Math.max(...recipes.map((row) => row.seq)) + 1000;
      await a.db.insertInto("recipes").values({ id: uniqueName("explicit"), user_created: ids[0]!, name: "Explicit", photo: "/images/x.png", created_at: "2026-11-26", seq: explicitSeq }).execute();
      const next = await makeRecipeWithPost({ userId: ids[0]! });
      const nextRow = await a.db.selectFrom("recipes").select("seq").where("id", "=", next.recipeId).executeTakeFirstOrThrow();
      expect(nextRow.seq).toBeGreaterThan(explicitSeq);
    });

    it("one recipe added to one shopping list 6 times at once: on the list once, each line once", async () => {
      const cook = await account();
      const owner = await account();
      const { recipeId } = await makeRecipeWithPost({ userId: owner.id });
      const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => on(i).shopping.addRecipeToList({ actor: actor(cook), recipeId })));
      for (const outcome of outcomes) ok(outcome);
      expect(await a.db.selectFrom("shopping_recipes").select("seq").where("user_id", "=", cook.id).execute()).toHaveLength(1);
      const items = await a.db.selectFrom("shopping_items").select("text").where("user_id", "=", cook.id).execute();
      expect(items.map((item) => item.text).sort()).toEqual(["Eggs (2)", "Flour (200g)"]);
    });

    it("a rate limit of 5 with 20 tries at once: exactly 5 pass", async () => {
      const limit = { bucket: "race-test", limit: 5, windowMs: 60_000 };
      const key = uniqueName("key");
      const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => on(i).throttle.takeRateLimited(limit, key)));
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(5);
      expect(await a.db.selectFrom("rate_events").select("id").where("bucket", "=", "race-test").where("key", "=", key).execute()).toHaveLength(5);
    });

    it("25 reports at once by one person: 20 kept, 5 refused with 429", async () => {
      const reporter = await account();
      const targets = await Promise.all(Array.from({ length: 25 }, () => account()));
      const outcomes = await Promise.all(
        targets.map((target, i) => on(i).moderation.fileReport({ actor: actor(reporter), kind: "user", targetId: target.id, reason: "spam", text: "" })),
      );
      expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(20);
      expect(outcomes.filter((outcome) => !outcome.ok && outcome.status === 429)).toHaveLength(5);
    });

    it("two admins act on one report group at once, one on each server: one acts, one is told, one log entry (5 rounds)", async () => {
      const [first, second] = [await account("ADMIN"), await account("ADMIN")];
      for (let round = 0; round < 5; round++) {
        const reporter = await account();
        const target = await account();
        ok(await a.moderation.fileReport({ actor: actor(reporter), kind: "user", targetId: target.id, reason: "spam", text: "" }));
        const outcomes = await Promise.all([
          a.moderation.moderate({ actor: { id: first.id, role: "ADMIN" }, kind: "user", targetId: target.id, action: "dismiss", why: "" }),
          b.moderation.moderate({ actor: { id: second.id, role: "ADMIN" }, kind: "user", targetId: target.id, action: round % 2 === 0 ? "suspend" : "dismiss", why: "" }),
        ]);
        expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
        expect(outcomes.find((outcome) => !outcome.ok)).toMatchObject({ status: 409 });
        expect(await a.db.selectFrom("moderation_log").select("id").where("target_id", "=", target.id).execute()).toHaveLength(1);
        expect(await a.db.selectFrom("notifications").select("id").where("user_id", "=", reporter.id).where("kind", "=", "report").execute()).toHaveLength(1);
      }
    });

    it("a follow racing a block, one on each server, both ways: never a block and a follow at the end (10 rounds)", async () => {
      for (let round = 0; round < 10; round++) {
        const [x, y] = [await account(), await account()];
        const [follower, followee] = round % 2 === 0 ? [x, y] : [y, x];
        await Promise.all([
          a.follows.setFollowing({ actor: actor(follower), targetId: followee.id, following: true }),
          b.people.setBlock({ actor: actor(round % 4 < 2 ? followee : follower), targetId: (round % 4 < 2 ? follower : followee).id, blocked: true }),
        ]);
        const follows = await a.db.selectFrom("follows").select("follower_id").where("follower_id", "in", [x.id, y.id]).where("followee_id", "in", [x.id, y.id]).execute();
        const blocks = await a.db.selectFrom("blocks").select("blocker_id").where("blocker_id", "in", [x.id, y.id]).execute();
        expect(blocks).toHaveLength(1);
        expect(follows).toEqual([]);
      }
    });

    it("two saves of one profile's tags at once: both answer, the tags are one save's whole list", async () => {
      const user = await account();
      const lists = [PROFILE_TAGS.slice(0, 3), PROFILE_TAGS.slice(3, 5)];
      const outcomes = await Promise.all(lists.map((tags, i) => on(i).users.updateProfile({ actor: actor(user), userId: user.id, changes: { tags } })));
      for (const outcome of outcomes) ok(outcome);
      const stored = (await a.db.selectFrom("user_tags").select("tag").where("user_id", "=", user.id).orderBy("position").execute()).map((row) => row.tag);
      expect(lists.map((list) => JSON.stringify(list))).toContain(JSON.stringify(stored));
    });
  });

  describe("conflicts PostgreSQL resolves by ending a transaction", () => {
    it("a deadlock between two servers' writes: the one ended is tried again, both land", async () => {
      const [x, y] = [await account(), await account()];
      let waiting = 0;
      let release: () => void = () => undefined;
      const bothStarted = new Promise<void>((resolve) => (release = resolve));
      let tries = 0;
      // Each updates one person's row, waits for the other to hold theirs, then updates the other's.
      const crossing = (server: Server, first: string, second: string, bio: string) =>
        server.writeTransaction(server.db, async (trx) => {
          tries += 1;
          await trx.updateTable("users").set({ bio }).where("id", "=", first).execute();
          if (tries <= 2) {
            waiting += 1;
            if (waiting === 2) release();
            await bothStarted;
          }
          await trx.updateTable("users").set({ bio }).where("id", "=", second).execute();
        });
      await Promise.all([crossing(a, x.id, y.id, "from A"), crossing(b, y.id, x.id, "from B")]);
      expect(tries).toBe(3);
      const bios = await a.db.selectFrom("users").select("bio").where("id", "in", [x.id, y.id]).execute();
      expect(new Set(bios.map((row) => row.bio)).size).toBe(1);
    });

    it("tried again from its start; one that keeps conflicting is refused as unavailable (503), nothing written", async () => {
      const conflict = sql`do $$ begin raise exception 'conflict' using errcode = '40001'; end $$`;
      const key = uniqueName("conflict");
      let tries = 0;
      const value = await a.writeTransaction(a.db, async (trx) => {
        tries += 1;
        await trx.insertInto("rate_events").values({ id: crypto.randomUUID(), bucket: "conflict-test", key, at: Date.now() }).execute();
        if (tries < a.WRITE_TRIES) await conflict.execute(trx);
        return "written";
      });
      expect(value).toBe("written");
      expect(tries).toBe(a.WRITE_TRIES);
      expect(await a.db.selectFrom("rate_events").select("id").where("key", "=", key).execute()).toHaveLength(1);

      const never = uniqueName("conflict");
      tries = 0;
      const error = await rejectionOf(
        a.writeTransaction(a.db, async (trx) => {
          tries += 1;
          await trx.insertInto("rate_events").values({ id: crypto.randomUUID(), bucket: "conflict-test", key: never, at: Date.now() }).execute();
          await conflict.execute(trx);
        }),
      );
      expect(tries).toBe(a.WRITE_TRIES);
      expect(a.isUnavailable(error)).toBe(true);
      expect(await a.db.selectFrom("rate_events").select("id").where("key", "=", never).execute()).toEqual([]);
    });
  });

  describe("change notices: a write on one server moves the other's change counter", () => {
    it("hears server A's writes on server B within a second; reading the counter costs microseconds; reads move nothing", async () => {
      const counterOfB = () => b.changeCounter(b.db);
      const counterOfA = () => a.changeCounter(a.db);
      // The first question starts the listener; it answers "off-…" (never the same twice) until it listens.
      const first = counterOfB();
      expect(counterOfB()).not.toBe(first);
      expect(await timeUntil(() => !counterOfB().startsWith("off-"), 5000)).not.toBeNull();
      expect(await timeUntil(() => !counterOfA().startsWith("off-"), 5000)).not.toBeNull();

      const follower = await account();
      const followee = await account();
      const actor = { id: follower.id, role: "USER" } as const;
      const afterCommit: number[] = [];
      const afterStart: number[] = [];
      for (let i = 0; i < 50; i++) {
        const before = counterOfB();
        const ownBefore = counterOfA();
        const start = performance.now();
        const outcome = await a.follows.setFollowing({ actor, targetId: followee.id, following: i % 2 === 0 });
        expect(outcome).toMatchObject({ ok: true, value: { following: i % 2 === 0 } });
        const committed = performance.now();
        // This server's own commit moves its own counter at once, before the answer leaves.
        expect(counterOfA()).not.toBe(ownBefore);
        const waited = await timeUntil(() => counterOfB() !== before, 1000);
        expect(waited, `write ${i}: server B did not hear it within 1 s`).not.toBeNull();
        afterCommit.push(waited!);
        afterStart.push(committed - start + waited!);
        expect(counterOfB()).not.toMatch(/^off-/);
      }
      afterCommit.sort((x, y) => x - y);
      afterStart.sort((x, y) => x - y);
      log(
        `notice latency over 50 writes (server A commits, server B's counter moves): after the write returned p50 ${percentile(afterCommit, 0.5).toFixed(2)} ms, ` +
          `max ${percentile(afterCommit, 1).toFixed(2)} ms; from the start of the write p50 ${percentile(afterStart, 0.5).toFixed(2)} ms, max ${percentile(afterStart, 1).toFixed(2)} ms`,
      );
      expect(percentile(afterCommit, 1)).toBeLessThan(1000);

      // What the page cache pays per request: one synchronous read of the counter.
      const calls = 100_000;
      let sink = 0;
      const start = performance.now();
      for (let i = 0; i < calls; i++) sink += counterOfB().length;
      const perCallUs = ((performance.now() - start) * 1000) / calls;
      expect(sink).toBeGreaterThan(0);
      log(`changeCounter() cost: ${perCallUs.toFixed(3)} µs per call (${calls.toLocaleString("en")} calls)`);
      expect(perCallUs).toBeLessThan(50);

      // Read-only requests — a recipe page, a search (raw SQL), a JSON read — on either server move no counter.
      const recipeId = crypto.randomUUID();
      const created = await a.recipes.createRecipe({
        actor,
        recipeId,
        input: { name: "Quiet soup", description: "d", totalTime: "", serves: 2, tags: [], sections: [{ id: "", title: "Main", ingredients: ["Water"] }], steps: ["Boil."] },
        photo: { kind: "keep" },
        fallbackPhoto: "/images/recipe-placeholder.png",
      });
      expect(created.ok).toBe(true);
      await sleep(300); // any notice still on its way arrives
      const quiet = { a: counterOfA(), b: counterOfB() };
      for (const server of [a, b]) {
        expect((await server.handle(new Request(new URL(`/ReciPals/Recipes/${recipeId}`, ORIGIN)))).status).toBe(200);
        expect((await server.handle(new Request(new URL("/ReciPals/Search?q=quiet%20soup", ORIGIN)))).status).toBe(200);
        expect((await server.handle(new Request(new URL(`/ReciPals/Recipes/${recipeId}.data`, ORIGIN)))).status).toBe(200);
        const json = await server.apiUser.loader({ request: new Request(new URL(`/api/users/${follower.id}`, ORIGIN)), params: { id: follower.id }, context: {} });
        expect(json.status).toBe(200);
      }
      await sleep(300);
      expect({ a: counterOfA(), b: counterOfB() }).toEqual(quiet);
    });
  });

  describe("what the driver holds back and sends together", () => {
    it("a lock held back with begin is taken before the transaction's first statement, and held to its end", async () => {
      const key = uniqueName("held");
      let releaseA: () => void = () => undefined;
      const aMayCommit = new Promise<void>((resolve) => (releaseA = resolve));
      let aCommitted = 0;
      let bRead = 0;
      const first = a.writeTransaction(a.db, async (trx) => {
        await a.engineOf(trx).writers.lock(trx, [key]);
        await trx.selectFrom("users").select("id").limit(1).execute();
        await aMayCommit;
        aCommitted = performance.now();
      });
      await sleep(100);
      const second = b.writeTransaction(b.db, async (trx) => {
        await b.engineOf(trx).writers.lock(trx, [key]);
        await trx.selectFrom("users").select("id").limit(1).execute();
        bRead = performance.now();
      });
      await sleep(300);
      expect(bRead).toBe(0); // still waiting for A's lock
      releaseA();
      await Promise.all([first, second]);
      expect(bRead).toBeGreaterThan(aCommitted);
    });

    it("the first statement goes with begin, its values written in, and means exactly what it would with parameters", async () => {
      // Text PostgreSQL quoting must keep: quotes, backslashes, a placeholder look-alike, newlines, emoji.
      const awkward = ["it's", "back\\slash \\'", "$1 and $$ and $tag$", "two\nlines", "🍲 ½ cup", ""];
      const username = uniqueName("w");
      const inserted = await a.writeTransaction(a.db, async (trx) => {
        await a.engineOf(trx).writers.lock(trx, [uniqueName("first")]);
        return trx
          .insertInto("users")
          .values({
            id: crypto.randomUUID(),
            username,
            name: awkward.join("|"),
            password_hash: "x",
            role: "USER",
            created_at: "2026-11-26T00:00:00.000Z",
            seq: 7_000_000_001,
            suspended_at: null,
          })
          .returning(["name", "suspended_at", "seq"])
          .executeTakeFirstOrThrow();
      });
      expect(inserted).toEqual({ name: awkward.join("|"), suspended_at: null, seq: 7_000_000_001 });
      const read = await a.db.selectFrom("users").select(["name"]).where("username", "=", username).executeTakeFirstOrThrow();
      expect(read.name).toBe(awkward.join("|"));
      // What cannot be written in goes after the pending statements instead, with the same answer.
      expect(withLiterals(CompiledQuery.raw("select $1 as v", [new Date(0)]))).toBeNull();
      expect(withLiterals(CompiledQuery.raw("select 'a' || $1 as v", ["b"]))).toBeNull();
      expect(withLiterals(CompiledQuery.raw("select $1 as a, $2 as b, $3 as c, $4 as d", ["x'y", 2.5, true, null]))).toBe("select 'x''y' as a, '2.5' as b, 'true' as c, null as d");
      const when = await a.writeTransaction(a.db, async (trx) => {
        await a.engineOf(trx).writers.lock(trx, [uniqueName("date")]);
        return sql<{ v: Date }>`select ${new Date(0)}::timestamptz as v`.execute(trx);
      });
      expect(when.rows[0]!.v.getTime()).toBe(0);
    });

    it("a transaction that ends before sending anything, or fails after, leaves its connection clean", async () => {
      const thrown = new Error("changed my mind");
      for (let i = 0; i < 12; i++) {
        // More rounds than the pool has connections: every one of them goes through both.
        expect(
          await rejectionOf(
            a.scopes.changing(["feed"], async (trx) => {
              await a.engineOf(trx).writers.lock(trx, [uniqueName("unused")]);
              throw thrown;
            }, a.db),
          ),
        ).toBe(thrown);
        const failed = await rejectionOf(
          a.scopes.changing(["feed"], async (trx) => {
            await trx.insertInto("blocks").values({ blocker_id: "nobody", blocked_id: "nobody", created_at: "2026-11-26" }).execute();
          }, a.db),
        );
        expect((failed as { code?: string }).code).toMatch(/^23/);
      }
      expect((await sql<{ one: number }>`select 1 as one`.execute(a.db)).rows).toEqual([{ one: 1 }]);
    });

    it("a commit's notice reaches the other server with its scopes, skips its own, and says everything when too long for PostgreSQL", async () => {
      const feedOfA = a.openChangeFeed(a.db);
      const feedOfB = b.openChangeFeed(b.db);
      expect(await timeUntil(() => feedOfA.changes() !== null && feedOfB.changes() !== null, 5000)).not.toBeNull();
      feedOfA.changes();
      feedOfB.changes();
      const scope = `recipe:${uniqueName("notice")}`;
      await a.scopes.changing([scope], async (trx) => trx.selectFrom("users").select("id").limit(1).execute(), a.db);
      expect(feedOfA.changes()).toEqual({ all: false, scopes: [scope] }); // told at once
      let heard: { all: boolean; scopes: string[] } | null = null;
      expect(await timeUntil(() => (heard = feedOfB.changes()) !== null && heard.scopes.length > 0, 2000)).not.toBeNull();
      expect(heard).toEqual({ all: false, scopes: [scope] });
      await sleep(300);
      expect(feedOfA.changes()).toEqual({ all: false, scopes: [] }); // its own notice came back and was skipped

      const many = Array.from({ length: 400 }, () => `recipe:${crypto.randomUUID()}`);
      await a.scopes.changing(many, async (trx) => trx.selectFrom("users").select("id").limit(1).execute(), a.db);
      expect(await timeUntil(() => feedOfB.changes()?.all === true, 2000)).not.toBeNull();
    });
  });

  describe("PostgreSQL lost while serving, and back", () => {
    let proxy: CuttableProxy;
    let c: Server;

    beforeAll(async () => {
      proxy = new CuttableProxy(process.env.DATABASE_URL!);
      await proxy.start();
      c = await startServer(proxy.urlFor(process.env.DATABASE_URL!));
    });

    afterAll(async () => {
      await proxy?.cut();
      await c?.closeDatabaseHandle(c.db);
    });

    it("503s while it is gone, rolls a cut transaction back whole, and serves and hears notices again once it is back", { timeout: 60_000 }, async () => {
      const crashes: unknown[] = [];
      const onCrash = (error: unknown) => crashes.push(error);
      process.on("uncaughtException", onCrash);
      process.on("unhandledRejection", onCrash);
      try {
        const user = await account();
        // Connected: server C (behind the proxy) serves, and listens.
        expect((await c.handle(new Request(new URL("/ReciPals/Search", ORIGIN)))).status).toBe(200);
        expect(await timeUntil(() => !c.changeCounter(c.db).startsWith("off-"), 5000)).not.toBeNull();

        await proxy.cut();
        // A query refuses with DatabaseUnavailableError.
        const failed = await rejectionOf(c.db.selectFrom("users").select("id").execute());
        expect(failed).toBeInstanceOf(c.DatabaseUnavailableError);
        expect(c.isUnavailable(failed)).toBe(true);
        expect(c.databaseLooksDown()).toBe(true);
        // The listener is down: the counter never answers the same twice, so the page cache keeps nothing.
        expect(await timeUntil(() => c.changeCounter(c.db).startsWith("off-"), 2000)).not.toBeNull();
        expect(c.changeCounter(c.db)).not.toBe(c.changeCounter(c.db));

        // Through the app: a page (loader), its .data request, a sign-in (action) and a JSON call answer 503.
        const page = await c.handle(new Request(new URL(`/ReciPals/Recipes/${crypto.randomUUID()}`, ORIGIN)));
        expect(page.status).toBe(503);
        expect(page.headers.get("Retry-After")).toBe("5");
        const dataRequest = await c.handle(new Request(new URL(`/ReciPals/Recipes/${crypto.randomUUID()}.data`, ORIGIN)));
        expect(dataRequest.status).toBe(503);
        const signIn = await c.handle(loginForm({ username: user.username, password }));
        expect(signIn.status).toBe(503);
        // The same form sent by Remix's client: the message comes back as the form's data, so the
        // page shows it on the form (nothing was written) instead of its error page.
        const clientSignIn = await c.handle(loginForm({ username: user.username, password }, "/ReciPals/Account/Login.data"));
        expect(clientSignIn.status).toBe(503);
        expect(clientSignIn.headers.get("Retry-After")).toBe("5");
        const { decode } = await import("turbo-stream");
        const decoded = await decode(clientSignIn.body!);
        await decoded.done;
        expect(decoded.value).toEqual({ data: { early: true, formError: c.UNAVAILABLE_MESSAGE, error: c.UNAVAILABLE_MESSAGE } });
        const json = await c.apiUser.loader({ request: new Request(new URL(`/api/users/${user.id}`, ORIGIN)), params: { id: user.id }, context: {} });
        expect(json.status).toBe(503);
        expect(json.headers.get("Retry-After")).toBe("5");
        expect(((await json.json()) as { message: string }).message).toBe(c.UNAVAILABLE_MESSAGE);

        // A transaction cut half way (the account row written, its tags not yet): nothing of it stays.
        await proxy.start();
        expect((await c.db.selectFrom("users").select("id").where("id", "=", user.id).execute()).length).toBe(1);
        proxy.cutWhen = (chunk) => chunk.includes('insert into "user_tags"');
        const halfUsername = uniqueName("half");
        const half = await rejectionOf(c.users.createAccount({ name: "Half Made", username: halfUsername, passwordHash, tags: PROFILE_TAGS.slice(0, 2) }));
        expect(c.isUnavailable(half)).toBe(true);
        expect(proxy.cutWhen).toBeNull(); // the cut came at the tags, after the user row
        const seen = await a.db.selectFrom("users").select("id").where(a.engineOf(a.db).equalsIgnoringCase("username", halfUsername)).execute();
        expect(seen).toEqual([]);
        // …and what it held went with it: its username (an uncommitted row in the unique index,
        // which a second sign-up would wait for) is free on the other server at once.
        const writeStart = performance.now();
        const again = await a.users.createAccount({ name: "Made Whole", username: halfUsername, passwordHash });
        expect(again.ok).toBe(true);
        const writeMs = performance.now() - writeStart;
        expect(writeMs).toBeLessThan(5000);

        // Back: the same pool serves on the next query, and the listener hears notices again.
        await proxy.start();
        const back = performance.now();
        expect(await c.db.selectFrom("users").select("id").where("id", "=", user.id).execute()).toHaveLength(1);
        expect(c.databaseLooksDown()).toBe(false);
        expect((await c.handle(new Request(new URL("/ReciPals/Search", ORIGIN)))).status).toBe(200);
        expect(await timeUntil(() => !c.changeCounter(c.db).startsWith("off-"), 15_000), "the listener did not come back within 15 s").not.toBeNull();
        const listeningAfter = performance.now() - back;
        const before = c.changeCounter(c.db);
        await account();
        const heard = await timeUntil(() => c.changeCounter(c.db) !== before, 1000);
        expect(heard, "server C did not hear server A's write after the outage").not.toBeNull();
        log(
          `outage: a write on the other server after the cut transaction took ${writeMs.toFixed(1)} ms; after the proxy came back ` +
            `the pool answered at once, the listener was back after ${listeningAfter.toFixed(0)} ms, and heard a write in ${heard!.toFixed(2)} ms`,
        );
        await sleep(100);
        expect(crashes).toEqual([]);
      } finally {
        process.off("uncaughtException", onCrash);
        process.off("unhandledRejection", onCrash);
      }
    });
  });
});
