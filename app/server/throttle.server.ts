import { sql } from "kysely";

import { db, type DB } from "./db.server";
import { addressKey } from "./ip.server";
import { adminSecretMatches } from "./validation/profile.server";

// Sign-in throttling (docs/rules.md#sign-in-throttling): only failures count, within a window.
// - One address guessing one account: after `perUsernameAndAddress` failures that pair is refused
//   (right password included) until the window has passed.
// - One address guessing many accounts: after `perAddress` failures the address is refused.
// - Many addresses guessing one account: once it has `usernameUnderAttack` failures, an address
//   that has failed on it may not try again, while an address with no failure on it still may —
//   so nobody can keep the owner (or an admin) out by failing on purpose from elsewhere.
// IPv6 addresses count by their /64. Kept in the database, so a restart does not reset it and
// every server of a cluster counts the same attempts.
export const THROTTLE = { windowMs: 15 * 60 * 1000, perUsernameAndAddress: 5, perAddress: 20, usernameUnderAttack: 10 } as const;
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

/**
 * Counts one attempt for this username and address, before anything is checked: refused with
 * ThrottledError when either is already at its limit, otherwise recorded at once, in the same
 * transaction as the count. Recording first is what makes the limit hold when attempts arrive
 * together: each one sees every attempt still being checked (the password hash takes tens of
 * milliseconds), not only the failures already known. The caller then settles the attempt:
 * `forgetSignInAttempt` when it succeeded or did not count, nothing when it failed.
 */
export async function beginSignInAttempt({ username, address }: SignInSubject, database: DB = db): Promise<number> {
  const now = Date.now();
  const since = now - THROTTLE.windowMs;
  const key = usernameKey(username);
  const place = address ? addressKey(address) : "";
  return database.transaction().execute(async (trx) => {
    const count = async (where: { username_key?: string; address?: string }) => {
      let query = trx
        .selectFrom("sign_in_failures")
        .select([(eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.min("at").as("oldest")])
        .where("at", ">", since);
      if (where.username_key !== undefined) query = query.where("username_key", "=", where.username_key);
      if (where.address !== undefined) query = query.where("address", "=", where.address);
      const row = await query.executeTakeFirstOrThrow();
      return { n: Number(row.n), oldest: row.oldest === null ? now : Number(row.oldest) };
    };
    const pair = await count({ username_key: key, address: place });
    const account = await count({ username_key: key });
    const from = place ? await count({ address: place }) : { n: 0, oldest: now };
    const refusedBy = [
      pair.n >= THROTTLE.perUsernameAndAddress ? pair : null,
      from.n >= THROTTLE.perAddress ? from : null,
      account.n >= THROTTLE.usernameUnderAttack && pair.n > 0 ? pair : null,
    ].filter((reason): reason is { n: number; oldest: number } => reason !== null);
    if (refusedBy.length > 0) {
      const retryAt = Math.max(...refusedBy.map((reason) => reason.oldest)) + THROTTLE.windowMs;
      throw new ThrottledError(Math.max(1, Math.ceil((retryAt - now) / 1000)));
    }
    // Keep the table small: rows older than the window never count again.
    await trx.deleteFrom("sign_in_failures").where("at", "<=", sql<number>`${since}`).execute();
    const row = await trx
      .insertInto("sign_in_failures")
      .values({ username_key: key, address: place, at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    return Number(row.id);
  });
}

/** Takes back an attempt that turned out not to be a failure (a success, or a form refused before any check). */
export async function forgetSignInAttempt(id: number, database: DB = db): Promise<void> {
  await database.deleteFrom("sign_in_failures").where("id", "=", id).execute();
}

/** A successful sign-in forgets that username's earlier failures (the address's stay for its other accounts). */
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
  const attempt = await beginSignInAttempt({ username: `admin-secret:${userId}`, address }, database);
  const matches = adminSecretMatches(typed, secret);
  if (matches) await forgetSignInAttempt(attempt, database);
  return matches;
}
