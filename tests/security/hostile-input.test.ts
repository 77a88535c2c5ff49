import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";

import { action as adminRecipeTextAction } from "~/routes/ReciPals.Account.Admin.Recipes.$rid._index";
import { loader as adminRecipesLoader } from "~/routes/ReciPals.Account.Admin.Recipes";
import { loader as adminUsersLoader } from "~/routes/ReciPals.Account.Admin.Users";
import { action as followAction } from "~/routes/ReciPals.Account.Follow.$uid";
import { action as loginAction } from "~/routes/ReciPals.Account.Login";
import { action as profileEditAction } from "~/routes/ReciPals.Account.Profile.$uid_.Edit";
import { action as signupAction } from "~/routes/ReciPals.Account.Signup";
import { action as signupTagsAction } from "~/routes/ReciPals.Account.SignupTags";
import { action as editorAction } from "~/routes/ReciPals.Editor.$rid";
import { action as likeAction } from "~/routes/ReciPals.Posts.$pid.Like";
import { action as recipeAction } from "~/routes/ReciPals.Recipes.$rid";
import { action as saveAction } from "~/routes/ReciPals.Recipes.$rid.Save";
import { loader as searchLoader } from "~/routes/ReciPals.Search";
import { BODY_LIMITS } from "~/server/http/body.server";
import { db } from "~/server/db/connection.server";
import { commitSignupDraft } from "~/server/auth/session.server";
import { PROFILE_TAGS } from "~/lib/tags";

import { formRequest } from "../support/app";
import { expectSafeAnswer, nastyJson, nastyString, REDIRECT_ATTACKS, sometimesSane } from "../support/server/nasty";
import { discoverRoutes, jsonRequest, makeWorld, ORIGIN, outcomeOf, useScratchUploads, type World } from "../support/server/world";

// Hostile input (issue 10 item 4): fast-check throws random and nasty strings at every form
// action and every JSON endpoint. The contract: never a 5xx (the test setup also fails on any
// console.error), a refusal carries a clear message, redirects stay on this site, and what is
// accepted is stored as typed (never cut silently). FUZZ_RUNS raises the number of runs.

const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const options = { numRuns: RUNS, endOnFailure: true } as const;
/** Per-test time limit that grows with FUZZ_RUNS (the machine may be busy: allow ~1 s a run). */
const TIME = 20_000 + RUNS * 1_000;

useScratchUploads();
let w: World;
beforeAll(async () => {
  w = await makeWorld();
});

/** What a form field carries: text is a USVString, so lone surrogates arrive as U+FFFD. */
const asFormValue = (value: string) => value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
/** A multipart body also turns every line break into CRLF, as browsers do. */
const asMultipartValue = (value: string) => asFormValue(value).replace(/\r\n|\r|\n/g, "\r\n");
const fetcherFlag = fc.constantFrom<Record<string, string>>({}, { _fetcher: "1" });

function multipart(path: string, fields: [string, string | Blob, string?][], cookie?: string): Request {
  const formData = new FormData();
  for (const [name, value, filename] of fields) {
    if (typeof value === "string") formData.append(name, value);
    else formData.append(name, value, filename);
  }
  return new Request(new URL(path, ORIGIN), { method: "POST", body: formData, headers: cookie ? { Cookie: cookie } : {} });
}

