import fs from "node:fs";
import path from "node:path";

import SQLite from "better-sqlite3";
import {
  CompiledQuery,
  Kysely,
  Migrator,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
} from "kysely";

import { migrationProvider } from "../../migrations/index";
import type { Database } from "./db-types.server";
import { env } from "./env.server";

export type DB = Kysely<Database>;

// Transactions start with BEGIN IMMEDIATE: they take the write lock up front, waiting for it
// under busy_timeout. A plain (deferred) BEGIN that reads first and writes later fails at once
// with SQLITE_BUSY when another connection (a second server, a script) committed in between —
// the busy timeout cannot help there — and that surfaced as an error page.
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

const changeStatements = new WeakMap<DB, SQLite.Statement<[], { v: number; n: number }>>();

// SQLite-specific setup lives here and nowhere else (docs/rules.md#portability: keep the dialect swappable).
export function openDatabase(file: string): DB {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("synchronous = NORMAL");
  const database = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
  changeStatements.set(database, sqlite.prepare("select data_version as v, total_changes() as n from pragma_data_version"));
  return database;
}

/**
 * A value that changes whenever the database may have changed: `data_version` moves when
 * another connection (a second server, a script) commits, `total_changes()` when this one
 * writes (even in a transaction that later rolls back — a harmless extra change). Read
 * synchronously, in microseconds, for the shared page cache (scripts/page-cache.js).
 */
export function changeCounter(database: DB): string {
  const row = changeStatements.get(database)?.get();
  if (!row) throw new Error("changeCounter: not a database opened by openDatabase");
  return `${row.v}:${row.n}`;
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
export const db: DB = (globalThis.__recipalsDb ??= openDatabase(env.DATABASE_PATH));

// Migrate before anything can query: every importer of this module (the server build, the
// seed, tests) waits here, so the server never serves an old schema.
await migrateToLatest(db);
