import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

// OWASP's minimum for scrypt, in the setting of its list that answers a sign-in soonest here:
// N=2^15, r=8, p=3 (listed as equivalent to N=2^17, r=8, p=1). One hash holds 128 × N × r =
// 32 MiB and took 0.29 s where N=2^17 took 0.71 s: the larger table misses the CPU's caches, and
// on a busy two-core machine a failed sign-in waited about 4 s. Node runs at most four hashes at
// once (its thread pool), so sign-ins never hold more than about 128 MiB, and the sign-in
// throttle keeps one person from queueing many (docs/developer-guide.md, "Choices already made").
export const PRODUCTION_PASSWORD_PARAMS = { N: 1 << 15, r: 8, p: 3 } as const;
/** The largest N we ever stored (the production setting until 2026-11): still verified, then replaced. */
const LARGEST_STORED_N = 1 << 17;
// The test suites' cost (RECIPALS_TEST_PASSWORD_COST=low): the same code at 1/128 of the work, so
// the thousands of sign-ups and sign-ins the tests make do not spend minutes in scrypt. The
// environment check refuses it outside tests and servers listening on loopback only
// (app/server/env.server.ts); tests/security/production-install.test.ts checks that a server
// started as `npm start` stores hashes at the production cost (docs/testing.md).
const TEST_PASSWORD_PARAMS = { N: 1 << 10, r: 8, p: 1 } as const;
export const PASSWORD_PARAMS: { readonly N: number; readonly r: number; readonly p: number } =
  process.env.RECIPALS_TEST_PASSWORD_COST === "low" ? TEST_PASSWORD_PARAMS : PRODUCTION_PASSWORD_PARAMS;
const KEY_LENGTH = 32;
/** Room for the largest hash we accept to verify: older, cheaper hashes and the current one. */
const MAX_MEMORY = 256 * 1024 * 1024;

/** `scrypt$N$r$p$salt$hash`, so the cost can rise later without breaking stored hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const { N, r, p } = PASSWORD_PARAMS;
  const key = await scrypt(password.normalize("NFC"), salt, KEY_LENGTH, { N, r, p, maxmem: MAX_MEMORY });
  return ["scrypt", N, r, p, salt.toString("base64"), key.toString("base64")].join("$");
}

interface StoredHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parseStored(stored: string): StoredHash | null {
  const [scheme, n, r, p, saltText, keyText] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !saltText || !keyText) return null;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  // A stored hash is ours, but a cost beyond what we ever wrote would stall the thread pool.
  const sane = Number.isInteger(params.N) && params.N >= 2 && params.N <= LARGEST_STORED_N && params.r >= 1 && params.r <= 16 && params.p >= 1 && params.p <= 16;
  return sane ? { ...params, salt: Buffer.from(saltText, "base64"), key: Buffer.from(keyText, "base64") } : null;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const hash = parseStored(stored);
  if (!hash) return false;
  const actual = await scrypt(password.normalize("NFC"), hash.salt, hash.key.length, { N: hash.N, r: hash.r, p: hash.p, maxmem: MAX_MEMORY });
  return actual.length === hash.key.length && crypto.timingSafeEqual(actual, hash.key);
}

/**
 * True for a hash not made with today's setting: it is replaced at the next successful sign-in
 * (a cheaper one, or the slower N=2^17 one). At the tests' low cost only a cheaper hash is: a
 * production hash in a test database stays as it is.
 */
export function needsRehash(stored: string): boolean {
  const hash = parseStored(stored);
  if (!hash) return true;
  const work = ({ N, r, p }: { N: number; r: number; p: number }) => N * r * p;
  if (PASSWORD_PARAMS === TEST_PASSWORD_PARAMS) return work(hash) < work(PASSWORD_PARAMS);
  return hash.N !== PASSWORD_PARAMS.N || hash.r !== PASSWORD_PARAMS.r || hash.p !== PASSWORD_PARAMS.p;
}

/** A random password for accounts nobody chose one for (seeded admin, admin-created users). */
export function randomPassword(): string {
  return crypto.randomBytes(12).toString("base64url");
}