describe("hostile input at the page actions", () => {
  it("Login: any username, password and redirectTo", async () => {
    await fc.assert(
      fc.asyncProperty(sometimesSane(fc.constant(w.owner.username)), nastyString, nastyString, async (username, password, redirectTo) => {
        const request = formRequest("/ReciPals/Account/Login", { username, password, redirectTo });
        const outcome = await outcomeOf(() => loginAction({ request, params: {}, context: { clientAddress: "203.0.113.9" } }));
        expectSafeAnswer(outcome, "login");
        // 413: a form over the 64 KB form limit, refused before it is parsed.
        expect([302, 400, 401, 404, 413, 429]).toContain(outcome.status);
      }),
      options,
    );
  }, TIME);

  it("Login with the right password: a redirectTo that tries to leave the site never does", async () => {
    const redirectTo = fc.oneof(fc.constantFrom(...REDIRECT_ATTACKS), nastyString.map((s) => `/${s}`), nastyString);
    await fc.assert(
      fc.asyncProperty(redirectTo, async (to) => {
        const request = formRequest("/ReciPals/Account/Login", { username: w.admin.username, password: w.admin.password, redirectTo: to });
        const outcome = await outcomeOf(() => loginAction({ request, params: {}, context: {} }));
        expectSafeAnswer(outcome, `login redirectTo ${JSON.stringify(to).slice(0, 60)}`);
        // A redirectTo long enough to push the form over its 64 KB limit is refused whole (413);
        // so is one holding NUL, which is never text (400).
        const formBytes = new URLSearchParams({ username: w.admin.username, password: w.admin.password, redirectTo: to }).toString().length;
        expect(outcome.status).toBe(formBytes > BODY_LIMITS.formBytes ? 413 : to.includes("\u0000") ? 400 : 302);
      }),
      { ...options, examples: REDIRECT_ATTACKS.map((to) => [to] as [string]) },
    );
  }, TIME);

  it("Like, save and follow: a redirectTo that tries to leave the site never does", async () => {
    for (const to of REDIRECT_ATTACKS) {
      const form = { intent: "like", redirectTo: to };
      const outcome = await outcomeOf(() => likeAction({ request: formRequest("/x", form, w.other.cookie), params: { pid: w.postId }, context: {} }));
      expectSafeAnswer(outcome, `like redirectTo ${JSON.stringify(to)}`);
      const saved = await outcomeOf(() => saveAction({ request: formRequest("/x", { intent: "save", redirectTo: to }, w.other.cookie), params: { rid: w.recipeId }, context: {} }));
      expectSafeAnswer(saved, `save redirectTo ${JSON.stringify(to)}`);
      const followed = await outcomeOf(() => followAction({ request: formRequest("/x", { intent: "follow", redirectTo: to }, w.admin.cookie), params: { uid: w.owner.id }, context: {} }));
      expectSafeAnswer(followed, `follow redirectTo ${JSON.stringify(to)}`);
    }
  });

  it("Signup: any name, username and passwords", async () => {
    await fc.assert(
      fc.asyncProperty(nastyString, sometimesSane(fc.stringMatching(/^[a-z_.]{3,20}$/)), nastyString, fc.boolean(), async (name, username, password, sameTwice) => {
        const request = formRequest("/x", { name, username, password, verifyPassword: sameTwice ? password : `${password}x` });
        const outcome = await outcomeOf(() => signupAction({ request, params: {}, context: {} }));
        expectSafeAnswer(outcome, "signup");
        expect([302, 400, 409, 413]).toContain(outcome.status);
      }),
      options,
    );
  }, TIME);

  it("SignupTags: any tags, with a real draft", async () => {
    const draft = (await commitSignupDraft(new Request(ORIGIN), { name: "Draft", username: "draft_fuzz", passwordHash: "x" })).split(";")[0]!;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.constantFrom(...PROFILE_TAGS), nastyString), { maxLength: 6 }), async (tags) => {
        const request = formRequest("/x", { tags }, draft);
        const outcome = await outcomeOf(() => signupTagsAction({ request, params: {}, context: {} }));
        expectSafeAnswer(outcome, "signup tags");
        expect([302, 400, 409, 413]).toContain(outcome.status);
        // Undo a successful sign-up so the draft's username stays free for the next run.
        await db.deleteFrom("users").where("username", "=", "draft_fuzz").execute();
      }),
      options,
    );
  }, TIME);

  it("Comment: any text is refused with a message or stored exactly (trimmed), never cut", async () => {
    await fc.assert(
      fc.asyncProperty(nastyString, fetcherFlag, async (text, flags) => {
        const request = formRequest("/x", { intent: "comment", text, ...flags }, w.other.cookie);
        const outcome = await outcomeOf(() => recipeAction({ request, params: { rid: w.recipeId }, context: {} }));
        expectSafeAnswer(outcome, "comment");
        expect([200, 302, 400, 413]).toContain(outcome.status);
        if (outcome.status < 300 || outcome.status === 302) {
          const last = await db.selectFrom("comments").select("text").where("post_id", "=", w.postId).orderBy("seq", "desc").executeTakeFirstOrThrow();
          expect(last.text).toBe(asFormValue(text).trim());
        }
      }),
      options,
    );
  }, TIME);

  it("Recipe editor save (multipart): any field values, create or edit", async () => {
    const line = sometimesSane(fc.constant("Flour (200g)"));
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          name: sometimesSane(fc.constant("Fuzz pie")),
          description: sometimesSane(fc.constant("A pie")),
          sectionTitle: nastyString,
          sectionId: nastyString,
          lines: fc.array(line, { maxLength: 4 }),
          steps: fc.array(sometimesSane(fc.constant("Bake.")), { maxLength: 4 }),
          totalTime: nastyString,
          serves: fc.oneof(nastyString, fc.integer().map(String)),
          tags: nastyString,
          intent: fc.constantFrom("save", "save", "add-ingredient-0", "delete-step-0", "add-section", "bogus\u0000"),
          edit: fc.boolean(),
        }),
        async (f) => {
          const rid = f.edit ? w.recipeId : crypto.randomUUID();
          const fields: [string, string][] = [
            ["intent", f.intent],
            ["mode", f.edit ? "edit" : "create"],
            ["name", f.name],
            ["description", f.description],
            ["sectionId", f.sectionId],
            ["sectionTitle", f.sectionTitle],
            ...f.lines.map((l): [string, string] => ["ingredient-0", l]),
            ...f.steps.map((s): [string, string] => ["step", s]),
            ["totalTime", f.totalTime],
            ["serves", f.serves],
            ["tags", f.tags],
          ];
          const outcome = await outcomeOf(() => editorAction({ request: multipart("/x", fields, w.owner.cookie), params: { rid }, context: {} }));
          expectSafeAnswer(outcome, "editor");
          // 413: a text field over 100 KB ("The form is too large to send.").
          expect([200, 302, 400, 404, 413]).toContain(outcome.status);
          if (outcome.status === 302 && f.intent === "save") {
            const stored = await db.selectFrom("recipes").select(["name", "description"]).where("id", "=", rid).executeTakeFirstOrThrow();
            expect(stored.name).toBe(asMultipartValue(f.name).trim());
            expect(stored.description).toBe(asMultipartValue(f.description).trim());
          }
        },
      ),
      options,
    );
  }, TIME);

  it("Profile editor (multipart): any field values", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          name: sometimesSane(fc.constant("Fuzzy Name")),
          username: sometimesSane(fc.stringMatching(/^[a-z0-9_.]{3,20}$/)),
          password: fc.oneof(fc.constant(""), nastyString),
          role: fc.oneof(fc.constantFrom("USER", "ADMIN"), nastyString),
          bio: nastyString,
          adminPassword: nastyString,
          tags: fc.array(fc.oneof(fc.constantFrom(...PROFILE_TAGS), nastyString), { maxLength: 5 }),
        }),
        async (f) => {
          const fields: [string, string][] = [
            ["name", f.name],
            ["username", f.username],
            ["password", f.password],
            ["role", f.role],
            ["bio", f.bio],
            ["adminPassword", f.adminPassword],
            ...f.tags.map((t): [string, string] => ["tags", t]),
          ];
          const outcome = await outcomeOf(() => profileEditAction({ request: multipart("/x", fields, w.other.cookie), params: { uid: w.other.id }, context: {} }));
          expectSafeAnswer(outcome, "profile editor");
          expect([302, 400, 403, 409, 413]).toContain(outcome.status);
          if (outcome.status === 302) {
            const stored = await db.selectFrom("users").select(["name", "bio", "role"]).where("id", "=", w.other.id).executeTakeFirstOrThrow();
            expect(stored.name).toBe(asMultipartValue(f.name).trim());
            expect(stored.bio).toBe(asMultipartValue(f.bio).trim());
            expect(stored.role, "never ADMIN without the secret").toBe("USER");
          }
        },
      ),
      options,
    );
  }, TIME);

  it("Admin ingredient and instruction text: any text", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("save-ingredients", "save-instructions", "nonsense"), fc.oneof(nastyString, fc.array(nastyString, { maxLength: 8 }).map((l) => l.join("\n"))), async (intent, text) => {
        const request = formRequest(`/ReciPals/Account/Admin/Recipes/${w.recipeId}?index`, { intent, text }, w.admin.cookie);
        const outcome = await outcomeOf(() => adminRecipeTextAction({ request, params: { rid: w.recipeId }, context: {} }));
        expectSafeAnswer(outcome, "admin text");
        // 413: over the 1 MB limit of this form (the longest nasty texts, percent-encoded).
        expect([302, 400, 413]).toContain(outcome.status);
      }),
      options,
    );
  }, TIME);

  it("Follow, like and save: any intent, id and redirectTo", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("follow", "like", "save"),
        fc.oneof(fc.constantFrom("follow", "unfollow", "remove", "like", "unlike", "save", "unsave"), nastyString),
        nastyString,
        fc.boolean(),
        fetcherFlag,
        async (route, intent, redirectTo, realTarget, flags) => {
          const form = { intent, redirectTo, ...flags };
          const cookie = w.other.cookie;
          // Params come from a decoded URL: never lone surrogates.
          const target = (real: string) => (realTarget ? real : asFormValue(redirectTo));
          const outcome =
            route === "follow"
              ? await outcomeOf(() => followAction({ request: formRequest("/x", form, cookie), params: { uid: target(w.owner.id) }, context: {} }))
              : route === "like"
                ? await outcomeOf(() => likeAction({ request: formRequest("/x", form, cookie), params: { pid: target(w.postId) }, context: {} }))
                : await outcomeOf(() => saveAction({ request: formRequest("/x", form, cookie), params: { rid: target(w.recipeId) }, context: {} }));
          expectSafeAnswer(outcome, `${route} ${intent}`);
          expect([200, 302, 400, 404, 413]).toContain(outcome.status);
        },
      ),
      options,
    );
  }, TIME);
});

