import fs from "node:fs";
import path from "node:path";

import SQLite from "better-sqlite3";
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from "kysely";

import { connectionReleased, countedAcquire } from "../../observability/metrics.server";
import type { Database } from "../schema.server";
import { type ChangeFeed, type DB, type Engine, type RecipeQuery, type RecipeScope } from "./engine.server";

// The embedded engine: one SQLite file (WAL) per community, the default of `npm start`.

// The mark of a transaction that names its page-cache scopes (migrations/20261125T0000-cache-scopes.ts):
// while it is there, the content tables' triggers leave `*` alone. Removed before the transaction commits.
const MARK_SCOPED = CompiledQuery.raw("insert into cache_scoping (id) values (1) on conflict do nothing");
const UNMARK_SCOPED = CompiledQuery.raw("delete from cache_scoping");

/**
 * Records `scopes` as changed by the transaction it runs in, as one commit number: writers take
 * turns, so max(version) + 1 numbers the commits in their order (migrations/20261125T0000-cache-scopes.ts).
 */
function recordScopes(scopes: ReadonlySet<string>): CompiledQuery {
  return CompiledQuery.raw(
    `insert into cache_versions (scope, version)
       select value, (select coalesce(max(version), 0) + 1 from cache_versions) from json_each(?) where true
       on conflict (scope) do update set version = excluded.version`,
    [JSON.stringify([...scopes])],
  );
}

// Transactions start with BEGIN IMMEDIATE: they take the write lock up front, waiting for it
// under busy_timeout. A plain (deferred) BEGIN that reads first and writes later fails at once
// with SQLITE_BUSY when another connection (a second server, a script) committed in between —
// the busy timeout cannot help there — and that surfaced as an error page. It also makes every
// check-then-write rule in a transaction safe: writers take turns (PostgreSQL's writers go side by
// side and lock what each rule reads instead, see postgres.server.ts).
class ImmediateSqliteDriver extends SqliteDriver {
  // Queries take turns on the one connection: the wait is what the metrics call a pool wait.
  override acquireConnection(): Promise<DatabaseConnection> {
    return countedAcquire(() => super.acquireConnection());
  }
  override async releaseConnection(): Promise<void> {
    connectionReleased();
    await super.releaseConnection();
  }
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

export interface OpenedSqlite {
  database: DB;
  /** See changeCounter in db/connection.server.ts: `data_version` moves on other connections' commits, `total_changes()` on ours. */
  changeCounter(): string;
  /** A page cache's view of the changed scopes (see ChangeFeed); one per cache. */
  changeFeed(): ChangeFeed;
}

/** Statements kept per connection (most recently used); the app has a few hundred query shapes. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The connection as Kysely sees it, with prepared statements kept by their SQL text: preparing
 * took about 4% of a signed-in page's CPU, every query compiled again by SQLite though the app
 * runs the same few hundred shapes. A statement still running (an iterator) is never handed out
 * twice; SQLite prepares again by itself after a schema change.
 */
export function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      const kept = statements.get(text);
      if (kept && !kept.busy) {
        statements.delete(text);
        statements.set(text, kept);
        return kept;
      }
      const statement = sqlite.prepare(text);
      statements.set(text, statement);
      if (statements.size > STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      return statement;
    },
  };
}

