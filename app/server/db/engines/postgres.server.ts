import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  PostgresDriver,
  sql,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import pg from "pg";

import type { Database } from "../schema.server";
import { isWrite, recordedVersion, recordScopesQuery, type ChangeFeed, type DB, type Engine, type RecipeQuery, type RecipeScope, type ScopeChanges } from "./engine.server";

// PostgreSQL, for a community that runs several app servers (docs/scaling.md). Selected by
// DATABASE_URL; everything that differs from SQLite is in this file and sqlite.server.ts.
//
// Writers take turns, as on SQLite. Every transaction starts by taking one advisory lock, and a
// write outside a transaction runs in a transaction of its own that takes it too: the rules
// written as "check, then write" in one transaction (the sign-in throttle, the last admin, the
// next `seq`) hold across servers without a second, PostgreSQL-only version of each. Reads
// never wait for it. Writes here are a few milliseconds; the bench measures what this costs.
// Tools that write to a live database (scripts/db-copy.js) take the same lock and send the same notice.
export const WRITE_LOCK_SQL = "select pg_advisory_xact_lock(7245001)";
export const NOTICE_CHANNEL = "recipals_changes";
const WRITE_LOCK = CompiledQuery.raw(WRITE_LOCK_SQL);
// The mark of a transaction that names its page-cache scopes: the transaction-local setting tells
// the content tables' triggers to leave `*` alone (migrations/20261125T0000-cache-scopes.ts).
const MARK_SCOPED = CompiledQuery.raw("select set_config('recipals.cache_scoped', 'on', true)");

/** The database cannot be reached (down, restarting, network): pages and the API answer 503. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`The database is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "DatabaseUnavailableError";
  }
}

// Connection classes of SQLSTATE (08…), shutdowns (57P0…), and what node and pg say when the socket is gone.
const UNAVAILABLE_CODES = /^(08|57P0[1-3]$|ECONNREFUSED$|ECONNRESET$|EPIPE$|ETIMEDOUT$|ENOTFOUND$|EAI_AGAIN$|EHOSTUNREACH$)/;
const UNAVAILABLE_MESSAGES = /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Client was closed/i;

// When this process last met an unreachable database, and whether a query has worked since: for
// answers that only see Remix's summary of an error (a 500), not the error itself.
let unavailableSince: number | null = null;

/** True while the last query failed for want of a database (and within a few seconds of it). */
export function databaseLooksDown(now = Date.now()): boolean {
  return unavailableSince !== null && now - unavailableSince < 10_000;
}

export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && UNAVAILABLE_CODES.test(code)) return true;
  return error instanceof Error && UNAVAILABLE_MESSAGES.test(error.message);
}

function unavailableOr(error: unknown): unknown {
  if (!isUnavailable(error)) return error;
  unavailableSince = Date.now();
  return error instanceof DatabaseUnavailableError ? error : new DatabaseUnavailableError(error);
}

interface Counters {
  /** Bumped when this process commits a write (at once, before the answer leaves). */
  localWrites: number;
  /** This process committed a write that recorded `scopes` as commit `version` (told at once, before the answer leaves). */
  recorded(scopes: ReadonlySet<string>, version: number): void;
}

// Asked before a transaction that named no scope commits a write: did a content table's trigger
// record `*` (everything), and as which commit? Then this server's cache hears of it at once.
const UNSCOPED_CHECK = CompiledQuery.raw("select current_setting('recipals.cache_unscoped', true) as unscoped");
const UNSCOPED_VERSION = CompiledQuery.raw("select version from cache_versions where scope = '*'");
const EVERYTHING: ReadonlySet<string> = new Set(["*"]);

/**
 * The commit number of a `*` the triggers recorded in this transaction, or null. The setting is
 * asked first: before the cache-scopes migration (a new database being migrated) there is no
 * trigger to set it and no cache_versions table to read.
 */
async function unscopedVersion(connection: DatabaseConnection): Promise<number | null> {
  const [flag] = (await connection.executeQuery<{ unscoped: string | null }>(UNSCOPED_CHECK)).rows;
  if (flag?.unscoped !== "on") return null;
  const [row] = (await connection.executeQuery<{ version: number | null }>(UNSCOPED_VERSION)).rows;
  return row?.version === undefined || row.version === null ? null : Number(row.version);
}