describe("hostile input in search queries", () => {
  it("Search page, admin user search and admin recipe search: any q, page and seed", async () => {
    await fc.assert(
      fc.asyncProperty(nastyString, nastyString, nastyString, async (q, page, seed) => {
        const query = `?${new URLSearchParams({ q, page, seed })}`;
        const search = await outcomeOf(() => searchLoader({ request: new Request(`${ORIGIN}/ReciPals/Search${query}`), params: {}, context: {} }));
        expectSafeAnswer(search, "search");
        expect(search.status).toBe(200);
        for (const loader of [adminUsersLoader, adminRecipesLoader]) {
          const request = new Request(`${ORIGIN}/a${query}`, { headers: { Cookie: w.admin.cookie } });
          const outcome = await outcomeOf(() => loader({ request, params: {}, context: {} }));
          expectSafeAnswer(outcome, "admin search");
          expect(outcome.status).toBe(200);
        }
      }),
      options,
    );
  }, TIME);
});

// ---------------------------------------------------------------------------------------------
// The JSON API: every /api route found in app/routes, every method, hostile bodies and params.

const apiRoutes = await Promise.all(
  discoverRoutes()
    .filter((route) => route.api)
    .map(async (route) => ({ route, module: (await import(route.modulePath)) as Record<string, unknown> })),
);

