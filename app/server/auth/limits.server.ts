import crypto from "node:crypto";

import { sql } from "kysely";

import { db, engineOf, writeTransaction, type DB } from "../db/connection.server";
import { env } from "../env.server";
import { addressKey } from "../http/ip.server";
import { adminSecretMatches } from "../validation/profile-schema.server";

// How often someone may try or do something, counted in the database (so a restart does not
// reset it and every server of a cluster counts the same attempts), the count and the new row
// written in one transaction (so attempts that arrive together cannot all slip under a limit).
// Two kinds: sign-in throttling counts failures (below), rate limits count actions (further
// down). Both refuse with one error, LimitReachedError: 429 with a message and Retry-After.

/** A limit holds: `message` for the person, `retryAfterSeconds` for Retry-After. */
export class LimitReachedError extends Error {
  readonly status = 429;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = "LimitReachedError";
  }
}

// ---------------------------------------------------------------------------------------------
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

const usernameKey = (username: string) => username.trim().toLowerCase();

export interface SignInSubject {
  username: string;
  address: string | null;
}

/**
 * Counts one attempt for this username and address, before anything is checked: refused with
 * LimitReachedError when either is already at its limit, otherwise recorded at once, in the same
 * transaction as the count. Recording first is what makes the limit hold when attempts arrive
 * together: each one sees every attempt still being checked (the password hash is slow on
 * purpose), not only the failures already known. The caller then settles the attempt:
 * `forgetSignInAttempt` when it succeeded or did not count, nothing when it failed.
 */
export async function beginSignInAttempt({ username, address }: SignInSubject, database: DB = db): Promise<number> {
  const now = Date.now();
  const since = now - THROTTLE.windowMs;
  const key = usernameKey(username);
  const place = address ? addressKey(address) : "";
  return writeTransaction(database, async (trx) => {
    // Attempts at one account or from one address take turns between counting and recording
    // (docs/scaling.md, "How writers meet"); others go side by side.
    await engineOf(trx).writers.lock(trx, place ? [`sign-in:${key}`, `sign-in-from:${place}`] : [`sign-in:${key}`]);
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
      throw new LimitReachedError(THROTTLE_MESSAGE, Math.max(1, Math.ceil((retryAt - now) / 1000)));
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
 * throws LimitReachedError — right secret included — until the window has passed.
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

// ---------------------------------------------------------------------------------------------
// Rate limits: how often one person (or address) may do something costly — import by link
// fetches other sites, photos are decoded and stored, a sign-up costs a slow hash.

const RATE_LIMIT_MESSAGE = (retryAfterSeconds: number) =>
  `You have done that many times in a short while. Please try again in ${Math.max(1, Math.ceil(retryAfterSeconds / 60))} minute${retryAfterSeconds > 60 ? "s" : ""}.`;

export interface RateLimit {
  bucket: string;
  /** Actions allowed per key within the window. */
  limit: number;
  windowMs: number;
}

export const RATE_LIMITS = {
  importByLink: { bucket: "import", limit: 10, windowMs: 10 * 60 * 1000 },
  // Photos one person sends (recipe, post and profile photos, pages and API alike): far more than
  // anyone cooking posts in an hour, far less than filling the store.
  uploads: { bucket: "upload", limit: 60, windowMs: 60 * 60 * 1000 },
} as const satisfies Record<string, RateLimit>;

/** Counts one photo sent by `userId` (RATE_LIMITS.uploads), or throws LimitReachedError: before it is decoded or stored. */
export function takeUploadSlot(userId: string, database: DB = db): Promise<void> {
  return takeRateLimited(RATE_LIMITS.uploads, userId, database);
}

/**
 * Sign-ups per address (an IPv6 address by its /64) per hour, page and API together
 * (docs/rules.md#sign-up-limit): SIGNUP_LIMIT, 10 unless set — a family or a flat behind one
 * router signs up a few at a time, a flood makes hundreds.
 */
export function signupLimit(): RateLimit {
  return { bucket: "signup", limit: env.SIGNUP_LIMIT, windowMs: 60 * 60 * 1000 };
}

/** The key an address counts under: IPv6 by /64, so one household's many addresses count as one. */
export function addressBucketKey(address: string): string {
  return addressKey(address);
}

/** Counts one action for `key`, or throws LimitReachedError (nothing recorded) when the key is at its limit. */
export async function takeRateLimited({ bucket, limit, windowMs }: RateLimit, key: string, database: DB = db): Promise<void> {
  const now = Date.now();
  await writeTransaction(database, async (trx) => {
    await engineOf(trx).writers.lock(trx, [`rate:${bucket}:${key}`]);
    await trx.deleteFrom("rate_events").where("bucket", "=", bucket).where("at", "<=", now - windowMs).execute();
    const row = await trx
      .selectFrom("rate_events")
      .select([(eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.min("at").as("oldest")])
      .where("bucket", "=", bucket)
      .where("key", "=", key)
      .executeTakeFirstOrThrow();
    if (Number(row.n) >= limit) {
      const oldest = row.oldest === null ? now : Number(row.oldest);
      throw new LimitReachedError(RATE_LIMIT_MESSAGE(Math.ceil((oldest + windowMs - now) / 1000)), Math.ceil((oldest + windowMs - now) / 1000));
    }
    await trx.insertInto("rate_events").values({ id: crypto.randomUUID(), bucket, key, at: now }).execute();
  });
}
