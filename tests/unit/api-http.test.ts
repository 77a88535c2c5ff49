import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

import * as catchAllRoute from "~/routes/api.$";
import * as postsRoute from "~/routes/api.posts";
import * as postRoute from "~/routes/api.posts.$post_id";
import * as commentsRoute from "~/routes/api.posts.$post_id.comments";
import * as recipesRoute from "~/routes/api.recipes";
import * as recipeRoute from "~/routes/api.recipes.$recipe_id";
import * as searchRoute from "~/routes/api.recipes.search";
import * as usersRoute from "~/routes/api.users";
import * as userRoute from "~/routes/api.users.$id";
import * as profileRoute from "~/routes/api.users.profile";
import * as signinRoute from "~/routes/api.users.signin";
import { streamJsonArray } from "~/server/api/entities-api.server";
import { allowedOrigins, apiRoute, ApiError, readJsonObject } from "~/server/http/api.server";
import { LIST_BATCH } from "~/server/api/entities-api.server";
import { BODY_LIMITS } from "~/server/http/body.server";
import { db } from "~/server/db/connection.server";

import { apiRequest, call, expectError, type RouteModule } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { makeUser, signedInCookie } from "../support/app";
import { useSetting } from "../support/settings";

const CLIENT = "http://localhost:5173";
const FOREIGN = "https://evil.example";

let restoreOrigins = () => {};
beforeAll(() => {
  restoreOrigins = useSetting("ALLOWED_ORIGINS", [CLIENT, "http://127.0.0.1:5173"]);
});
afterAll(() => restoreOrigins());

function expectCors(headers: Headers, origin: string | null) {
  expect(headers.get("Vary")).toMatch(/Origin/);
  expect(headers.get("Access-Control-Allow-Origin")).toBe(origin);
  expect(headers.get("Access-Control-Allow-Credentials")).toBe(origin ? "true" : null);
}

