import { sql } from "kysely";

import { db, type DB } from "./db.server";
import { adminSecretMatches } from "./validation/profile.server";

// Sign-in throttling (DESIGN §3): only failures count; once a username or an address has
// too many in the window, every sign-in for it is refused — right password included — until
// the window has passed. Kept in SQLite so a restart does not reset it.
export const THROTTLE = { windowMs: 15 * 60 * 1000, perUsername: 5, perAddress: 20 } as const;
export const THROTTLE_MESSAGE = "Too many attempts. Please try again in a few minutes.";

export class ThrottledError extends Error {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super(THROTTLE_MESSAGE);
    this.name = "ThrottledError";
  }
}

const usernameKey = (username: string) => username.trim().toLowerCase();

/** The client address the server put in Remix's load context, if any (scripts/server.js). */
export function clientAddress(context: unknown): string | null {
  const value = (context as { clientAddress?: unknown } | null | undefined)?.clientAddress;
  return typeof value === "string" && value.length > 0 ? value : null;
}

export interface SignInSubject {
  username: string;
  address: string | null;
}

/** Throws ThrottledError when this username or address is over its limit. */
export async function assertSignInAllowed({ username, address }: SignInSubject, database: DB = db): Promise<void> {
  const since = Date.now() - THROTTLE.windowMs;
  const count = async (column: "username_key" | "address", value: string) => {
    const row = await database
      .selectFrom("sign_in_failures")
      .select([(eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.min("at").as("oldest")])
      .where(column, "=", value)
      .where("at", ">", since)
      .executeTakeFirstOrThrow();
    return { n: Number(row.n), oldest: row.oldest === null ? null : Number(row.oldest) };
  };
  const checks: { n: number; oldest: number | null; limit: number }[] = [
    { ...(await count("username_key", usernameKey(username))), limit: THROTTLE.perUsername },
  ];
  if (address) checks.push({ ...(await count("address", address)), limit: THROTTLE.perAddress });
  for (const check of checks) {
    if (check.n >= check.limit) {
      const retryAt = (check.oldest ?? Date.now()) + THROTTLE.windowMs;
      throw new ThrottledError(Math.max(1, Math.ceil((retryAt - Date.now()) / 1000)));
    }
  }
}

export async function recordSignInFailure({ username, address }: SignInSubject, database: DB = db): Promise<void> {
  const now = Date.now();
  await database
    .insertInto("sign_in_failures")
    .values({ username_key: usernameKey(username), address: address ?? "", at: now })
    .execute();
  // Keep the table small: rows older than the window never count again.
  await database.deleteFrom("sign_in_failures").where("at", "<=", sql<number>`${now - THROTTLE.windowMs}`).execute();
}

/** A successful sign-in forgets that username's earlier failures (the address's stay). */
export async function clearSignInFailures({ username }: { username: string }, database: DB = db): Promise<void> {
  await database.deleteFrom("sign_in_failures").where("username_key", "=", usernameKey(username)).execute();
}

/**
 * Checks a typed admin password (self-elevation in the profile editor and the API) under the same
 * limits: the admin secret is a password, so guesses count as failures for that user (key
 * `admin-secret:<user id>`, which no username can be) and for the address. Over the limit it
 * throws ThrottledError — right secret included — until the window has passed.
 */
export async function checkAdminSecret(
  { typed, secret, userId, address }: { typed: string; secret: string; userId: string; address: string | null },
  database: DB = db,
): Promise<boolean> {
  const subject = { username: `admin-secret:${userId}`, address };
  await assertSignInAllowed(subject, database);
  if (adminSecretMatches(typed, secret)) return true;
  await recordSignInFailure(subject, database);
  return false;
}