class TakingTurnsConnection implements DatabaseConnection {
  inTransaction = false;
  wroteInTransaction = false;
  constructor(
    readonly inner: DatabaseConnection,
    private readonly counters: Counters,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const write = isWrite(query);
    try {
      if (!write || this.inTransaction) {
        const result = await this.inner.executeQuery<R>(query);
        if (write) this.wroteInTransaction = true;
        unavailableSince = null;
        return result;
      }
      await this.inner.executeQuery(CompiledQuery.raw("begin"));
      try {
        await this.inner.executeQuery(WRITE_LOCK);
        const result = await this.inner.executeQuery<R>(query);
        const recorded = await unscopedVersion(this.inner);
        await this.inner.executeQuery(CompiledQuery.raw("commit"));
        this.counters.localWrites += 1;
        if (recorded !== null) this.counters.recorded(EVERYTHING, recorded);
        return result;
      } catch (error) {
        await this.inner.executeQuery(CompiledQuery.raw("rollback")).catch(() => undefined);
        throw error;
      }
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class TakingTurnsDriver implements Driver {
  readonly #inner: PostgresDriver;
  readonly #counters: Counters;
  readonly #wrapped = new WeakMap<DatabaseConnection, TakingTurnsConnection>();
  constructor(pool: pg.Pool, counters: Counters) {
    this.#inner = new PostgresDriver({ pool });
    this.#counters = counters;
  }
  async init(): Promise<void> {
    await this.#inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    let inner: DatabaseConnection;
    try {
      inner = await this.#inner.acquireConnection();
    } catch (error) {
      throw unavailableOr(error);
    }
    let connection = this.#wrapped.get(inner);
    if (!connection) {
      connection = new TakingTurnsConnection(inner, this.#counters);
      this.#wrapped.set(inner, connection);
    }
    return connection;
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const own = connection as TakingTurnsConnection;
    try {
      await this.#inner.beginTransaction(own.inner, settings);
      own.inTransaction = true;
      own.wroteInTransaction = false;
      await own.inner.executeQuery(WRITE_LOCK);
    } catch (error) {
      throw unavailableOr(error);
    }
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as TakingTurnsConnection;
    let recorded: number | null = null;
    try {
      // A `*` the triggers recorded (a transaction that named its scopes recorded them itself: see pageCache).
      if (own.wroteInTransaction) recorded = await unscopedVersion(own.inner);
      await this.#inner.commitTransaction(own.inner);
    } catch (error) {
      throw unavailableOr(error);
    } finally {
      own.inTransaction = false;
    }
    if (own.wroteInTransaction) this.#counters.localWrites += 1;
    if (recorded !== null) this.#counters.recorded(EVERYTHING, recorded);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as TakingTurnsConnection;
    try {
      await this.#inner.rollbackTransaction(own.inner);
    } catch (error) {
      throw unavailableOr(error);
    } finally {
      own.inTransaction = false;
    }
  }
  async savepoint(...args: Parameters<NonNullable<Driver["savepoint"]>>): Promise<void> {
    await this.#inner.savepoint((args[0] as TakingTurnsConnection).inner, args[1], args[2]);
  }
  async rollbackToSavepoint(...args: Parameters<NonNullable<Driver["rollbackToSavepoint"]>>): Promise<void> {
    await this.#inner.rollbackToSavepoint((args[0] as TakingTurnsConnection).inner, args[1], args[2]);
  }
  async releaseSavepoint(...args: Parameters<NonNullable<Driver["releaseSavepoint"]>>): Promise<void> {
    await this.#inner.releaseSavepoint((args[0] as TakingTurnsConnection).inner, args[1], args[2]);
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await this.#inner.releaseConnection((connection as TakingTurnsConnection).inner as Parameters<PostgresDriver["releaseConnection"]>[0]);
  }
  async destroy(): Promise<void> {
    await this.#inner.destroy();
  }
}

class TakingTurnsDialect implements Dialect {
  constructor(
    private readonly pool: pg.Pool,
    private readonly counters: Counters,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new TakingTurnsDriver(this.pool, this.counters);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(database: Kysely<unknown>) {
    return new PostgresIntrospector(database);
  }
}

// bigint (int8: seq, counts, millisecond times) as a JS number, like SQLite gives it: every value
// we keep is far below 2^53.
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary" ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface OpenedPostgres {
  database: DB;
  pool: pg.Pool;
  /** See changeCounter in db/connection.server.ts. */
  changeCounter(): string;
  /** A page cache's view of the changed scopes (see ChangeFeed); one per cache. */
  changeFeed(): ChangeFeed;
  /** This process committed a transaction that recorded `scopes` as commit `version` (its caches hear of it at once). */
  committed(scopes: ReadonlySet<string>, version: number): void;
  /** Connects once (refusing with DatabaseUnavailableError when the server cannot be reached). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  url: string;
  poolSize: number;
  log?: (line: string) => void;
}

export function openPostgres({ url, poolSize, log = (line) => console.warn(line) }: PostgresOptions): OpenedPostgres {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30_000, types });
  // An idle client that loses its server emits here; without a listener that would end the process.
  let warnedIdle = false;
  pool.on("error", (error) => {
    if (!warnedIdle) log(`PostgreSQL: an idle connection was lost (${error.message}); reconnecting on the next query.`);
    warnedIdle = true;
  });
  pool.on("connect", (client) => {
    warnedIdle = false;
    // A client lent to a query has no pool listener: losing its server there would emit an
    // unheard "error" and end the process. The query fails by itself (DatabaseUnavailableError)
    // and the pool drops the client when it comes back.
    client.on("error", () => undefined);
  });

  const scopeLog = new ScopeLog();
  const counters: Counters = {
    localWrites: 0,
    recorded: (scopes, version) => scopeLog.recordedHere(scopes, version),
  };
  const database = new Kysely<Database>({ dialect: new TakingTurnsDialect(pool, counters) });
  // Listening starts with the first question (the page cache's): scripts never listen.
  let notices: ReturnType<typeof listenForChanges> | null = null;
  const listening = () => (notices ??= listenForChanges(url, log, scopeLog));

  return {
    database,
    pool,
    // While the listener is down another server's write could go unheard: then every call gives
    // a new value, so nothing kept is answered until it is back.
    changeCounter: () => `${listening().version()}:${counters.localWrites}`,
    committed: counters.recorded,
    changeFeed: () => {
      listening();
      let seen = 0;
      let unheard = 0;
      return {
        // Moves when the log grows: a scoped commit of this process (at once), or what a notice
        // from any server brought (once read from cache_versions).
        version: () => (scopeLog.ready ? String(scopeLog.count) : `off-${(unheard += 1)}`),
        changes: () => {
          if (!scopeLog.ready) return null;
          const changed = scopeLog.since(seen);
          seen = scopeLog.count;
          return changed;
        },
      };
    },
    ready: async () => {
      try {
        const client = await pool.connect();
        client.release();
      } catch (error) {
        throw new DatabaseUnavailableError(error);
      }
    },
    close: async () => {
      notices?.stop();
      await database.destroy();
    },
  };
}

/**
 * What this process learnt changed, in the order it learnt it: the scopes of its own scoped
 * commits (at once) and, after each notice, the scopes other commits recorded in cache_versions
 * (read by the listener). Each page cache reads it from where it last stopped.
 */
class ScopeLog {
  /** Whether the listener is connected and has read where cache_versions stood: until then nothing is known. */
  ready = false;
  /** The number of the last entry. */
  count = 0;
  /** The last commit number read from cache_versions. */
  seen = 0;
  readonly #entries: { n: number; all: boolean; scopes: readonly string[] }[] = [];
  /** Commit numbers of this process's own scoped commits, told already: not told again when read back. */
  readonly #toldHere = new Set<number>();
  static readonly KEPT = 4096;

  add(all: boolean, scopes: readonly string[]): void {
    if (!all && scopes.length === 0) return;
    this.count += 1;
    this.#entries.push({ n: this.count, all, scopes });
    if (this.#entries.length > ScopeLog.KEPT) this.#entries.shift();
  }

  recordedHere(scopes: ReadonlySet<string>, version: number): void {
    if (version <= this.seen) return; // read back already
    this.#toldHere.add(version);
    this.add(scopes.has("*"), [...scopes]);
  }

  /** Rows of cache_versions above `seen`, in version order. */
  read(rows: { scope: string; version: number }[]): void {
    let all = false;
    const scopes: string[] = [];
    for (const row of rows) {
      const version = Number(row.version);
      if (version > this.seen) this.seen = version;
      if (this.#toldHere.has(version)) continue;
      if (row.scope === "*") all = true;
      else scopes.push(row.scope);
    }
    for (const version of this.#toldHere) if (version <= this.seen) this.#toldHere.delete(version);
    this.add(all, scopes);
  }

  /** Everything after entry `n` (all, when some of it is no longer kept). */
  since(n: number): ScopeChanges {
    if (this.count - n > this.#entries.length) return { all: true, scopes: [] };
    const scopes = new Set<string>();
    for (let i = this.#entries.length - 1; i >= 0 && this.#entries[i]!.n > n; i--) {
      const entry = this.#entries[i]!;
      if (entry.all) return { all: true, scopes: [] };
      for (const scope of entry.scopes) scopes.add(scope);
    }
    return { all: false, scopes: [...scopes] };
  }
}

/**
 * One connection that LISTENs for the notices every content table's triggers send at commit
 * (migrations/20261124T0100-change-notices.ts), so this server's page cache hears the others'
 * writes, and reads after each one which scopes they changed (`scopes`). Reconnects with a
 * growing pause when the connection is lost.
 */
function listenForChanges(url: string, log: (line: string) => void, scopes: ScopeLog) {
  let heard = 0;
  let connected = false;
  let stopped = false;
  let unheard = 0;
  let client: pg.Client | null = null;
  let retryMs = 250;
  let timer: NodeJS.Timeout | null = null;
  // Reads of cache_versions, one at a time on the listening connection; notices heard during one
  // ask for one more read after it, not one each.
  let reading: Promise<void> = Promise.resolve();
  let readWanted = false;
  const readScopes = (from: pg.Client) => {
    if (readWanted) return;
    readWanted = true;
    reading = reading.then(async () => {
      readWanted = false;
      if (from !== client || !scopes.ready) return;
      try {
        const { rows } = await from.query<{ scope: string; version: number }>(
          "select scope, version from cache_versions where version > $1 order by version",
          [scopes.seen],
        );
        scopes.read(rows);
      } catch {
        lost(from);
      }
    });
  };

  const connect = async () => {
    if (stopped) return;
    const next = new pg.Client({ connectionString: url, types });
    client = next;
    next.on("notification", () => {
      heard += 1;
      readScopes(next);
    });
    next.on("error", () => lost(next));
    next.on("end", () => lost(next));
    try {
      await next.connect();
      await next.query(`listen ${NOTICE_CHANNEL}`);
      // Where the commits stand: what came before is either in no kept page yet (the first
      // connection) or unheard (a lost one), so everything counts as changed.
      const { rows } = await next.query<{ v: number }>("select coalesce(max(version), 0) as v from cache_versions");
      if (stopped) return void next.end().catch(() => undefined);
      scopes.seen = Math.max(scopes.seen, Number(rows[0]?.v ?? 0));
      scopes.add(true, []);
      scopes.ready = true;
      readScopes(next); // notices heard before `ready`
      connected = true;
      heard += 1; // whatever happened while nobody listened
      if (retryMs > 250) log("PostgreSQL: listening for other servers' writes again.");
      retryMs = 250;
    } catch {
      lost(next);
    }
  };
  const lost = (which: pg.Client) => {
    if (which !== client || stopped) return;
    if (connected) log("PostgreSQL: lost the connection that hears other servers' writes; the page cache is off until it is back.");
    connected = false;
    scopes.ready = false;
    client = null;
    which.end().catch(() => undefined);
    timer = setTimeout(() => void connect(), retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, 5000);
  };
  void connect();

  return {
    version: () => (connected ? String(heard) : `off-${(unheard += 1)}`),
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      client?.end().catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Search: weighted tsvectors (recipe_search, GIN) and trigram indexes on users (pg_trgm), kept
// by the triggers of migrations/20261121T0100-search.ts. The text search configuration
// `recipals` is English stemming without accents, like SQLite's porter + remove_diacritics.
//
// User text never reaches to_tsquery as syntax: a word is cut into its runs of letters and digits,
// each a quoted lexeme, and a word of several runs ("Yaki-Udon", "it's") becomes a phrase of them,
// as SQLite's tokenizer reads a quoted word. So & | ! ( ) : * < > ' \\ are never operators.

/** ts_rank weights for D (ingredient lines), C (description), B (tags), A (name): the same as bm25's. */
const RANK_WEIGHTS = "{0.1, 0.2, 0.4, 1.0}";

export function tsQueryText({ terms, stillTyping }: RecipeQuery): string {
  return terms
    .map((term, index) => {
      const runs = term.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
      const prefix = stillTyping && index === terms.length - 1 && [...term].length >= 2;
      const lexemes = runs.map((run, i) => `'${run}'${prefix && i === runs.length - 1 ? ":*" : ""}`);
      return lexemes.length === 1 ? lexemes[0] : `(${lexemes.join(" <-> ")})`;
    })
    .filter(Boolean)
    .join(" & ");
}

function scopedMatch(query: RecipeQuery, scope: RecipeScope) {
  const q = sql`to_tsquery('recipals', ${tsQueryText(query)})`;
  return scope === "name" ? sql`s.name_document @@ ${q}` : sql`s.document @@ ${q} and not s.name_document @@ ${q}`;
}

export const postgresEngine: Engine = {
  name: "postgres",

  // users_username_nocase is a unique index on lower(username).
  equalsIgnoringCase: (column, value) => sql<boolean>`lower(${sql.ref(column)}) = lower(${value})`,

  likeIgnoringCase: (column, pattern) => sql<boolean>`${sql.ref(column)} ilike ${pattern} escape '\\'`,

  recipeSearch: {
    async count(database, query, scope, upTo) {
      const capped = upTo === undefined ? sql`` : sql`limit ${upTo}`;
      const { rows } = await sql<{ n: number }>`
        select count(*) as n from (select 1 from recipe_search s where ${scopedMatch(query, scope)} ${capped}) m`.execute(database);
      return Number(rows[0]?.n ?? 0);
    },

    async ranked(database, query, scope, { offset, limit, exclude, byScore }) {
      const excluded = exclude.length > 0 ? sql`and s.seq not in (${sql.join(exclude)})` : sql``;
      const order = byScore
        ? sql`order by ts_rank(${RANK_WEIGHTS}::float4[], s.document, to_tsquery('recipals', ${tsQueryText(query)})) desc, s.seq desc`
        : sql`order by s.seq desc`;
      const { rows } = await sql<{ seq: number }>`
        select s.seq from recipe_search s
        where ${scopedMatch(query, scope)} ${excluded}
        ${order}
        limit ${limit} offset ${offset}`.execute(database);
      return rows.map((row) => Number(row.seq));
    },

    async nameCandidates(database, terms, limit) {
      // A name that is exactly the query is among the shortest names holding every word.
      const { rows } = await sql<{ seq: number; name: string }>`
        select r.seq, r.name from recipe_search s join recipes r on r.id = s.recipe_id
        where s.name_document @@ to_tsquery('recipals', ${tsQueryText({ terms, stillTyping: false })})
        order by length(r.name), r.seq
        limit ${limit}`.execute(database);
      return rows.map((row) => ({ seq: Number(row.seq), name: row.name }));
    },
  },

  // ILIKE '%word%' is answered by the pg_trgm GIN indexes on username and name.
  peopleContaining: (terms) =>
    sql<boolean>`${sql.join(
      terms.map((term) => {
        const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        return sql`(u.username ilike ${pattern} escape '\\' or u.name ilike ${pattern} escape '\\')`;
      }),
      sql` and `,
    )}`,

  pageCache: {
    async mark(trx) {
      await trx.executeQuery(MARK_SCOPED);
    },
    record: async (trx, scopes) => recordedVersion(await trx.executeQuery(recordScopesQuery("postgres", scopes))),
  },
};