const DATA_URLS = [
  "data:image/svg+xml;base64," + Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString("base64"),
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", // truncated PNG
  "data:text/html;base64," + Buffer.from("<script>alert(1)</script>").toString("base64"),
  "data:image/png;base64,!!!not base64!!!",
  "javascript:alert(1)",
  "http://169.254.169.254/latest/meta-data/",
  "/uploads/../../etc/passwd",
];

const text = sometimesSane(fc.constant("Fine text"));
const idOrNasty = (real: () => string) => fc.oneof(fc.constant(null), nastyString).map((v) => v ?? real());

/** Bodies shaped like the API's entities (docs/rules.md#api-entities), with hostile values in every field. */
const entityShaped = fc.record(
  {
    _id: idOrNasty(() => w.owner.id),
    recipe_id: idOrNasty(() => w.recipeId),
    post_id: idOrNasty(() => w.postId),
    recipeId: idOrNasty(() => w.recipeId),
    user_id: idOrNasty(() => w.owner.id),
    user_created: idOrNasty(() => w.owner.id),
    created_by: idOrNasty(() => w.owner.id),
    name: text,
    username: sometimesSane(fc.stringMatching(/^[a-z0-9_]{3,20}$/)),
    password: nastyString,
    role: fc.oneof(fc.constantFrom("USER", "ADMIN"), nastyString),
    bio: nastyString,
    title: text,
    caption: text,
    description: text,
    text: text,
    total_time: nastyString,
    serves: fc.oneof(fc.integer(), fc.double(), nastyString),
    tags: fc.oneof(fc.array(nastyString, { maxLength: 5 }), nastyString),
    steps: fc.oneof(fc.array(nastyString, { maxLength: 5 }), nastyJson),
    ingredients_sec: fc.oneof(fc.array(fc.record({ _id: nastyString, title: nastyString, ingredients: fc.array(nastyString, { maxLength: 4 }) }, { requiredKeys: [] }), { maxLength: 3 }), nastyJson),
    likes: fc.oneof(fc.array(idOrNasty(() => w.other.id), { maxLength: 4 }), nastyJson),
    followers: fc.oneof(fc.array(idOrNasty(() => w.other.id), { maxLength: 4 }), nastyJson),
    comments: nastyJson,
    photo: fc.oneof(fc.constantFrom(...DATA_URLS), nastyString),
    profile: fc.oneof(fc.constantFrom(...DATA_URLS), nastyString),
  },
  { requiredKeys: [] },
);

