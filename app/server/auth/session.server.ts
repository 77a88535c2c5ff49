import crypto from "node:crypto";

import { createCookie, createCookieSessionStorage, redirect } from "@remix-run/node";

import { paths, safeRedirect } from "~/lib/paths";

import { COOKIE_NAMES } from "../http/cookies.server";
import { db, onPrimary, writeTransaction, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";
import { env, sessionSecret } from "../env.server";
import { sessionUserColumns, type SessionUser } from "../queries/users.server";
import { noteSignedIn } from "../observability/request-notes.server";
import { readLens, type Lens } from "../queries/visibility.server";

const SESSION_DAYS = 30;
const SESSION_MS = SESSION_DAYS * 24 * 60 * 60 * 1000;
const secure = env.NODE_ENV === "production";

// The cookie holds only a random session id; the session itself is a database row, so signing
// out (or deleting the user, or changing the password) ends it everywhere. The row is kept under
// a hash of the id (docs/rules.md#sessions-and-cookies): the database, and every backup of it,
// holds no id that would sign anyone in.
export const sessionCookie = createCookie(COOKIE_NAMES.session, {
  httpOnly: true,
  sameSite: "lax",
  secure,
  path: "/",
  maxAge: SESSION_DAYS * 24 * 60 * 60,
  secrets: [sessionSecret()],
});

interface CookieSession {
  /** The session id the cookie carries. */
  id: string;
  /** What its row is stored under (sessionKey). */
  key: string;
}

// Checking the cookie's signature and hashing its id took about 2% of a signed-in page's CPU, done
// again for every page a browser asks for with the same Cookie header. What they give depends on
// the header alone (the signing secret is fixed for the server's life), so the answers for the
// last few hundred headers are kept; whether the session is still open is asked of the database
// every time, as before.
const KEPT_HEADERS = 500;
const LONGEST_KEPT_HEADER = 4096;
const sessionsOfHeaders = new Map<string, CookieSession | null>();

async function readSession(request: Request): Promise<CookieSession | null> {
  const header = request.headers.get("Cookie");
  if (!header) return null;
  const kept = sessionsOfHeaders.get(header);
  if (kept !== undefined) return kept;
  const value: unknown = await sessionCookie.parse(header);
  const session = typeof value === "string" && value.length > 0 ? { id: value, key: sessionKey(value) } : null;
  if (header.length <= LONGEST_KEPT_HEADER) {
    sessionsOfHeaders.set(header, session);
    if (sessionsOfHeaders.size > KEPT_HEADERS) sessionsOfHeaders.delete(sessionsOfHeaders.keys().next().value!);
  }
  return session;
}

async function readSessionId(request: Request): Promise<string | null> {
  return (await readSession(request))?.id ?? null;
}

/** What a session is stored under: a hash of its id (the id itself is only ever in the cookie). */
export function sessionKey(id: string): string {
  return crypto.createHash("sha256").update(id).digest("base64url");
}

/** The signed-in user's id, or null for a missing, tampered, expired or deleted session. */
export async function getUserId(request: Request): Promise<string | null> {
  if (request.method === "GET" || request.method === "HEAD") return (await getUser(request))?.id ?? null;
  return readSessionUserId(request);
}

const sessionRow = preparedRead((database, key: string) => database.selectFrom("sessions").select(["user_id", "expires_at"]).where("id", "=", key));

async function readSessionUserId(request: Request): Promise<string | null> {
  const session = await readSession(request);
  if (!session) return null;
  const [row] = await onPrimary(() => sessionRow(db, session.key));
  if (!row || row.expires_at <= Date.now()) return null;
  noteSignedIn(row.user_id);
  return row.user_id;
}

const sessionUser = preparedRead((database, key: string, now: number) =>
  database
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select(sessionUserColumns.map((column) => `users.${column}` as const))
    .where("sessions.id", "=", key)
    .where("sessions.expires_at", ">", now)
    .where("users.suspended_at", "is", null),
);

async function readUser(request: Request): Promise<SessionUser | null> {
  const session = await readSession(request);
  if (!session) return null;
  // One query for the session and its user (a page reads it on every request). From the primary
  // even where pages read from replicas: a sign-out elsewhere, a suspension or a demotion holds
  // at once, never after a replica's lag (docs/scaling.md, "Read replicas").
  const [user] = await onPrimary(() => sessionUser(db, session.key, Date.now()));
  if (user) noteSignedIn(user.id);
  return user ?? null;
}

// The loaders of one page (root, layout, page) are handed the same GET request object (our patch
// of @remix-run/server-runtime, patches/README.md), so its session is read once, not once per
// loader. Only reads: after an action in the same request the user may have changed.
const usersOfReads = new WeakMap<Request, Promise<SessionUser | null>>();

export function getUser(request: Request): Promise<SessionUser | null> {
  if (request.method !== "GET" && request.method !== "HEAD") return readUser(request);
  let user = usersOfReads.get(request);
  if (!user) {
    user = readUser(request);
    usersOfReads.set(request, user);
  }
  return user;
}

const lensesOfReads = new WeakMap<Request, Promise<Lens>>();

/**
 * Whom the viewer does not see (docs/rules.md#blocking-and-muting): for visitors only the suspended accounts.
 * Read once per page like the user; read afresh for a write.
 */
export function getLens(request: Request): Promise<Lens> {
  const read = async () => {
    const user = await getUser(request);
    return readLens(user?.id ?? null, { admin: user?.role === "ADMIN" });
  };
  if (request.method !== "GET" && request.method !== "HEAD") return read();
  let lens = lensesOfReads.get(request);
  if (!lens) {
    lens = read();
    lensesOfReads.set(request, lens);
  }
  return lens;
}

function currentPath(request: Request): string {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}

/** Sends visitors to Login (remembering where they were going) and returns the user otherwise. */
export async function requireUser(
  request: Request,
  { redirectTo = currentPath(request) }: { redirectTo?: string } = {},
): Promise<SessionUser> {
  const user = await getUser(request);
  if (!user) throw redirect(paths.login(redirectTo));
  return user;
}

export async function requireUserId(request: Request, options?: { redirectTo?: string }): Promise<string> {
  return (await requireUser(request, options)).id;
}

/** Pages for signed-out people only (login, sign-up) send signed-in users home. */
export async function requireAnonymous(request: Request): Promise<void> {
  if (await getUserId(request)) throw redirect(paths.home());
}

/**
 * Starts a fresh session for the user (rotating away any old one, so a planted session id is
 * useless) and returns the Set-Cookie header value that carries it. Pages redirect with it
 * (createUserSession); the JSON API answers with it.
 */
export async function startSession(request: Request, userId: string, { endOthers = false }: { endOthers?: boolean } = {}): Promise<string> {
  const oldId = await readSessionId(request);
  const id = crypto.randomBytes(32).toString("base64url");
  const now = Date.now();
  await writeTransaction(db, async (trx) => {
    if (oldId) await trx.deleteFrom("sessions").where("id", "=", sessionKey(oldId)).execute();
    if (endOthers) await endSessionsOf(userId, trx);
    else await trx.deleteFrom("sessions").where("user_id", "=", userId).where("expires_at", "<=", now).execute();
    await trx
      .insertInto("sessions")
      .values({ id: sessionKey(id), user_id: userId, created_at: new Date(now).toISOString(), expires_at: now + SESSION_MS })
      .execute();
  });
  noteSignedIn(userId);
  return sessionCookie.serialize(id);
}

/** Ends every session of the user (a password changed, "Sign out everywhere"), in the caller's transaction if given. */
export async function endSessionsOf(userId: string, database: DB = db): Promise<void> {
  await database.deleteFrom("sessions").where("user_id", "=", userId).execute();
}

/** Starts a fresh session (see startSession) and redirects with its cookie. */
export async function createUserSession({
  request,
  userId,
  redirectTo,
  headers = new Headers(),
}: {
  request: Request;
  userId: string;
  redirectTo: string;
  headers?: Headers;
}): Promise<Response> {
  headers.append("Set-Cookie", await startSession(request, userId));
  return redirect(safeRedirect(redirectTo), { headers });
}

/** Ends the request's session (if any) and returns the Set-Cookie header value that clears the cookie. */
export async function endSession(request: Request): Promise<string> {
  const sessionId = await readSessionId(request);
  if (sessionId) await db.deleteFrom("sessions").where("id", "=", sessionKey(sessionId)).execute();
  return sessionCookie.serialize("", { maxAge: 0 });
}

/**
 * What a browser must forget when someone signs out: its HTTP cache and its storage (the service
 * worker's offline copies included), so the next person on a shared device finds nothing of theirs.
 */
export const SIGNED_OUT_HEADERS = { "Clear-Site-Data": '"cache", "storage"' } as const;

/** Signs out: this session, or with `everywhere` every session of the user. */
export async function logout(request: Request, { everywhere = false }: { everywhere?: boolean } = {}): Promise<Response> {
  if (everywhere) {
    const userId = await readSessionUserId(request);
    if (userId) await endSessionsOf(userId);
  }
  const headers = new Headers(SIGNED_OUT_HEADERS);
  headers.append("Set-Cookie", await endSession(request));
  return redirect(paths.home(), { headers });
}

// The sign-up draft between the two steps (docs/rules.md#sign-up-draft). Signed, so it cannot be forged;
// it holds the password only as a hash.
export const signupDraftStorage = createCookieSessionStorage<SignupDraft>({
  cookie: {
    name: COOKIE_NAMES.signupDraft,
    httpOnly: true,
    sameSite: "lax",
    secure,
    path: "/",
    maxAge: 60 * 60,
    secrets: [sessionSecret()],
  },
});

export interface SignupDraft {
  name: string;
  username: string;
  passwordHash: string;
  /** The optional email address (docs/rules.md#account-email); "" for none. */
  email?: string;
}

export async function getSignupDraft(request: Request): Promise<SignupDraft | null> {
  const session = await signupDraftStorage.getSession(request.headers.get("Cookie"));
  const name = session.get("name");
  const username = session.get("username");
  const passwordHash = session.get("passwordHash");
  if (typeof name !== "string" || typeof username !== "string" || typeof passwordHash !== "string") return null;
  const email = session.get("email");
  return { name, username, passwordHash, email: typeof email === "string" ? email : "" };
}

export async function commitSignupDraft(request: Request, draft: SignupDraft): Promise<string> {
  const session = await signupDraftStorage.getSession(request.headers.get("Cookie"));
  session.set("name", draft.name);
  session.set("username", draft.username);
  session.set("passwordHash", draft.passwordHash);
  session.set("email", draft.email ?? "");
  return signupDraftStorage.commitSession(session);
}

export async function clearSignupDraft(request: Request): Promise<string> {
  const session = await signupDraftStorage.getSession(request.headers.get("Cookie"));
  return signupDraftStorage.destroySession(session);
}

export const ADMIN_ONLY_MESSAGE = "Only administrators may do that. Your account is not an administrator, so nothing was changed.";

/** Requests whose admin action was refused: the loaders that then render the refusal see it too. */
const refusedAdminRequests = new WeakSet<object>();

/**
 * The admin guard, for every admin loader and action: visitors go to Login; a USER asking for
 * an admin page is sent Home, and a USER's post to an admin action is refused with 403 and a
 * page that says why, nothing changed. After a refused post, Remix still runs the page's loaders
 * (with a GET) to render the refusal: they must not turn it into the redirect Home, so the
 * refusal is remembered for the rest of the request through its load context.
 */
export async function requireAdmin({ request, context }: { request: Request; context?: unknown }): Promise<SessionUser> {
  const user = await requireUser(request);
  if (user.role === "ADMIN") return user;
  const requestState = typeof context === "object" && context !== null ? context : null;
  const posted = request.method !== "GET" && request.method !== "HEAD";
  if (posted && requestState) refusedAdminRequests.add(requestState);
  if (!posted && !(requestState && refusedAdminRequests.has(requestState))) throw redirect(paths.home());
  throw new Response(ADMIN_ONLY_MESSAGE, { status: 403, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