describe("CORS", () => {
  it("reads the allowed origins from ALLOWED_ORIGINS", () => {
    expect(allowedOrigins()).toEqual([CLIENT, "http://127.0.0.1:5173"]);
    const restore = useSetting("ALLOWED_ORIGINS", []);
    expect(allowedOrigins()).toEqual([]);
    restore();
  });

  it("answers an allowed origin with credentials on successes and on every kind of error", async () => {
    const { recipeId } = await makeRecipeWithPost({ userId: null });
    const answers = [
      await call(recipesRoute, "GET", "/api/recipes", { origin: CLIENT }),
      await call(recipeRoute, "GET", `/api/recipes/${recipeId}`, { origin: CLIENT, params: { recipe_id: recipeId } }),
      await call(profileRoute, "GET", "/api/users/profile", { origin: CLIENT }), // 401
      await call(recipeRoute, "GET", "/api/recipes/missing", { origin: CLIENT, params: { recipe_id: "missing" } }), // 404
      await call(signinRoute, "POST", "/api/users/signin", { origin: CLIENT, raw: "{", contentType: "application/json" }), // 400
      await call(signinRoute, "POST", "/api/users/signin", { origin: CLIENT, raw: "a=b", contentType: "text/plain" }), // 415
      await call(signinRoute, "GET", "/api/users/signin", { origin: CLIENT }), // 405
      await call(catchAllRoute, "GET", "/api/nothing/here", { origin: CLIENT }), // 404
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 401, 404, 400, 415, 405, 404]);
    for (const answer of answers) expectCors(answer.headers, CLIENT);
  });

  it("gives a foreign origin no CORS headers (only Vary), on success and error alike", async () => {
    for (const answer of [
      await call(recipesRoute, "GET", "/api/recipes", { origin: FOREIGN }),
      await call(profileRoute, "GET", "/api/users/profile", { origin: FOREIGN }),
    ]) {
      expectCors(answer.headers, null);
    }
    // No wildcard, ever, and no reflection of an origin that is merely similar.
    const lookalike = await call(recipesRoute, "GET", "/api/recipes", { origin: `${CLIENT}.evil.example` });
    expectCors(lookalike.headers, null);
  });

  const preflightRoutes: [string, RouteModule, string, string][] = [
    ["signin", signinRoute, "/api/users/signin", "POST"],
    ["user PUT", userRoute, "/api/users/x", "PUT"],
    ["user DELETE", userRoute, "/api/users/x", "DELETE"],
    ["post PUT", postRoute, "/api/posts/x", "PUT"],
    ["comments", commentsRoute, "/api/posts/x/comments", "POST"],
    ["recipes POST", recipesRoute, "/api/recipes", "POST"],
    ["recipe DELETE", recipeRoute, "/api/recipes/x", "DELETE"],
  ];

  it.each(preflightRoutes)("answers the preflight of a JSON %s from an allowed origin", async (_name, route, path, method) => {
    const answer = await call(route, "OPTIONS", path, {
      origin: CLIENT,
      headers: { "Access-Control-Request-Method": method, "Access-Control-Request-Headers": "content-type, x-requested-with, x-evil" },
    });
    expect(answer.status).toBe(204);
    expectCors(answer.headers, CLIENT);
    expect(answer.headers.get("Access-Control-Allow-Methods")).toContain(method);
    expect(answer.headers.get("Access-Control-Allow-Headers")).toBe("content-type, x-requested-with");
    expect(Number(answer.headers.get("Access-Control-Max-Age"))).toBeGreaterThan(0);
  });

  it("answers a foreign origin's preflight without any Allow-Origin (the browser stops there)", async () => {
    const answer = await call(userRoute, "OPTIONS", "/api/users/x", { origin: FOREIGN, headers: { "Access-Control-Request-Method": "PUT" } });
    expect(answer.status).toBe(204);
    expectCors(answer.headers, null);
    expect(answer.headers.get("Access-Control-Allow-Methods")).toBeNull();
  });

  it("signs a client on another origin in: the cookie comes back with CORS credentials", async () => {
    const user = await makeUser();
    const answer = await call(signinRoute, "POST", "/api/users/signin", { origin: CLIENT, body: { username: user.username, password: user.password } });
    expect(answer.status).toBe(200);
    expectCors(answer.headers, CLIENT);
    expect(answer.headers.get("Set-Cookie")).toMatch(/recipals_session=.*HttpOnly.*SameSite=Lax/i);
  });
});

