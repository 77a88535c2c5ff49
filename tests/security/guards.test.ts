import crypto from "node:crypto";
import fs from "node:fs";

import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ADMIN_ONLY_MESSAGE } from "~/server/auth/session.server";

import { CONTENT_TABLES } from "../../seed/test-support";
import {
  ADMIN_PASSWORD,
  MEMORY_PROBE,
  postForm,
  request,
  rssMb,
  seededDatabase,
  SEEDED_2,
  signIn,
  startServer,
  stopAllServers,
  tempDir,
  type RunningServer,
} from "../support/server/server";

// Over real HTTP against scripts/server.js: the admin guard answers a USER's form post with 403
// and a page that says why (not a redirect Home), and one definition of "personal request" holds
// for the ETag path as for the page cache.

let dir: string;
let server: RunningServer;
let dbFile: string;
let userCookie: string;

beforeAll(async () => {
  dir = tempDir("guards");
  dbFile = await seededDatabase(dir);
  server = await startServer({ databasePath: dbFile });
  userCookie = await signIn(server, SEEDED_2.username, SEEDED_2.password);
}, 300_000);

afterAll(async () => {
  await stopAllServers();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Every content table's rows, as one string: equal before and after means nothing changed. */
function contents(): string {
  const db = new SQLite(dbFile, { readonly: true, fileMustExist: true });
  try {
    return CONTENT_TABLES.map((table) => `${table}:${JSON.stringify(db.prepare(`select * from ${table} order by 1`).all())}`).join("\n");
  } finally {
    db.close();
  }
}

describe("a USER posting to admin actions", () => {
  const POSTS: [string, string, Record<string, string>][] = [
    ["add a user", "/ReciPals/Account/Admin/Users", { intent: "add-user" }],
    ["make someone ADMIN", "/ReciPals/Account/Admin/Users/123", { intent: "save", role: "ADMIN" }],
    ["make themself ADMIN", `/ReciPals/Account/Admin/Users/${SEEDED_2.id}`, { intent: "save", role: "ADMIN" }],
    ["delete a user", "/ReciPals/Account/Admin/Users/123", { intent: "delete", confirm: "yes" }],
    ["delete a recipe", "/ReciPals/Account/Admin/Recipes/recipeBot-R1", { intent: "delete", confirm: "yes" }],
    ["edit ingredients", "/ReciPals/Account/Admin/Recipes/recipeBot-R1?index", { intent: "save-ingredients", text: "Hacked:\nsalt" }],
    ["edit instructions", "/ReciPals/Account/Admin/Recipes/recipeBot-R1?index", { intent: "save-instructions", text: "hacked" }],
    ["remove a comment", "/ReciPals/Account/Admin/Recipes/recipeBot-R1/Post", { intent: "remove-comment", commentId: "x", confirm: "yes" }],
  ];

  it.each(POSTS)("%s: 403 with a page that says why, nothing changed", async (_what, url, fields) => {
    const before = contents();
    const res = await postForm(server, url, fields, userCookie);
    expect(res.status).toBe(403);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.body).toContain(ADMIN_ONLY_MESSAGE);
    expect(contents()).toBe(before);
  });

  it("the same pages, asked for with a GET, still send a USER Home; an ADMIN's post still works", async () => {
    const page = await request(server, "GET", "/ReciPals/Account/Admin/Users", { headers: { Cookie: userCookie } });
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe("/ReciPals/Home");
    const adminCookie = await signIn(server, "admin", ADMIN_PASSWORD);
    const added = await postForm(server, "/ReciPals/Account/Admin/Users", { intent: "add-user" }, adminCookie);
    expect(added.status).toBe(201);
    expect(added.body).toMatch(/user\d+/);
  });
});

describe("what makes a request personal", () => {
  it("a session cookie written with a space before '=' signs in, and its page gets no visitor ETag and no 304", async () => {
    const visitor = await request(server, "GET", "/ReciPals/Info");
    const visitorTag = visitor.headers.etag;
    expect(visitorTag).toBeTruthy();
    const [name, value] = userCookie.split("=") as [string, string];
    const spaced = `${name} =${value}`;
    const personal = await request(server, "GET", "/ReciPals/Info", { headers: { Cookie: spaced, "If-None-Match": String(visitorTag) } });
    expect(personal.status).toBe(200);
    expect(personal.body).toContain(`/ReciPals/Account/Profile/${SEEDED_2.id}`);
    expect(personal.headers.etag).toBeUndefined();
    // And the visitor's copy never carries the signed-in person's page.
    const again = await request(server, "GET", "/ReciPals/Info");
    expect(again.body).not.toContain(`/ReciPals/Account/Profile/${SEEDED_2.id}`);
  });
});

describe("many photo uploads at once", () => {
  it("60 parallel 9 MB uploads from one person queue instead of filling memory: every one is answered, none with 5xx", async () => {
    const probeDir = tempDir("guards-uploads");
    const probed = await startServer({ databasePath: await seededDatabase(probeDir), nodeArgs: MEMORY_PROBE });
    try {
      const cookie = await signIn(probed, SEEDED_2.username, SEEDED_2.password);
      const boundary = "----recipals-parallel-upload";
      const noise = crypto.randomBytes(9 * 1024 * 1024);
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="intent"\r\n\r\nsave\r\n`),
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
        noise,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const base = rssMb(probed.pid);
      let peak = base;
      const sampler = setInterval(() => {
        try {
          peak = Math.max(peak, rssMb(probed.pid));
        } catch {
          // the process is gone: the assertions below say so
        }
      }, 20);
      const answers = await Promise.all(
        Array.from({ length: 60 }, () =>
          request(probed, "POST", `/ReciPals/Editor/${crypto.randomUUID()}`, {
            headers: { "Content-Type": `multipart/form-data; boundary=${boundary}`, Cookie: cookie, Origin: probed.origin },
            body,
            timeoutMs: 120_000,
          }),
        ),
      );
      clearInterval(sampler);
      const statuses = answers.map((answer) => answer.status);
      console.log(`60 parallel 9 MB uploads: RSS ${base.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB; statuses ${[...new Set(statuses)].join(", ")}`);
      expect(statuses.every((status) => status < 500)).toBe(true);
      // Without the gate every upload is held at once: 60 × 9 MB and their copies (measured +1,556 MB);
      // with it, +166 to +270 MB on a busy machine.
      expect(peak - base).toBeLessThan(450);
      expect((await request(probed, "GET", "/ReciPals/Info")).status).toBe(200);
    } finally {
      probed.kill();
      fs.rmSync(probeDir, { recursive: true, force: true });
    }
  }, 300_000);
});

describe("a body over its limit, sent in full by an ordinary client", () => {
  it("gets the 413 page, not a connection reset: the server reads the rest away before closing", async () => {
    const body = Buffer.alloc(20 * 1024 * 1024, "a");
    for (let i = 0; i < 10; i++) {
      const res = await request(server, "POST", "/ReciPals/Account/Login", {
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.origin },
        body,
        timeoutMs: 30_000,
      });
      expect(res.status).toBe(413);
      expect(res.body).toContain("too large for this form (64 KB at most)");
    }
    expect((await request(server, "GET", "/ReciPals/Info")).status).toBe(200);
  }, 120_000);
});

describe("visitors' shuffled feed, with the shared page cache on", () => {
  const postIds = (html: string) => [...html.matchAll(/<article class="post-card" id="post-([^"]+)"/g)].map((match) => match[1]!);
  const moreLink = (html: string) => /href="(\/ReciPals\/Home\?page=2&amp;seed=\d+)"/.exec(html)?.[1]?.replaceAll("&amp;", "&");

  it("a reload mostly shows another order, and each order's Load more goes on without repeats", async () => {
    const orders = new Map<string, string | undefined>();
    for (let i = 0; i < 16; i++) {
      const res = await request(server, "GET", "/ReciPals/Home");
      expect(res.status).toBe(200);
      orders.set(postIds(res.body).join(","), moreLink(res.body));
    }
    // Eight cached shuffles, one picked per request: 16 requests see several of them.
    expect(orders.size).toBeGreaterThanOrEqual(3);
    for (const [order, more] of orders) {
      expect(more, "every order links its next page by its own seed").toBeTruthy();
      const next = await request(server, "GET", more!);
      const again = await request(server, "GET", more!);
      const second = postIds(next.body);
      expect(second.length).toBeGreaterThan(0);
      expect(postIds(again.body)).toEqual(second);
      expect(second.filter((id) => order.split(",").includes(id))).toEqual([]);
    }
  });
});
