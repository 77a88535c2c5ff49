import fs from "node:fs";

import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ADMIN_ONLY_MESSAGE } from "~/server/session.server";

import { CONTENT_TABLES } from "../../seed/test-support";
import { ADMIN_PASSWORD, postForm, request, seededDatabase, SEEDED_2, signIn, startServer, stopAllServers, tempDir, type RunningServer } from "./support/server";

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
