import crypto from "node:crypto";
import path from "node:path";

import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { postForm, prepareFreshDatabase, request, startServer, stopAllServers, tempDir, type HttpResult, type RunningServer } from "../support/server/server";

// Round 3, attacked from outside: a production server prepared the way `npm start` prepares one on
// a new machine (no SEED_USER_PASSWORD), then flooded with sign-ups, its sessions counted around a
// password change, and its personal answers' headers read (docs/rules.md#sign-up-limit,
// #passwords, #personal-answers, #seed-sources).

const PUBLISHED_PASSWORD = "ReciPals";
const SEED_USERS = ["jasminduong09", "danieljacob", "recipe_bot"] as const;
const SIGNUP_LIMIT = 10;

let server: RunningServer;
let databaseFile: string;
let seedOutput: string;

beforeAll(async () => {
  databaseFile = path.join(tempDir("launch"), "recipals.db");
  seedOutput = await prepareFreshDatabase(databaseFile, { unset: ["SEED_USER_PASSWORD"] });
  server = await startServer({ databasePath: databaseFile });
}, 300_000);

afterAll(async () => {
  await stopAllServers();
});

const json = (method: string, urlPath: string, body: unknown, cookie?: string) =>
  request(server, method, urlPath, {
    headers: { "Content-Type": "application/json", ...(cookie ? { Cookie: cookie } : {}) },
    body: JSON.stringify(body),
  });

const sessionPair = (answer: HttpResult) => answer.setCookies.find((c) => c.startsWith("recipals_session="))?.split(";")[0] ?? null;

/** The session id a cookie carries (a signed, base64 JSON string), read as a thief holding the cookie would. */
function sessionIdOf(pair: string): string {
  const value = decodeURIComponent(pair.slice("recipals_session=".length));
  return JSON.parse(Buffer.from(value.slice(0, value.lastIndexOf(".")), "base64").toString("utf8")) as string;
}

function sessionRows(userId: string): string[] {
  const sqlite = new SQLite(databaseFile, { readonly: true });
  try {
    return (sqlite.prepare("select id from sessions where user_id = ?").all(userId) as { id: string }[]).map((row) => row.id);
  } finally {
    sqlite.close();
  }
}

/** The seed's one-time line: username → password. */
function printedPasswords(): Record<string, string> {
  const line = /Seed user passwords, shown only now[^:]*: (.*)/.exec(seedOutput)?.[1] ?? "";
  return Object.fromEntries(line.split(", ").map((pair) => pair.split(" / ") as [string, string]));
}

const signedInAs = async (cookie: string) => {
  const answer = await request(server, "GET", "/api/users/profile", { headers: { Cookie: cookie } });
  return answer.status === 200 ? (JSON.parse(answer.body) as { _id: string })._id : null;
};

describe("a production seed", () => {
  it("leaves no account with the published password; each seed user's random one is printed once and works", async () => {
    const printed = printedPasswords();
    expect(Object.keys(printed).sort()).toEqual([...SEED_USERS].sort());
    for (const username of SEED_USERS) {
      expect(printed[username]).not.toBe(PUBLISHED_PASSWORD);
      expect((await json("POST", "/api/users/signin", { username, password: PUBLISHED_PASSWORD })).status, username).toBe(401);
    }
    const bot = await json("POST", "/api/users/signin", { username: "recipe_bot", password: printed.recipe_bot });
    expect(bot.status).toBe(200);
  });
});

