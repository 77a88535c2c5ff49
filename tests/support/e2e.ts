import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import SQLite from "better-sqlite3";
import { createCookie } from "@remix-run/node";
import { expect, test, type Page } from "@playwright/test";

import { hashPassword } from "../../app/server/auth/password.server";

export const SEEDED_USER = { username: "jasminduong09", password: "ReciPals", id: "123" };
export const ADMIN = { username: "admin", password: "e2e-admin-password" };

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * Signs in through the login form (slow: the server hashes the password, ~0.3 s). Only for tests
 * whose subject is signing in; every other test uses `signInAs` (a session written directly).
 */
export async function signInWithForm(page: Page, { username, password }: { username: string; password: string }) {
  await page.goto("/ReciPals/Account/Login");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/ReciPals\/Home$/);
}

const dbPath = () => path.join(process.env.E2E_DATA_DIR ?? path.resolve(".e2e-data"), "recipals.db");

/** Reads the e2e database directly (read-only) for facts the pages must never show. */
export function readDb<T>(query: (db: SQLite.Database) => T): T {
  const db = new SQLite(dbPath(), { readonly: true, fileMustExist: true, timeout: 15_000 });
  try {
    return query(db);
  } finally {
    db.close();
  }
}

/**
 * Writes to the e2e database directly (test fixtures only), in one BEGIN IMMEDIATE transaction so
 * the write lock is asked for first and the busy timeout applies. WAL can still answer SQLITE_BUSY
 * at once (a snapshot gone stale while the server wrote), so a busy answer is retried for up to
 * 15 s. The server sees the change at once (its page cache watches data_version).
 */
export function writeDb<T>(write: (db: SQLite.Database) => T): T {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const db = new SQLite(dbPath(), { fileMustExist: true, timeout: 15_000 });
    try {
      return db.transaction(() => write(db)).immediate();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== "string" || !code.startsWith("SQLITE_BUSY") || Date.now() > deadline) throw error;
    } finally {
      db.close();
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
}

// ---------------------------------------------------------------------------------------------
// Session fixture: sign a browser in without the login form (no password check, no scrypt).
// What the server does at sign-in (app/server/auth/session.server.ts startSession): a `sessions` row
// under a hash of a random id, and the cookie `recipals_session` = that id, signed by Remix's
// createCookie with SESSION_SECRET. playwright.config.ts starts the server with this secret and
// NODE_ENV=production, so the cookie is Secure (Chromium keeps Secure cookies for 127.0.0.1).

const SESSION_SECRET = "e2e-session-secret-0123456789abcdef"; // = webServer.env.SESSION_SECRET in playwright.config.ts
/** What the server keeps a session under (app/server/auth/session.server.ts): a hash of its id. */
const sessionKey = (id: string) => crypto.createHash("sha256").update(id).digest("base64url");
const SESSION_MS = 30 * 24 * 60 * 60 * 1000; // SESSION_DAYS in app/server/auth/session.server.ts
const sessionCookie = createCookie("recipals_session", {
  httpOnly: true,
  sameSite: "lax",
  secure: true,
  path: "/",
  maxAge: SESSION_MS / 1000,
  secrets: [SESSION_SECRET],
});

export interface E2EUser {
  id: string;
  username: string;
  name: string;
  /** Set only when the user was made with a password (to sign in through the form later). */
  password?: string;
}

/** The id of a user by username (seeded or made by a test); fails the test when there is none. */
export function userIdOf(username: string): string {
  const id = readDb((db) => db.prepare("select id from users where username = ? collate nocase").pluck().get(username)) as string | undefined;
  if (!id) throw new Error(`No user "${username}" in the e2e database`);
  return id;
}

/**
 * Signs the page's browser context in as `user` (looked up by username, or by id when given):
 * writes a session row into the e2e database and sets the signed session cookie, exactly what a
 * sign-in through the form leaves behind. Replaces any session cookie the context had. The page
 * stays where it is: navigate afterwards.
 */
export async function signInAs(page: Page, user: { username: string; id?: string }): Promise<{ id: string; username: string }> {
  const userId = user.id ?? userIdOf(user.username);
  const sessionId = crypto.randomBytes(32).toString("base64url");
  const now = Date.now();
  writeDb((db) =>
    db.prepare("insert into sessions (id, user_id, created_at, expires_at) values (?, ?, ?, ?)").run(sessionKey(sessionId), userId, new Date(now).toISOString(), now + SESSION_MS),
  );
  const header = await sessionCookie.serialize(sessionId);
  const pair = header.split(";")[0]!;
  const value = pair.slice(pair.indexOf("=") + 1);
  const { hostname } = new URL(test.info().project.use.baseURL ?? "http://127.0.0.1");
  await page.context().addCookies([
    { name: "recipals_session", value, domain: hostname, path: "/", httpOnly: true, secure: true, sameSite: "Lax", expires: Math.floor((now + SESSION_MS) / 1000) },
  ]);
  return { id: userId, username: user.username };
}

