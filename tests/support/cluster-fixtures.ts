import { expect, test as base, type Page, type Response } from "@playwright/test";
import SQLite from "better-sqlite3";
import pg from "pg";

import { readState, tail, type ClusterState, type ServerName } from "./cluster";

// What every cluster test uses: the cluster's description, the balancer as baseURL, which server
// answered a response (nginx's X-Upstream header), loading a page until a given server answers
// it, users made through the API and signed in through the login form, and the database read
// directly (whichever engine the cluster runs on).

export { expect };
export type { ClusterState, ServerName };

// Playwright reads a fixture's dependencies from its first parameter, which must be a
// destructuring pattern: `{}` is how a fixture says it needs none.
/* eslint-disable no-empty-pattern */
export const test = base.extend<{ cluster: ClusterState; _logsOnFailure: void }>({
  cluster: async ({}, use) => {
    await use(readState());
  },
  baseURL: async ({ cluster }, use) => {
    await use(cluster.url);
  },
  // A failed test carries the end of every server's log (and nginx's), to see what the cluster did.
  _logsOnFailure: [
    async ({}, use, testInfo) => {
      await use();
      if (testInfo.status === testInfo.expectedStatus) return;
      const state = readState();
      for (const server of state.servers) await testInfo.attach(`server-${server.name}.log`, { body: tail(server.log, 40), contentType: "text/plain" });
      await testInfo.attach("nginx-error.log", { body: tail(state.nginx.errorLog, 20), contentType: "text/plain" });
    },
    { auto: true },
  ],
});
/* eslint-enable no-empty-pattern */

export function other(name: ServerName): ServerName {
  return name === "a" ? "b" : "a";
}

/**
 * The server that answered, from nginx's X-Upstream ("127.0.0.1:port", or "first, second" when
 * nginx had to try a second server: the last one answered). Null for answers that did not come
 * through nginx from a server.
 */
export function upstreamOf(state: ClusterState, headers: Record<string, string> | Headers): ServerName | null {
  const value = headers instanceof Headers ? headers.get("x-upstream") : headers["x-upstream"];
  const last = value?.split(",").pop()?.trim();
  if (!last) return null;
  return state.servers.find((server) => last === `127.0.0.1:${server.port}`)?.name ?? null;
}

/**
 * Whether an answer came out of the server's shared page cache (app/server/runtime/page-cache.server.ts). The app
 * has no header saying so; what gives it away: a kept page is the same bytes for every visitor, so
 * its policy allows its inline scripts by SHA-256 hash where a freshly rendered page carries a
 * nonce of its own; any kept answer goes out in one piece (Content-Length) with the weak ETag the
 * cache made for it, where a rendered one streams without either.
 */
export function servedFromPageCache(headers: Record<string, string> | Headers): boolean {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]) ?? "";
  const policy = get("content-security-policy");
  if (policy) return /'sha256-/.test(policy) && !/'nonce-/.test(policy);
  return get("etag").startsWith("W/") && get("content-length") !== "";
}

/** The server's own address (bypassing nginx). */
export function directUrl(state: ClusterState, name: ServerName, pathname: string): string {
  const server = state.servers.find((candidate) => candidate.name === name);
  if (!server) throw new Error(`No server ${name}`);
  return `http://127.0.0.1:${server.port}${pathname}`;
}

/** One more request through the balancer: moves nginx's round robin on by one. */
async function nudge(state: ClusterState): Promise<void> {
  const response = await fetch(`${state.url}/favicon.svg`);
  await response.arrayBuffer();
}

/** The answer to the URL asked for, when `response` is the end of a chain of redirects. */
async function firstHop(response: Response): Promise<Response> {
  let request = response.request();
  while (request.redirectedFrom()) request = request.redirectedFrom()!;
  return (await request.response()) ?? response;
}

/**
 * Loads `url` in the page until `server` answers it (the first hop, when it redirects), and
 * returns the page's final answer. Round robin alternates the servers per request, but a page
 * load may bring other requests with it (scripts, the service worker) that fall in between; one
 * extra request every other attempt makes sure the document's turn moves to the other server
 * whatever their number.
 */