describe("request bodies", () => {
  it("refuses a declared body over its call's limit at once (413): 64 KB for sign-in, 12 MB where photos may come", async () => {
    const request = apiRequest("POST", "/api/users/signin", {
      raw: "{}",
      headers: { "Content-Length": String(20 * 1024 * 1024) },
    });
    await expect(readJsonObject(request)).rejects.toMatchObject({ status: 413 });
    const answer = await call(signinRoute, "POST", "/api/users/signin", { raw: "{}", headers: { "Content-Length": String(20 * 1024 * 1024) } });
    expectError(answer, 413, "The request is too large (64 KB at most).");
    // An anonymous call may not make the server hold more than the small limit.
    const padded = JSON.stringify({ username: "x", password: "y", pad: "z".repeat(100 * 1024) });
    expectError(await call(signinRoute, "POST", "/api/users/signin", { raw: padded }), 413, "The request is too large (64 KB at most).");
    const me = await makeUser();
    const big = await call(recipesRoute, "POST", "/api/recipes", {
      raw: "{}",
      cookie: await signedInCookie(me.id),
      headers: { "Content-Length": String(20 * 1024 * 1024) },
    });
    expectError(big, 413, "The request is too large (12 MB at most).");
  });

  it("counts the bytes while reading: a 20 MB body without a length is refused (413)", async () => {
    let sent = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(32);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 20) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const request = new Request("http://localhost:4000/api/recipes", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    const me = await makeUser();
    request.headers.set("Cookie", await signedInCookie(me.id));
    const response = await recipesRoute.action({ request, params: {}, context: {} });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: "The request is too large (12 MB at most)." });
    expect(sent).toBeLessThan(20); // it stopped reading
  });

  it("accepts a body just under the cap of the route's kind, and refuses one just over", async () => {
    const under = apiRequest("POST", "/api/recipes", { raw: JSON.stringify({ pad: "x".repeat(BODY_LIMITS.photoJsonBytes - 20) }) });
    await expect(readJsonObject(under, BODY_LIMITS.photoJsonBytes)).resolves.toHaveProperty("pad");
    // A request no API route has seen reads as a small JSON call.
    const over = apiRequest("POST", "/api/recipes", { raw: JSON.stringify({ pad: "x".repeat(BODY_LIMITS.jsonBytes) }) });
    await expect(readJsonObject(over)).rejects.toMatchObject({ status: 413 });
  });

  it("refuses wrong content types (415), empty bodies, malformed JSON and non-objects (400)", async () => {
    const cases: [string | null, string, number][] = [
      ["text/plain", '{"username":"a"}', 415],
      ["application/x-www-form-urlencoded", "username=a", 415],
      ["multipart/form-data; boundary=x", "--x--", 415],
      [null, '{"username":"a"}', 415],
      ["application/json", "", 400],
      ["application/json", "{'a':1}", 400],
      ["application/json", "[1,2]", 400],
      ["application/json", "null", 400],
      ["application/json", '"text"', 400],
    ];
    for (const [contentType, raw, status] of cases) {
      const answer = await call(signinRoute, "POST", "/api/users/signin", { raw, contentType });
      expectError(answer, status);
    }
    // JSON with a charset, or a +json type, is fine.
    const user = await makeUser();
    const ok = await call(signinRoute, "POST", "/api/users/signin", {
      raw: JSON.stringify({ username: user.username, password: user.password }),
      contentType: "application/json; charset=utf-8",
    });
    expect(ok.status).toBe(200);
  });
});

describe("errors are always JSON", () => {
  it("answers unknown /api paths with a JSON 404 for every method", async () => {
    for (const method of ["GET", "POST", "PUT", "DELETE"]) {
      expectError(await call(catchAllRoute, method, "/api/unknown/thing"), 404, "There is no such API endpoint.");
    }
  });

  it("answers a method a route lacks with 405 and Allow", async () => {
    const answer = await call(usersRoute, "DELETE", "/api/users");
    expectError(answer, 405);
    expect(answer.headers.get("Allow")).toBe("GET, POST, OPTIONS");
    expectError(await call(searchRoute, "POST", "/api/recipes/search", { body: {} }), 405);
    expectError(await call(postsRoute, "PUT", "/api/posts", { body: {} }), 405);
  });

  it("turns an unexpected failure into a logged JSON 500 and a thrown Response into JSON", async () => {
    const spy = vi.mocked(console.error);
    spy.mockImplementationOnce(() => undefined);
    const failing = apiRoute({
      GET: async () => {
        throw new Error("database on fire");
      },
      POST: async () => {
        throw new Response("Gone away.", { status: 410 });
      },
    });
    const route = { loader: failing, action: failing } as unknown as RouteModule;
    const answer = await call(route, "GET", "/api/x");
    expectError(answer, 500, "Something went wrong. Please try again.");
    expect(answer.text).not.toContain("database on fire");
    expect(spy).toHaveBeenCalled();
    spy.mockClear();
    expectError(await call(route, "POST", "/api/x", { body: {} }), 410, "Gone away.");
    expect(new ApiError(418, "teapot").status).toBe(418);
  });
});