describe("a sign-up flood from one address", () => {
  it(`12 page first steps and 12 API sign-ups at once: ${SIGNUP_LIMIT} get through in all, the rest 429, and other pages still answer`, async () => {
    const tag = crypto.randomBytes(3).toString("hex");
    const usernameFor = (kind: string, i: number) => `flood_${kind}${i}_${tag}`;
    const countUsers = () => {
      const sqlite = new SQLite(databaseFile, { readonly: true });
      try {
        return (sqlite.prepare("select count(*) as n from users where username like ?").get(`flood_%_${tag}`) as { n: number }).n;
      } finally {
        sqlite.close();
      }
    };
    const started = Date.now();
    const info = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const at = Date.now();
      const answer = await request(server, "GET", "/ReciPals/Info", { timeoutMs: 10_000 });
      return { status: answer.status, ms: Date.now() - at };
    })();
    // Page and API posts interleaved, all sent at once.
    const pagePost = (i: number) =>
      postForm(server, "/ReciPals/Account/Signup", { name: "Flood Cook", username: usernameFor("p", i), password: "s3cret pass", verifyPassword: "s3cret pass" });
    const apiPost = (i: number) => json("POST", "/api/users/signup", { name: "Flood Cook", username: usernameFor("a", i), password: "s3cret pass" });
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? pagePost(i).then((a) => ({ kind: "page", a })) : apiPost(i).then((a) => ({ kind: "api", a })))));
    const pages = answers.filter((x) => x.kind === "page").map((x) => x.a);
    const apis = answers.filter((x) => x.kind === "api").map((x) => x.a);
    const wallMs = Date.now() - started;
    const pageThrough = pages.filter((answer) => answer.status === 302).length;
    const apiThrough = apis.filter((answer) => answer.status === 201).length;
    console.log(`sign-up flood: ${pageThrough} page + ${apiThrough} API of 24 got through in ${wallMs} ms; /ReciPals/Info meanwhile in ${(await info).ms} ms`);
    expect(pageThrough + apiThrough).toBe(SIGNUP_LIMIT);
    expect([...pages, ...apis].filter((answer) => answer.status === 429)).toHaveLength(24 - SIGNUP_LIMIT);
    // Every API sign-up that got through is an account; the page's first step makes none yet.
    expect(countUsers()).toBe(apiThrough);
    expect((await info).status).toBe(200);
    // The hour is used up for this address, page and API alike, each with its message.
    const lateApi = await apiPost(100);
    expect(lateApi.status).toBe(429);
    expect(JSON.parse(lateApi.body)).toEqual({ message: "Too many accounts were made from your network in the last hour. Please try again later." });
    expect(Number(lateApi.headers["retry-after"])).toBeGreaterThan(0);
    const latePage = await pagePost(100);
    expect(latePage.status).toBe(429);
    expect(latePage.body).toContain("Too many accounts were made from your network in the last hour.");
    expect(countUsers()).toBe(apiThrough);
  }, 120_000);
});

describe("sessions around a password change", () => {
  it("three sessions (two pages, one API), stored only as hashes; the change ends the other two and renews the one that made it", async () => {
    const password = printedPasswords().jasminduong09!;
    const userId = "123";
    const signInPage = async () => sessionPair(await postForm(server, "/ReciPals/Account/Login", { username: "jasminduong09", password, redirectTo: "/ReciPals/Home" }))!;
    const laptop = await signInPage();
    const library = await signInPage();
    const phone = sessionPair(await json("POST", "/api/users/signin", { username: "jasminduong09", password }))!;
    const rows = sessionRows(userId);
    expect(rows).toHaveLength(3);
    for (const cookie of [laptop, library, phone]) {
      expect(await signedInAs(cookie)).toBe(userId);
      // A copy of the database holds no id a cookie carries.
      expect(rows).not.toContain(sessionIdOf(cookie));
    }

    // Someone at the library computer tries to take the account over: the current password is asked.
    expect((await json("PUT", `/api/users/${userId}`, { password: "taken over!" }, library)).status).toBe(400);
    expect((await json("PUT", `/api/users/${userId}`, { password: "taken over!", currentPassword: "a guess" }, library)).status).toBe(403);
    expect(sessionRows(userId)).toHaveLength(3);

    // The owner changes it from the phone.
    const changed = await json("PUT", `/api/users/${userId}`, { password: "a brand new one", currentPassword: password }, phone);
    expect(changed.status).toBe(200);
    const renewed = sessionPair(changed)!;
    expect(renewed).not.toBe(phone);
    expect(sessionRows(userId)).toHaveLength(1);
    expect(await signedInAs(renewed)).toBe(userId);
    for (const cookie of [laptop, library, phone]) expect(await signedInAs(cookie)).toBeNull();
    expect((await json("POST", "/api/users/signin", { username: "jasminduong09", password: "a brand new one" })).status).toBe(200);
  });
});

describe("personal answers", () => {
  it("are stored by no cache (pages, their data, the API); sign-out tells the browser to forget what it kept", async () => {
    const password = printedPasswords().danieljacob!;
    const cookie = sessionPair(await postForm(server, "/ReciPals/Account/Login", { username: "danieljacob", password, redirectTo: "/ReciPals/Home" }))!;
    for (const url of ["/ReciPals/Home", "/ReciPals/Saved", "/ReciPals/ShoppingList", "/ReciPals/Home.data", "/api/users/profile", "/ReciPals/Account/Profile/234"]) {
      const answer = await request(server, "GET", url, { headers: { Cookie: cookie } });
      expect(answer.status, url).toBe(200);
      expect(answer.headers["cache-control"], url).toBe("private, no-store");
    }
    // A visitor's public page stays cacheable (control).
    expect((await request(server, "GET", "/ReciPals/Info")).headers["cache-control"]).not.toContain("no-store");
    const out = await postForm(server, "/ReciPals/Account/Logout", {}, cookie);
    expect(out.headers["clear-site-data"]).toBe('"cache", "storage"');
    expect(await signedInAs(cookie)).toBeNull();
  });
});