export async function gotoOn(page: Page, url: string, server: ServerName, state: ClusterState): Promise<Response> {
  const seen: string[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    const response = await page.goto(url);
    if (!response) throw new Error(`No answer for ${url}`);
    const from = upstreamOf(state, (await firstHop(response)).headers());
    if (from === server) return response;
    seen.push(from ?? "?");
    if (attempt % 2 === 0) await nudge(state);
  }
  throw new Error(`${url} was never answered by server ${server} through the balancer (answered by ${seen.join(", ")})`);
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export interface ClusterUser {
  id: string;
  username: string;
  password: string;
  /** `recipals_session=…`, the session the sign-up started (for API calls). */
  cookie: string;
}

/** A new USER, signed up through the JSON API behind the balancer. */
export async function newUser(state: ClusterState, prefix = "cl"): Promise<ClusterUser> {
  const username = uniqueName(prefix);
  const password = "cluster-password";
  const response = await fetch(`${state.url}/api/users/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: `Cluster ${username}`, username, password }),
  });
  const body = (await response.json()) as { _id?: string; message?: string };
  if (response.status !== 201 || !body._id) throw new Error(`Sign-up of ${username} failed: ${response.status} ${JSON.stringify(body)}`);
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(";")[0]!)
    .find((pair) => pair.startsWith("recipals_session="));
  if (!cookie) throw new Error("Sign-up answered without a session cookie");
  return { id: body._id, username, password, cookie };
}

/**
 * Signs the page in through the login form (behind the balancer) and returns the server that
 * took the sign-in.
 */
export async function signIn(page: Page, user: ClusterUser, state: ClusterState): Promise<ServerName | null> {
  await page.goto("/ReciPals/Account/Login");
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password").fill(user.password);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes("/ReciPals/Account/Login")),
    page.getByRole("button", { name: "Sign in" }).click(),
  ]);
  await expect(page).toHaveURL(/\/ReciPals\/Home$/);
  return upstreamOf(state, response.headers());
}

/** The JSON of a GET through the balancer (or straight to one server with `directUrl`). */
export async function getJson<T>(url: string, cookie?: string): Promise<T> {
  const response = await fetch(url, { headers: cookie ? { cookie } : {} });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Comment texts stored for a post, read from the database itself. */
export async function storedCommentTexts(state: ClusterState, postId: string): Promise<string[]> {
  if (state.databaseUrl) {
    const client = new pg.Client({ connectionString: state.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ text: string }>("select text from comments where post_id = $1", [postId]);
      return rows.map((row) => row.text);
    } finally {
      await client.end();
    }
  }
  if (!state.databasePath) throw new Error("The cluster has no database to read");
  const sqlite = new SQLite(state.databasePath, { readonly: true, fileMustExist: true });
  try {
    return sqlite
      .prepare("select text from comments where post_id = ?")
      .pluck()
      .all(postId) as string[];
  } finally {
    sqlite.close();
  }
}

/**
 * Makes a recipe through the editor as the signed-in page (Create → Save), with a photo when
 * given, and returns its ids and the server that took the Save.
 */
export async function createRecipeInEditor(
  page: Page,
  cluster: ClusterState,
  { name, photo }: { name: string; photo?: Buffer },
): Promise<{ recipeId: string; postId: string; savedOn: ServerName | null }> {
  await page.goto("/ReciPals/Create");
  await expect(page).toHaveURL(/\/ReciPals\/Editor\/[0-9a-f-]{36}$/);
  const recipeId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  if (test.info().project.use.javaScriptEnabled !== false) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await page.getByLabel("Recipe Name").fill(name);
  await page.getByLabel("Description (Caption)").fill("Made by the cluster tests.");
  await page.getByLabel("Ingredient", { exact: true }).first().fill("Water (1 cup)");
  await page.getByLabel("Step 1").fill("Boil it.");
  if (photo) {
    await page.getByLabel("Recipe Photo").setInputFiles({ name: "photo.jpg", mimeType: "image/jpeg", buffer: photo });
    if (test.info().project.use.javaScriptEnabled !== false) {
      // The browser downsizes the photo first; Save waits until it is ready.
      await expect(page.getByRole("img", { name: "Recipe photo preview" })).toHaveAttribute("src", /^blob:/);
    }
  }
  const [saved] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes(`/ReciPals/Editor/${recipeId}`)),
    page.getByRole("button", { name: "Save", exact: true }).click(),
  ]);
  expect(saved.status(), "the Save was accepted").toBeLessThan(400);
  await expect(page).toHaveURL(/\/ReciPals\/Account\/Profile\/[^/]+\/Posts\/[0-9a-f-]{36}$/);
  const postId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  return { recipeId, postId, savedOn: upstreamOf(cluster, saved.headers()) };
}
