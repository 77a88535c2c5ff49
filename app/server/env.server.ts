import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import { z } from "zod";

/** An empty setting (`PAGE_CACHE_SECONDS=`) means the default, as if it were unset. */
function emptyAsUnset(value: unknown): unknown {
  return value === "" ? undefined : value;
}

/** TRUST_PROXY as Express wants it: hop counts and booleans as such, anything else as given (Express would read "1" as an address). */
export function trustProxySetting(value: string): number | boolean | string {
  if (/^\d+$/.test(value)) return Number(value);
  if (value === "true" || value === "false") return value === "true";
  return value;
}

// Every setting the server reads, checked once at boot so a typo fails loudly
// instead of surfacing as a strange runtime error later.
const EnvSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: z.coerce.number().int().min(1).max(65535).default(4000),
    DATABASE_PATH: z.string().min(1).default("data/recipals.db"),
    // PostgreSQL instead of the SQLite file (docs/scaling.md). The scheme is checked here so a
    // mistyped URL stops the server with one clear line, never a silent fallback to SQLite.
    DATABASE_URL: z
      .string()
      .optional()
      .transform((value) => (value?.trim() ? value.trim() : undefined))
      .refine((value) => value === undefined || /^postgres(ql)?:\/\//i.test(value), {
        message: "must start with postgres:// or postgresql:// (leave it unset for the SQLite file at DATABASE_PATH)",
      }),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    // Read replicas of that PostgreSQL database (docs/scaling.md, "Read replicas"), comma-separated:
    // signed-in reads go to them, writes and what visitors are shown to the primary.
    DATABASE_REPLICA_URLS: z
      .string()
      .optional()
      .transform((value) => (value ?? "").split(",").map((url) => url.trim()).filter(Boolean))
      .refine((urls) => urls.every((url) => /^postgres(ql)?:\/\//i.test(url)), { message: "must be postgres:// or postgresql:// URLs, separated by commas" }),
    // Where photos are kept: the uploads folder beside the database (disk), or an S3-compatible bucket.
    IMAGE_STORE: z.enum(["disk", "s3"]).default("disk"),
    // The disk store's folder, when it is not `uploads` beside the database.
    UPLOADS_DIR: z.string().min(1).optional(),
    S3_ENDPOINT: z.string().url().optional(),
    S3_BUCKET: z.string().min(1).optional(),
    S3_REGION: z.string().min(1).default("us-east-1"),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    // Serve photos from here (a CDN or the bucket's public address) by redirect instead of through the app.
    S3_PUBLIC_URL: z.string().url().optional(),
    RECIPALS_SEED_FILE: z.string().optional(),
    // The sample photos: stored in our own store ("store"), left on the other site ("link"), or
    // stored when that site answers at seed time ("auto", the default; seed/photos.ts).
    RECIPALS_SEED_PHOTOS: z.enum(["store", "link", "auto"], { message: "must be store, link or auto" }).optional(),
    MEALDB_BASE_URL: z.string().url().default("https://www.themealdb.com/api/json/v1/1"),
    SEED_ADMIN_PASSWORD: z.string().min(1).optional(),
    // One password for every seed user; unset: the published one in development and tests only,
    // a random one each (shown once) anywhere else (docs/rules.md#seed-sources).
    SEED_USER_PASSWORD: z.string().min(1).optional(),
    // Whoever types it becomes ADMIN: a short one can be guessed.
    ADMIN_SECRET: z.string().min(12, { message: "must be at least 12 characters (whoever types it becomes ADMIN)" }).optional(),
    // Sign-ups per address (IPv6: per /64) per hour, page and API together (docs/rules.md#sign-up-limit).
    SIGNUP_LIMIT: z.coerce.number().int().min(1).max(100_000).default(10),
    // The site's own address (https://recipes.example): every absolute link (feeds, share
    // previews, structured data) is made from it instead of from the request's Host.
    PUBLIC_URL: z
      .string()
      .url()
      .refine((value) => /^https?:\/\//i.test(value), { message: "must be an http:// or https:// address" })
      .transform((value) => new URL(value).origin)
      .optional(),
    // Outgoing mail (docs/operator-guide.md, "Mail"): smtp://user:pass@host:587 or smtps://…; unset,
    // mail is written to the outbox folder beside the database as .eml files.
    SMTP_URL: z
      .string()
      .optional()
      .transform((value) => (value?.trim() ? value.trim() : undefined))
      .refine((value) => value === undefined || /^smtps?:\/\//i.test(value), { message: "must start with smtp:// or smtps://" }),
    // How long the SMTP server may take at each step before a mail counts as not sent.
    SMTP_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(300).default(10),
    // Who mail comes from; default "ReciPals <no-reply@{PUBLIC_URL's host}>".
    MAIL_FROM: z.string().min(3).optional(),
    ALLOWED_ORIGINS: z
      .string()
      .optional()
      .transform((value) =>
        (value ?? "")
          .split(",")
          .map((origin) => origin.trim())
          .filter(Boolean),
      ),
    SESSION_SECRET: z.string().min(16).optional(),
    // Import by link may fetch private and loopback addresses (tests only). Read again at call
    // time by import.server.ts so tests can switch it; listed here so a typo fails at boot.
    IMPORT_ALLOW_PRIVATE: z.enum(["0", "1"]).optional(),
    // Behind a proxy, who may say who the client is (docs/architecture.md#settings): a hop count
    // ("1": the balancer in front), true/false, or Express's own words ("loopback", addresses).
    TRUST_PROXY: z
      .string()
      .optional()
      .transform((value) => (value ? trustProxySetting(value) : undefined)),
    // A password cost for test runs only (app/server/auth/password.server.ts): refused below unless
    // the server runs tests or listens on this machine alone.
    RECIPALS_TEST_PASSWORD_COST: z.enum(["low"]).optional(),
    // The address the server listens on (all of them when unset).
    HOST: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
    // Visitors' pages kept by the shared page cache at most this long; 0 turns it off.
    PAGE_CACHE_SECONDS: z.preprocess(
      emptyAsUnset,
      z.coerce.number({ message: "must be a number of seconds from 0 to 3600" }).min(0, "must be a number of seconds from 0 to 3600").max(3600, "must be a number of seconds from 0 to 3600").default(10),
    ),
    // How many processes serve: a whole number, or "auto" for one per CPU.
    WEB_CONCURRENCY: z.preprocess(
      emptyAsUnset,
      z
        .union([z.literal("auto"), z.coerce.number().int().min(1).max(64)], { message: 'must be a whole number from 1 to 64, or "auto"' })
        .default(1),
    ),
    // Our performance patches of Remix (patches/README.md), each switched off by "off" to compare
    // with upstream or to drop it once upstream catches up. Read by the patched packages themselves.
    RECIPALS_PATCH_ROUTE_MATCHING: z.enum(["on", "off"]).optional(),
    RECIPALS_PATCH_LOADER_REQUEST: z.enum(["on", "off"]).optional(),
    RECIPALS_PATCH_SERVER_ROUTES: z.enum(["on", "off"]).optional(),
    // Where `npm run backup` keeps its archives and a restore its undo copy (default: `backups` beside the database).
    BACKUP_DIR: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
    // Federation over ActivityPub (docs/federation.md): on by default when PUBLIC_URL is set.
    FEDERATION: z.preprocess(emptyAsUnset, z.enum(["on", "off"], { message: 'must be "on" or "off"' }).optional()),
    // Tests only: lets two instances on this machine federate over plain http and loopback addresses.
    FEDERATION_ALLOW_PRIVATE: z.enum(["0", "1"]).optional(),
    // The log's level (docs/operator-guide.md, "Logs"): a request line each at info.
    LOG_LEVEL: z.preprocess(emptyAsUnset, z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info")),
    // GET /metrics asks for `Authorization: Bearer {token}` when set; unset, it answers only on
    // this machine (docs/operator-guide.md, "Metrics").
    METRICS_TOKEN: z.preprocess(emptyAsUnset, z.string().min(16, { message: "must be at least 16 characters" }).optional()),
    // The address of this project's source, linked from the Info page (else package.json's repository).
    RECIPALS_SOURCE_URL: z.string().url().optional(),
  })
  .superRefine((value, context) => {
    if (value.RECIPALS_TEST_PASSWORD_COST && value.NODE_ENV !== "test" && !["127.0.0.1", "::1", "localhost"].includes(value.HOST ?? "")) {
      context.addIssue({ code: "custom", path: ["RECIPALS_TEST_PASSWORD_COST"], message: "is for test runs only: unset it (or, for a test server, listen on HOST=127.0.0.1 alone)" });
    }
    // Servers sharing a PostgreSQL database must sign cookies alike: a secret made up by each
    // server (kept beside its SQLite file otherwise) would sign people out on the next server.
    if (value.DATABASE_REPLICA_URLS.length > 0 && !value.DATABASE_URL) {
      context.addIssue({ code: "custom", path: ["DATABASE_REPLICA_URLS"], message: "needs DATABASE_URL (replicas are of a PostgreSQL primary)" });
    }
    if (value.DATABASE_URL && !value.SESSION_SECRET) {
      context.addIssue({ code: "custom", path: ["SESSION_SECRET"], message: "is needed when DATABASE_URL is set (the same on every server)" });
    }
    if (value.IMAGE_STORE !== "s3") return;
    for (const key of ["S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"] as const) {
      if (!value[key]) context.addIssue({ code: "custom", path: [key], message: "is needed when IMAGE_STORE=s3" });
    }
  });

export type Env = z.infer<typeof EnvSchema>;

function readEnv(): Env {
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
      .join("; ");
    throw new Error(`Invalid environment: ${problems}`);
  }
  return parsed.data;
}

export const env = readEnv();

/** Folder that holds runtime data (the database, uploads, the generated secret). */
/** Where backups go (BACKUP_DIR, or `backups` beside the database). */
export function backupDir(): string {
  return env.BACKUP_DIR ? path.resolve(env.BACKUP_DIR) : path.join(dataDir(), "backups");
}

export function dataDir(): string {
  const dbPath = env.DATABASE_PATH;
  return dbPath === ":memory:" ? path.resolve("data") : path.dirname(path.resolve(dbPath));
}

/**
 * The secret that signs cookies. Without SESSION_SECRET a random one is created once and
 * kept beside the database, so a restart does not sign everybody out.
 */
export function sessionSecret(): string {
  if (env.SESSION_SECRET) return env.SESSION_SECRET;
  if (env.DATABASE_PATH === ":memory:") return (globalThis.__recipalsEphemeralSecret ??= crypto.randomBytes(32).toString("hex"));
  const file = path.join(dataDir(), ".session-secret");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const secret = crypto.randomBytes(32).toString("hex");
    fs.writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
    return fs.readFileSync(file, "utf8").trim();
  }
}

declare global {
  var __recipalsEphemeralSecret: string | undefined;
}
