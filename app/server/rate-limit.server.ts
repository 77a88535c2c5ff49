import crypto from "node:crypto";

import { db, type DB } from "./db.server";
import { env } from "./env.server";
import { addressKey } from "./ip.server";

// Limits on how often one person may do something costly (import by link fetches other sites
// and processes their photos). Counted in the database, so every server of a cluster counts the
// same actions, and the count and the new row are written in one transaction, so actions that
// arrive together cannot all slip under the limit.

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

/** Counts one photo sent by `userId` (RATE_LIMITS.uploads), or throws RateLimitedError: before it is decoded or stored. */
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

export class RateLimitedError extends Error {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super(`You have done that many times in a short while. Please try again in ${Math.max(1, Math.ceil(retryAfterSeconds / 60))} minute${retryAfterSeconds > 60 ? "s" : ""}.`);
    this.name = "RateLimitedError";
  }
}

/** Counts one action for `key`, or throws RateLimitedError (nothing recorded) when the key is at its limit. */
export async function takeRateLimited({ bucket, limit, windowMs }: RateLimit, key: string, database: DB = db): Promise<void> {
  const now = Date.now();
  await database.transaction().execute(async (trx) => {
    await trx.deleteFrom("rate_events").where("bucket", "=", bucket).where("at", "<=", now - windowMs).execute();
    const row = await trx
      .selectFrom("rate_events")
      .select([(eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.min("at").as("oldest")])
      .where("bucket", "=", bucket)
      .where("key", "=", key)
      .executeTakeFirstOrThrow();
    if (Number(row.n) >= limit) {
      const oldest = row.oldest === null ? now : Number(row.oldest);
      throw new RateLimitedError(Math.ceil((oldest + windowMs - now) / 1000));
    }
    await trx.insertInto("rate_events").values({ id: crypto.randomUUID(), bucket, key, at: now }).execute();
  });
}

/**
 * At most `limit` calls of `run` at once in this process; the others wait their turn. For work
 * that holds much memory while it runs (an imported page and its photo, a decoded picture).
 * `running` and `waiting` say how busy it is.
 */
export function concurrencyGate(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  async function gated<T>(run: () => Promise<T>): Promise<T> {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await run();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  }
  return Object.defineProperties(gated, {
    running: { get: () => running },
    waiting: { get: () => waiting.length },
  }) as typeof gated & { readonly running: number; readonly waiting: number };
}
