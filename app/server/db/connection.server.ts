import { Migrator, PostgresAdapter, type Transaction } from "kysely";

import { migrationProvider } from "../../../migrations/index";
import type { Database } from "./schema.server";
import type { ChangeFeed, DB, Engine } from "./engines/engine.server";
import { conflictsPersisted, openPostgres, postgresEngine } from "./engines/postgres.server";
import { openSqlite, sqliteEngine } from "./engines/sqlite.server";
import { env } from "../env.server";

// The one module that decides the database engine (docs/scaling.md): PostgreSQL when DATABASE_URL
// is set, otherwise the SQLite file at DATABASE_PATH. Query modules take a `DB` and ask
// `engineOf(database)` for the few pieces of SQL that differ; they never test the engine.

export type { ChangeFeed, DB, ScopeChanges } from "./engines/engine.server";
export { isUniqueViolation } from "./engines/engine.server";
export { DatabaseUnavailableError, databaseLooksDown, isUnavailable } from "./engines/postgres.server";
export { onPrimary, readsMayUseReplicas } from "./engines/replicas.server";

/** What a page or a JSON call says while the database cannot be reached (status 503). */
export const UNAVAILABLE_MESSAGE = "ReciPals is briefly unavailable. Please try again in a moment.";

export type DatabaseLocation = { engine: "sqlite"; path: string } | { engine: "postgres"; url: string; poolSize: number; replicaUrls?: readonly string[] };

interface Opened {
  changeCounter(): string;
  changeFeed(): ChangeFeed;
  committed(scopes: ReadonlySet<string>): void;
  ready(): Promise<void>;
  close(): Promise<void>;
}

const opened = new WeakMap<DB, Opened>();

/** Where this process's database is, from the settings. */
export function databaseLocation(): DatabaseLocation {
  return env.DATABASE_URL
    ? { engine: "postgres", url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE, replicaUrls: env.DATABASE_REPLICA_URLS }
    : { engine: "sqlite", path: env.DATABASE_PATH };
}

/** Opens a database (not migrated: see migrateToLatest). A string is a SQLite file (or ":memory:"). */
export function openDatabase(location: DatabaseLocation | string): DB {
  const where: DatabaseLocation = typeof location === "string" ? { engine: "sqlite", path: location } : location;
  if (where.engine === "sqlite") {
    const sqlite = openSqlite(where.path);
    opened.set(sqlite.database, {
      changeCounter: sqlite.changeCounter,
      changeFeed: sqlite.changeFeed,
      // The cache reads cache_versions through this very connection: nothing to tell.
      committed: () => undefined,
      ready: async () => undefined,
      close: () => sqlite.database.destroy(),
    });
    return sqlite.database;
  }
  const postgres = openPostgres({ url: where.url, poolSize: where.poolSize, replicaUrls: where.replicaUrls });
  opened.set(postgres.database, postgres);
  postgresUrls.set(postgres.database, where.url);
  return postgres.database;
}

const postgresUrls = new WeakMap<DB, string>();

/**
 * The address of the PostgreSQL primary a database opened by openDatabase lives on (null for
 * SQLite): for the few parts that keep connections of their own (the federation's job queue).
 */
export function postgresUrlOf(database: DB): string | null {
  return postgresUrls.get(database) ?? null;
}

// Deadlocks and serialization failures: PostgreSQL ends one of the transactions, which is then
// tried again from its start (docs/scaling.md, "How writers meet"). SQLite's writers take turns
// and never meet one.
const CONFLICT_CODES = new Set(["40001", "40P01"]);
export const WRITE_TRIES = 3;

/**
 * A write transaction, tried again (up to WRITE_TRIES in all, a few milliseconds apart) when
 * PostgreSQL ended it for a conflict with another writer; then a DatabaseUnavailableError (503).
 * Every try starts from nothing: a failed one wrote nothing.
 */
export async function writeTransaction<T>(database: DB, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await database.transaction().execute(work);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code !== "string" || !CONFLICT_CODES.has(code)) throw error;
      if (attempt >= WRITE_TRIES) throw conflictsPersisted(error);
      await new Promise((resolve) => setTimeout(resolve, attempt * 5 + Math.random() * 10));
    }
  }
}

/** Runs `work` in a transaction: the caller's when `database` already is one, else one of its own. */
export function withinTransaction<T>(database: DB, work: (trx: DB) => Promise<T>): Promise<T> {
  return database.isTransaction ? work(database) : database.transaction().execute(work);
}

/** The engine's side of everything that differs (works on a transaction too). */
export function engineOf(database: DB): Engine {
  return database.getExecutor().adapter instanceof PostgresAdapter ? postgresEngine : sqliteEngine;
}

/**
 * A value that changes whenever the database may have changed, read synchronously in
 * microseconds by the shared page cache (app/server/runtime/page-cache.server.ts). SQLite: its data_version (other
 * connections' commits) and total_changes() (ours). PostgreSQL: the notices other servers' commits
 * send (LISTEN) and the writes this process committed.
 */
export function changeCounter(database: DB): string {
  const handle = opened.get(database);
  if (!handle) throw new Error("changeCounter: not a database opened by openDatabase");
  return handle.changeCounter();
}

/**
 * What the shared page cache asks when the counter moves: which page-cache scopes commits changed
 * since it last asked (cache/scopes.server.ts). One feed per cache: each remembers where it stopped.
 */
export function openChangeFeed(database: DB): ChangeFeed {
  const handle = opened.get(database);
  if (!handle) throw new Error("openChangeFeed: not a database opened by openDatabase");
  return handle.changeFeed();
}

/**
 * This process committed a transaction that recorded page-cache `scopes` (cache/scopes.server.ts):
 * its caches hear of it before the answer leaves.
 */
export function tellCommitted(database: DB, scopes: ReadonlySet<string>): void {
  opened.get(database)?.committed(scopes);
}

/** Waits until the database answers; throws DatabaseUnavailableError when it cannot be reached. */
export async function databaseReady(database: DB): Promise<void> {
  await opened.get(database)?.ready();
}

export async function closeDatabaseHandle(database: DB): Promise<void> {
  const handle = opened.get(database);
  if (handle) await handle.close();
  else await database.destroy();
}

/** Runs every pending migration; throws when one fails so the server never serves a half-migrated schema. */
export async function migrateToLatest(database: DB): Promise<string[]> {
  const migrator = new Migrator({ db: database, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

declare global {
  var __recipalsDb: DB | undefined;
}

// One handle per process; cached on globalThis so dev rebuilds do not leak handles.
export const db: DB = (globalThis.__recipalsDb ??= openDatabase(databaseLocation()));

// Reach the database and migrate before anything can query: every importer of this module (the
// server build, the seed, tests) waits here, so the server never serves an old schema, and an
// unreachable PostgreSQL stops the start with one clear line (scripts/start.js) instead of
// failing request by request.
await databaseReady(db);
await migrateToLatest(db);