describe("list streaming", () => {
  it("reads lazily: a pull reads one batch, not the whole table", async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ seq: i + 1 }));
    let reads = 0;
    const response = streamJsonArray(
      async ({ afterSeq, offset = 0, limit }) => {
        reads += 1;
        return rows.filter((row) => row.seq > afterSeq).slice(offset, offset + limit);
      },
      (row) => row.seq,
      { offset: 0, limit: null },
      100,
    );
    const reader = response.body!.getReader();
    await reader.read();
    expect(reads).toBeLessThanOrEqual(2);
    const chunks = [new TextDecoder().decode((await reader.read()).value)];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(new TextDecoder().decode(value));
    }
    expect(reads).toBe(11); // ten full batches and the empty read that ends the array
  });

  it("writes valid JSON for empty lists, exact batch boundaries, offsets and limits", async () => {
    const make = (n: number) => Array.from({ length: n }, (_, i) => ({ seq: i + 1 }));
    const run = async (n: number, window: { offset: number; limit: number | null }) =>
      JSON.parse(
        await streamJsonArray(
          async ({ afterSeq, offset = 0, limit }) => make(n).filter((row) => row.seq > afterSeq).slice(offset, offset + limit),
          (row) => row.seq,
          window,
          10,
        ).text(),
      );
    expect(await run(0, { offset: 0, limit: null })).toEqual([]);
    expect(await run(20, { offset: 0, limit: null })).toEqual(make(20).map((r) => r.seq));
    expect(await run(25, { offset: 3, limit: 12 })).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(await run(25, { offset: 30, limit: null })).toEqual([]);
  });

  it("streams 50,000 recipes in small chunks, every one of them, in stored order", async () => {
    const N = 50_000;
    await db.transaction().execute(async (trx) => {
      const base = await trx.selectFrom("recipes").select((eb) => eb.fn.coalesce(eb.fn.max("seq"), eb.lit(0)).as("m")).executeTakeFirstOrThrow();
      const start = Number(base.m);
      await sqlInsertScale(trx, start, N);
    });
    const total = Number((await db.selectFrom("recipes").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
    const response = await recipesRoute.loader({ request: apiRequest("GET", "/api/recipes"), params: {}, context: {} });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let chunks = 0;
    let biggest = 0;
    const parts: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      biggest = Math.max(biggest, value.byteLength);
      parts.push(value);
    }
    expect(chunks).toBeGreaterThanOrEqual(N / LIST_BATCH);
    expect(biggest).toBeLessThan(64 * 1024);
    const list = JSON.parse(Buffer.concat(parts).toString("utf8")) as { _id: string; tags: string[]; steps: string[] }[];
    expect(list).toHaveLength(total);
    const scale = list.filter((r) => r._id.startsWith("scale-"));
    expect(scale).toHaveLength(N);
    expect(scale[0]).toMatchObject({ _id: "scale-1", tags: ["Scale"], steps: ["Step 1"] });
    expect(scale.at(-1)!._id).toBe(`scale-${N}`);
    const page = await call(recipesRoute, "GET", "/api/recipes", { query: { offset: String(total - 2), limit: "5" } });
    expect(page.body.map((r: { _id: string }) => r._id)).toEqual([`scale-${N - 1}`, `scale-${N}`]);
  }, 120_000);
});

async function sqlInsertScale(trx: Parameters<Parameters<ReturnType<typeof db.transaction>["execute"]>[0]>[0], start: number, n: number) {
  const { sql } = await import("kysely");
  await sql`
    insert into recipes (id, user_created, name, description, total_time, serves, photo, created_at, seq)
    with recursive k(i) as (select 1 union all select i + 1 from k where i < ${n})
    select 'scale-' || i, null, 'Scale recipe ' || i, 'Generated', '10min', 2, '/images/noodleDish.png', '2026-01-01', ${start} + i from k`.execute(trx);
  await sql`insert into recipe_tags (recipe_id, position, tag) select id, 0, 'Scale' from recipes where id like 'scale-%'`.execute(trx);
  await sql`insert into steps (recipe_id, position, text) select id, 0, 'Step 1' from recipes where id like 'scale-%'`.execute(trx);
}