export function openSqlite(file: string): OpenedSqlite {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("synchronous = NORMAL");
  const database = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
  const versions = sqlite.prepare<[], { v: number; n: number }>("select data_version as v, total_changes() as n from pragma_data_version");
  const changeCounter = () => {
    const row = versions.get()!;
    return `${row.v}:${row.n}`;
  };
  // Prepared on first use: the tables exist once the database is migrated.
  let scopeQueries: { latest: SQLite.Statement<[], number>; since: SQLite.Statement<[number], { scope: string; version: number }> } | null = null;
  const queries = () =>
    (scopeQueries ??= {
      latest: sqlite.prepare<[], number>("select coalesce(max(version), 0) from cache_versions").pluck(),
      // A mark left behind (it never should be) means scoped writes cannot be told from others: everything.
      since: sqlite.prepare<[number], { scope: string; version: number }>(
        "select scope, version from cache_versions where version > ? union all select '*', 0 from cache_scoping",
      ),
    });
  return {
    database,
    changeCounter,
    changeFeed: () => {
      let seen: number | null = null;
      return {
        // Every commit moves it, ours and other connections'; changes() then reads what they named.
        version: changeCounter,
        changes() {
          // This connection is inside a transaction (a write of this process, between two of its
          // statements): what it reads now includes rows that are not committed.
          if (sqlite.inTransaction) return null;
          if (seen === null) {
            seen = queries().latest.get()!;
            return { all: true, scopes: [] };
          }
          let all = false;
          const scopes: string[] = [];
          for (const row of queries().since.all(seen)) {
            if (row.scope === "*") all = true;
            else scopes.push(row.scope);
            if (row.version > seen) seen = row.version;
          }
          return { all, scopes };
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Search: FTS5 (recipes_fts, users_fts). User text never reaches FTS5 as syntax: each word becomes
// a quoted string ("" for a quote inside), so `"`, `*`, `-`, `(`, `:`, NEAR, AND, OR and NOT are
// plain text.

/** Weights of the columns name, description, tags, ingredient lines: a name hit outweighs the rest. */
const RECIPE_BM25 = "bm25(recipes_fts, 10.0, 2.0, 4.0, 1.0)";

/** A word as an FTS5 string: plain text whatever it contains. */
export function ftsString(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

/**
 * The FTS5 expression for a recipe query: every word must match (implicit AND); the last word
 * also matches as a prefix while the user may still be typing it ("chick" finds chicken).
 */
export function ftsExpression({ terms, stillTyping }: RecipeQuery): string {
  return terms
    .map((term, index) => {
      const prefix = stillTyping && index === terms.length - 1 && [...term].length >= 2;
      return prefix ? `${ftsString(term)}*` : ftsString(term);
    })
    .join(" ");
}

function scoped(query: RecipeQuery, scope: RecipeScope): string {
  const match = ftsExpression(query);
  return scope === "name" ? `name : (${match})` : `(${match}) NOT name : (${match})`;
}

export const sqliteEngine: Engine = {
  name: "sqlite",

  equalsIgnoringCase: (column, value) => sql<boolean>`${sql.ref(column)} = ${value} collate nocase`,

  // SQLite's LIKE already ignores the case of ASCII letters.
  likeIgnoringCase: (column, pattern) => sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`,

  recipeSearch: {
    async count(database, query, scope, upTo) {
      const capped = upTo === undefined ? sql`` : sql`limit ${upTo}`;
      const { rows } = await sql<{ n: number }>`
        select count(*) as n from (select rowid from recipes_fts where recipes_fts match ${scoped(query, scope)} ${capped})`.execute(
        database,
      );
      return Number(rows[0]?.n ?? 0);
    },

    async ranked(database, query, scope, { offset, limit, exclude, byScore }) {
      const excluded = exclude.length > 0 ? sql`and rowid not in (${sql.join(exclude)})` : sql``;
      const order = byScore ? sql`order by ${sql.raw(RECIPE_BM25)}, rowid desc` : sql`order by rowid desc`;
      const { rows } = await sql<{ seq: number }>`
        select rowid as seq from recipes_fts
        where recipes_fts match ${scoped(query, scope)} ${excluded}
        ${order}
        limit ${limit} offset ${offset}`.execute(database);
      return rows.map((row) => Number(row.seq));
    },

    async nameCandidates(database, terms, limit) {
      // The name must start with the phrase: few rows, checked exactly by the caller.
      const phrase = `{name} : ^ ${ftsString(terms.join(" "))}`;
      const { rows } = await sql<{ seq: number; name: string }>`
        select r.seq, r.name from recipes_fts f join recipes r on r.seq = f.rowid
        where recipes_fts match ${phrase}
        order by r.seq
        limit ${limit}`.execute(database);
      return rows;
    },
  },

  // Trigram index of username and name (users_fts): substring search in any script, accents aside.
  peopleContaining: (terms) =>
    sql<boolean>`u.seq in (select rowid from users_fts where users_fts match ${terms.map(ftsString).join(" ")})`,

  // Writers take turns (BEGIN IMMEDIATE): a transaction that reads before it writes sees every
  // earlier commit and no later one, so the max is the next number and no lock is needed.
  writers: {
    nextSeq: (table, userId) =>
      userId === undefined
        ? sql<number>`(select coalesce(max(seq), 0) + 1 from ${sql.table(table)})`
        : sql<number>`(select coalesce(max(seq), 0) + 1 from ${sql.table(table)} where user_id = ${userId})`,
    lock: async () => undefined,
    forUpdate: (query) => query,
    // In the process: nothing to save by waiting.
    async withCommit(database, query) {
      await database.executeQuery(query);
    },
  },

  pageCache: {
    async mark(trx) {
      await trx.executeQuery(MARK_SCOPED);
    },
    async record(trx, scopes) {
      await trx.executeQuery(UNMARK_SCOPED);
      await trx.executeQuery(recordScopes(scopes));
    },
  },
};