type RawBody = { kind: "json"; value: unknown } | { kind: "raw"; text: string; type: string };
const body: fc.Arbitrary<RawBody | undefined> = fc.oneof(
  { weight: 4, arbitrary: entityShaped.map((value): RawBody => ({ kind: "json", value })) },
  { weight: 2, arbitrary: nastyJson.map((value): RawBody => ({ kind: "json", value })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(nastyString, fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=utf-16", "", "application/evil+json"))
      .map(([raw, type]): RawBody => ({ kind: "raw", text: raw, type })),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** No password or hash anywhere in an answer (`errors.password`, a message about the field, is fine). */
function expectNoPassword(value: unknown, label: string, key = ""): void {
  if (typeof value === "string") expect(value, `${label}: ${key}`).not.toMatch(/scrypt\$\d+\$/);
  if (!value || typeof value !== "object") return;
  for (const [name, child] of Object.entries(value)) {
    if (name === "errors") continue;
    expect(name, `${label}: a password field in the answer`).not.toMatch(/^(password|password_hash|passwordHash)$/);
    expectNoPassword(child, label, name);
  }
}

function apiRequest(method: string, url: string, payload: RawBody | undefined, cookie: string | undefined): Request {
  if (method === "GET" || payload === undefined) return jsonRequest(method, url, undefined, cookie);
  if (payload.kind === "json") return jsonRequest(method, url, payload.value === undefined ? "" : JSON.stringify(payload.value), cookie);
  const headers: Record<string, string> = payload.type ? { "Content-Type": payload.type } : {};
  if (cookie) headers.Cookie = cookie;
  return new Request(new URL(url, ORIGIN), { method, headers, body: payload.text });
}

/** The JSON API as built (docs/rules.md#json-api): each of these must be found in app/routes and fuzzed below. */
const KNOWN_API_ROUTES = [
  "/api/*",
  "/api/posts",
  "/api/posts/:",
  "/api/posts/:/comments",
  "/api/recipes",
  "/api/recipes/:",
  "/api/recipes/search",
  "/api/users",
  "/api/users/:",
  "/api/users/:/save",
  "/api/users/:/unsave",
  "/api/users/follow/:",
  "/api/users/profile",
  "/api/users/signin",
  "/api/users/signout",
  "/api/users/signup",
  "/api/users/unfollow/:",
];

/** Patterns that got a fuzz test below (filled while the tests are collected). */
const fuzzed: string[] = [];

describe("hostile input at the JSON API", () => {
  it("found the /api routes, and fuzzes every one of them", () => {
    const found = apiRoutes.map(({ route }) => route.pattern);
    expect(found.length, "no /api route found in app/routes").toBeGreaterThan(0);
    const missing = KNOWN_API_ROUTES.filter((pattern) => !found.includes(pattern));
    expect(missing, "API routes missing from app/routes (or no longer found by discoverRoutes)").toEqual([]);
    // Every route under /api that discovery sees (however its pattern is written) has a fuzz test.
    const everyApiRoute = discoverRoutes().filter((route) => route.api).map((route) => `${route.pattern}  (${route.file})`);
    const notFuzzed = everyApiRoute.filter((label) => !fuzzed.includes(label.split("  ")[0]!));
    expect(notFuzzed, "API routes the fuzz below does not exercise").toEqual([]);
  });

  for (const { route, module } of apiRoutes) {
    fuzzed.push(route.pattern);
    it(`${route.pattern}: any method, params, query and body answer JSON, never a 5xx`, async () => {
      const handlers = (["loader", "action"] as const).filter((name) => typeof module[name] === "function");
      expect(handlers, `${route.pattern} (${route.file}) exports neither a loader nor an action`).not.toEqual([]);
      /** How many times the fuzz reached each handler: each one present must be exercised. */
      const calls = { loader: 0, action: 0 };
      // Fixed examples (run on top of the random ones) so that each handler is reached at least once.
      const examples: [string, (string | null)[], Record<string, string>, RawBody | undefined, "owner" | "admin" | "anon"][] = [];
      const noParams = route.params.map(() => null);
      if (handlers.includes("loader")) examples.push(["GET", noParams, {}, undefined, "owner"]);
      if (handlers.includes("action")) {
        for (const method of ["POST", "PUT", "DELETE"]) examples.push([method, noParams, {}, { kind: "json", value: {} }, "owner"]);
      }
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH"),
          fc.array(fc.oneof(fc.constant(null), nastyString), { minLength: route.params.length, maxLength: route.params.length }),
          fc.dictionary(fc.constantFrom("q", "name", "limit", "offset", "id"), nastyString, { maxKeys: 3 }),
          body,
          fc.constantFrom<"owner" | "admin" | "anon">("owner", "admin", "anon"),
          async (method, paramValues, query, payload, actor) => {
            const world = await makeWorld();
            w = world; // the id generators above read the current world
            const real = [world.owner.id, world.postId, world.recipeId];
            // A URL cannot carry lone surrogates: params arrive well-formed, as Remix decodes them.
            const params = Object.fromEntries(route.params.map((name, i) => [name, asFormValue(paramValues[i] ?? real[i % real.length]!)]));
            const values = Object.values(params);
            const path = route.pattern.replace(/:|\*/g, () => encodeURIComponent(values.shift() ?? "x"));
            const url = `${path}?${new URLSearchParams(query)}`;
            const cookie = actor === "anon" ? undefined : world.user(actor).cookie;
            const request = apiRequest(method, url, payload, cookie);
            // Remix itself answers a method the route has no handler for (405): nothing to call here.
            const which = method === "GET" ? "loader" : "action";
            const handler = module[which] as ((args: unknown) => unknown) | undefined;
            if (!handler) return;
            calls[which] += 1;
            const outcome = await outcomeOf(() => handler({ request, params, context: {} }));
            const label = `${method} ${route.pattern} as ${actor}`;
            expectSafeAnswer(outcome, label);
            expect(outcome.threw, `${label}: API routes answer, never throw`).toBe(false);
            if (outcome.status >= 400) expect(outcome.headers.get("Content-Type") ?? "", label).toMatch(/json/);
            expectNoPassword(outcome.body, label);
          },
        ),
        { ...options, numRuns: Math.max(5, Math.round(RUNS * 0.75)), examples },
      );
      for (const name of handlers) expect(calls[name], `${route.pattern}: the fuzz never reached its ${name}`).toBeGreaterThan(0);
    }, TIME);
  }
});