/**
 * Makes a brand-new USER directly in the e2e database (no sign-up form), with `tags` in order.
 * With `password` it stores a real hash of it (made as the server does), so the user can sign in
 * through the form later; without, the stored hash matches no password.
 */
export async function createUser(
  prefix = "e2e",
  { name, tags = [], password }: { name?: string; tags?: string[]; password?: string } = {},
): Promise<E2EUser> {
  const id = crypto.randomUUID();
  const username = uniqueName(prefix);
  const fullName = name ?? `Tester ${username}`;
  const passwordHash = password === undefined ? "!no-password" : await hashPassword(password);
  writeDb((db) => {
    db.prepare(
      `insert into users (id, username, name, password_hash, role, bio, profile, created_at, seq)
       values (?, ?, ?, ?, 'USER', '', '/images/profile.png', ?, (select coalesce(max(seq), 0) + 1 from users))`,
    ).run(id, username, fullName, passwordHash, new Date().toISOString());
    const tag = db.prepare("insert into user_tags (user_id, position, tag) values (?, ?, ?)");
    tags.forEach((value, position) => tag.run(id, position, value));
  });
  return { id, username, name: fullName, ...(password === undefined ? {} : { password }) };
}

/** A brand-new USER, made directly in the database and signed in on `page` (see createUser, signInAs). */
export async function signInNewUser(page: Page, prefix = "e2e", options: { name?: string; tags?: string[]; password?: string } = {}): Promise<E2EUser> {
  const user = await createUser(prefix, options);
  await signInAs(page, user);
  return user;
}

/**
 * A file as a person picks it for a file input: written to the test's own folder, so the browser
 * reads it from disk as it would a phone's photo. (Handed over as a buffer it goes through DevTools
 * as base64: 3.2 s for a 2.6 MB photo, 0.2 s from disk.) The type follows the name's extension.
 */
export function pickedFile(name: string, contents: Buffer): string {
  const file = test.info().outputPath("picked", name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, contents);
  return file;
}

/**
 * Opens a page and, with JavaScript on, waits until it is hydrated: a click earlier is a plain
 * link or form post (a full page load), not the in-page behaviour the JavaScript project tests.
 */
export async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  if (test.info().project.use.javaScriptEnabled !== false) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/**
 * Whether the page's service worker is registered and running. Pages register it once hydrated
 * and idle (app/lib/service-worker.ts), so a test that cuts the network waits for this first.
 */
export function serviceWorkerActive(page: Page): Promise<boolean> {
  return page.evaluate(async () => Boolean((await navigator.serviceWorker.getRegistration("/"))?.active));
}

/**
 * Opens a profile's "More" menu (Mute, Block, Report), a <details> that starts closed on every
 * page load (app/components/profile-header.tsx); leaves it open when it already is.
 */
export async function openMoreMenu(page: Page): Promise<void> {
  const menu = page.locator("details.more-menu");
  if ((await menu.getAttribute("open")) === null) await menu.locator("summary").click();
  await expect(menu).toHaveAttribute("open", "");
}

/** A bot post for this test alone, so parallel tests never touch the same likes or comments. */
export function botPostFor(projectName: string, slot: number): { postId: string; recipeId: string } {
  const n = 100 + slot * 2 + (projectName === "no-js" ? 1 : 0);
  return { postId: `recipeBot-P${n}`, recipeId: `recipeBot-R${n}` };
}

/**
 * Fails every test of the calling file that meets a script error or a console.error: something the
 * user sees is broken, even when the page looks right. Pages answering 403/404 on purpose make the
 * browser log "Failed to load resource", which is expected. `forgive` drops errors a test expects
 * (an offline page's failed background requests).
 */
export function failOnBrowserErrors(): { forgive(pattern: RegExp): void } {
  let errors: string[] = [];
  test.beforeEach(({ page }) => {
    errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) errors.push(message.text());
    });
  });
  test.afterEach(() => {
    expect(errors).toEqual([]);
  });
  return {
    forgive(pattern) {
      errors = errors.filter((message) => !pattern.test(message));
    },
  };
}

/**
 * A recipe with a camera photo, posted through the API as the person signed in on `page`
 * (the server makes every copy of the photo as for an upload); its id.
 */
export async function postRecipeWithPhoto(
  page: Page,
  { name, photo, origin }: { name: string; photo: Buffer; origin: string },
): Promise<string> {
  const response = await page.request.post("/api/recipes", {
    headers: { Origin: origin },
    data: {
      name,
      description: "Dinner",
      ingredients_sec: [{ title: "Main", ingredients: ["Rice (200 g)"] }],
      steps: ["Cook the rice."],
      photo: `data:image/jpeg;base64,${photo.toString("base64")}`,
      serves: 2,
      tags: [],
    },
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { recipe_id: string }).recipe_id;
}
