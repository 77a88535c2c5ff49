import crypto from "node:crypto";

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

import { connectionReleased, countedAcquire } from "../../observability/metrics.server";
import type { Database } from "../schema.server";
import { Replicas } from "./replicas.server";
import { isWrite, type ChangeFeed, type DB, type Engine, type RecipeQuery, type RecipeScope, type ScopeChanges } from "./engine.server";
import { log as logger } from "../../observability/log.server";

// PostgreSQL, for a community that runs several app servers (docs/scaling.md). Selected by
// DATABASE_URL; everything that differs from SQLite is in this file and sqlite.server.ts.
//
// Writers go side by side (docs/scaling.md, "How writers meet"): no lock every write takes, no row
// every write touches. Each rule that reads before it writes takes the narrowest tool PostgreSQL
// has — a unique index, a row lock on what it read (`writers.forUpdate`), a lock on its own key
// (`writers.lock`), a sequence for insertion order (`writers.nextSeq`) — and the page cache's change
// feed rides on NOTIFY, which PostgreSQL delivers in commit order without a shared counter.
//
// Round trips are what a write costs when the database is on another machine, so the driver sends
// what needs no answer together: `begin`, the page-cache mark and the transaction's first locks go
// with the first statement whose answer is read (its values written in as literals, as
// node-postgres sends only one statement with parameters at a time), and the change notice with
// `commit`. The notice is part of
// the transaction (it is delivered only if the data commits); PostgreSQL briefly serialises the
// commits of transactions that notify — the one point writers still share.
export const NOTICE_CHANNEL = "recipals_changes";
// The mark of a transaction that names its page-cache scopes: the transaction-local setting tells
// the content tables' triggers to send no `*` (migrations/20261129T0000-writers-side-by-side.ts).
const MARK_SCOPED = CompiledQuery.raw("select set_config('recipals.cache_scoped', 'on', true)");
// Every lock statement starts so (writers.lock), written with its keys as literals: it can wait
// and go out with the transaction's other pending statements.
const LOCK_PREFIX = "select pg_advisory_xact_lock";
// The notice of a scoped commit, kept by the connection until it commits (see `recordScopes`).
const NOTICE_SQL = "select pg_notify('recipals_changes', $1)";
// Writes whose answer nobody reads (a notification, a withdrawn one): held by the connection and
// sent with `commit`, their values written in (writers.withCommit). An error in one fails the commit.
const WITH_COMMIT = new WeakSet<CompiledQuery>();
// A notice must stay under PostgreSQL's 8,000 bytes; more scopes than fit say "everything".
const NOTICE_MAX_BYTES = 7_000;

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

/**
 * A write that kept meeting conflicts PostgreSQL resolves by failing one side (a deadlock, a
 * serialization failure), tried as often as we try: answered like a database that is briefly
 * away (503, "please try again"), nothing of it written.
 */
export function conflictsPersisted(error: unknown): DatabaseUnavailableError {
  unavailableSince = Date.now();
  return new DatabaseUnavailableError(error);
}

function unavailableOr(error: unknown): unknown {
  if (!isUnavailable(error)) return error;
  unavailableSince = Date.now();
  return error instanceof DatabaseUnavailableError ? error : new DatabaseUnavailableError(error);
}

interface Counters {
  /** This process's mark on the notices it sends, so its listener skips what it was told at once. */
  origin: string;
  /** Bumped when this process commits a write (at once, before the answer leaves). */
  localWrites: number;
  /** This process committed a write that named `scopes` (told at once, before the answer leaves). */
  recorded(scopes: ReadonlySet<string>): void;
}

/** The payload of a scoped commit's notice: who sent it and what it changed. */
interface Notice {
  o: string;
  s: string[];
}

const NO_ROWS: QueryResult<never> = { rows: [] };

/**
 * `query`'s text with its values written in as literals, so that it can go in one simple query
 * with the statements before it; null when it must go on its own: a value other than text (without
 * NUL, which a simple query cannot carry), a number, a boolean or null; a quote, dollar sign or
 * comment in its text besides the placeholders, or a placeholder inside a quoted name (nothing may
 * be mistaken for a placeholder); a placeholder without a value. A quoted literal is typed from
 * where it stands, as a parameter is, so the statement means the same.
 */
export function withLiterals(query: CompiledQuery): string | null {
  const text = query.sql;
  if (/['$]|--|\/\*/.test(text.replace(/\$\d+/g, ""))) return null;
  // Quoted names, read pair by pair (no string literal is left to hide a quote in).
  if ((text.match(/"(?:[^"]|"")*"/g) ?? []).some((name) => /\$\d/.test(name))) return null;
  const literals: string[] = [];
  for (const value of query.parameters) {
    if (value === null) literals.push("null");
    else if (typeof value === "string" && !value.includes("\0")) literals.push(pg.escapeLiteral(value));
    else if (typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) literals.push(pg.escapeLiteral(String(value)));
    else return null;
  }
  let missing = false;
  const written = text.replace(/\$(\d+)/g, (_, n: string) => {
    const literal = literals[Number(n) - 1];
    if (literal === undefined) missing = true;
    return literal ?? "";
  });
  return missing ? null : written;
}

/**
 * node-postgres answers several statements sent as one simple query with a result each; Kysely
 * reads one. This client answers with the last statement's, the one whose answer was asked for
 * (`begin`, the mark and locks ride before it).
 */
class LastAnswerClient extends pg.Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the same overloads as pg's own query
  override query(...args: any[]): any {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const answer = (super.query as (...a: any[]) => unknown)(...args);
    return answer instanceof Promise ? answer.then((result: unknown) => (Array.isArray(result) ? result.at(-1) : result)) : answer;
  }
}

class SideBySideConnection implements DatabaseConnection {
  inTransaction = false;
  wroteInTransaction = false;
  /**
   * What the transaction has asked for but not sent yet — `begin`, the page-cache mark, locks —
   * all of it sent in one round trip just before the first statement that needs an answer.
   */
  pending: string[] | null = null;
  /** The scopes the transaction named, sent as a notice with its commit. */
  notice: ReadonlySet<string> | null = null;
  /** Writes held for the commit (writers.withCommit), in the order they were asked for. */
  withCommit: string[] = [];
  constructor(
    readonly inner: DatabaseConnection,
    private readonly counters: Counters,
    private readonly replicas: Replicas | null,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const write = isWrite(query);
    // A read on its own, in a request whose reads may go to a replica (replicas.server.ts).
    if (this.replicas && !write && !this.inTransaction) {
      const answered = await this.replicas.read<R>(query.sql, query.parameters);
      if (answered) return answered;
    }
    try {
      if (this.inTransaction && query.sql === NOTICE_SQL) {
        this.notice = new Set(query.parameters as string[]);
        return NO_ROWS;
      }
      if (this.inTransaction && WITH_COMMIT.has(query)) {
        const written = withLiterals(query);
        if (written !== null) {
          this.withCommit.push(written);
          this.wroteInTransaction = true;
          return NO_ROWS;
        }
      }
      let sent = query;
      if (this.pending) {
        // Statements whose answer nobody reads wait for the next one.
        if (query === MARK_SCOPED || (query.sql.startsWith(LOCK_PREFIX) && query.parameters.length === 0)) {
          this.pending.push(query.sql);
          return NO_ROWS;
        }
        // The first statement that needs an answer goes with them when its values can be written
        // into its text (the answer is its own: LastAnswerClient); otherwise after them.
        const written = withLiterals(query);
        if (written === null) await this.flush();
        else {
          sent = CompiledQuery.raw([...this.pending, written].join("; "));
          this.pending = null;
        }
      }
      const result = await this.inner.executeQuery<R>(sent);
      unavailableSince = null;
      if (write) {
        if (this.inTransaction) this.wroteInTransaction = true;
        else this.counters.localWrites += 1;
      }
      return result;
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  /** Sends what is pending (one simple query: no parameters, so several statements may go together). */
  async flush(): Promise<void> {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    await this.inner.executeQuery(CompiledQuery.raw(pending.join("; ")));
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    await this.flush();
    yield* this.inner.streamQuery<R>(query, chunkSize);
  }

  /** `commit`, with the notice of the scopes the transaction named in the same round trip. */
  commitSql(): string {
    const held = this.withCommit.map((statement) => `${statement}; `).join("");
    if (!this.notice) return `${held}commit`;
    const scopes = [...this.notice];
    let payload = JSON.stringify({ o: this.counters.origin, s: scopes } satisfies Notice);
    if (Buffer.byteLength(payload) > NOTICE_MAX_BYTES) payload = "*";
    return `${held}select pg_notify('${NOTICE_CHANNEL}', ${pg.escapeLiteral(payload)}); commit`;
  }

  reset(): void {
    this.inTransaction = false;
    this.pending = null;
    this.notice = null;
    this.withCommit = [];
  }
}

class SideBySideDriver implements Driver {
  readonly #inner: PostgresDriver;
  readonly #counters: Counters;
  readonly #replicas: Replicas | null;
  readonly #wrapped = new WeakMap<DatabaseConnection, SideBySideConnection>();
  constructor(pool: pg.Pool, counters: Counters, replicas: Replicas | null) {
    this.#inner = new PostgresDriver({ pool });
    this.#counters = counters;
    this.#replicas = replicas;
  }
  async init(): Promise<void> {
    await this.#inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    let inner: DatabaseConnection;
    try {
      inner = await countedAcquire(() => this.#inner.acquireConnection());
    } catch (error) {
      throw unavailableOr(error);
    }
    let connection = this.#wrapped.get(inner);
    if (!connection) {
      connection = new SideBySideConnection(inner, this.#counters, this.#replicas);
      this.#wrapped.set(inner, connection);
    }
    return connection;
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const own = connection as SideBySideConnection;
    own.reset();
    own.inTransaction = true;
    own.wroteInTransaction = false;
    if (!settings.isolationLevel && !settings.accessMode) {
      own.pending = ["begin"];
      return;
    }
    try {
      await this.#inner.beginTransaction(own.inner, settings);
    } catch (error) {
      own.reset();
      throw unavailableOr(error);
    }
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as SideBySideConnection;
    const notice = own.notice;
    try {
      // Nothing was sent (a mark or a lock at most): nothing to commit, unless writes wait for it.
      if (!own.pending) await own.inner.executeQuery(CompiledQuery.raw(own.commitSql()));
      else if (own.withCommit.length > 0) await own.inner.executeQuery(CompiledQuery.raw([...own.pending, own.commitSql()].join("; ")));
    } catch (error) {
      throw unavailableOr(error);
    } finally {
      own.reset();
    }
    if (own.wroteInTransaction) this.#counters.localWrites += 1;
    if (notice) this.#counters.recorded(notice);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as SideBySideConnection;
    try {
      if (!own.pending) await this.#inner.rollbackTransaction(own.inner);
    } catch (error) {
      throw unavailableOr(error);
    } finally {
      own.reset();
    }
  }
  async savepoint(...args: Parameters<NonNullable<Driver["savepoint"]>>): Promise<void> {
    const own = args[0] as SideBySideConnection;
    await own.flush();
    await this.#inner.savepoint(own.inner, args[1], args[2]);
  }
  async rollbackToSavepoint(...args: Parameters<NonNullable<Driver["rollbackToSavepoint"]>>): Promise<void> {
    await this.#inner.rollbackToSavepoint((args[0] as SideBySideConnection).inner, args[1], args[2]);
  }
  async releaseSavepoint(...args: Parameters<NonNullable<Driver["releaseSavepoint"]>>): Promise<void> {
    await this.#inner.releaseSavepoint((args[0] as SideBySideConnection).inner, args[1], args[2]);
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    connectionReleased();
    await this.#inner.releaseConnection((connection as SideBySideConnection).inner as Parameters<PostgresDriver["releaseConnection"]>[0]);
  }
  async destroy(): Promise<void> {
    await this.#inner.destroy();
  }
}

class SideBySideDialect implements Dialect {
  constructor(
    private readonly pool: pg.Pool,
    private readonly counters: Counters,
    private readonly replicas: Replicas | null,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new SideBySideDriver(this.pool, this.counters, this.replicas);
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
  /** This process committed a transaction that named `scopes` (its caches hear of it at once). */
  committed(scopes: ReadonlySet<string>): void;
  /** Connects once (refusing with DatabaseUnavailableError when the server cannot be reached). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  url: string;
  poolSize: number;
  /** Read replicas (DATABASE_REPLICA_URLS). */
  replicaUrls?: readonly string[];
  log?: (line: string) => void;
}

export function openPostgres({ url, poolSize, replicaUrls = [], log = (line) => logger.warn(line) }: PostgresOptions): OpenedPostgres {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30_000, types, Client: LastAnswerClient });
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
    origin: crypto.randomUUID(),
    localWrites: 0,
    recorded: (scopes) => scopeLog.add(scopes.has("*"), [...scopes]),
  };
  const replicas = replicaUrls.length > 0 ? new Replicas({ urls: replicaUrls, poolSize, primary: pool, types, log }) : null;
  const database = new Kysely<Database>({ dialect: new SideBySideDialect(pool, counters, replicas) });
  // Listening starts with the first question (the page cache's): scripts never listen.
  let notices: ReturnType<typeof listenForChanges> | null = null;
  const listening = () => (notices ??= listenForChanges(url, log, scopeLog, counters.origin));

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
        // Moves when the log grows: a scoped commit of this process (at once), or a notice from any server.
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
      await replicas?.close();
      await database.destroy();
    },
  };
}

/**
 * What this process learnt changed, in the order it learnt it: the scopes of its own scoped
 * commits (at once) and those of every other commit, as their notices arrive (in commit order).
 * Each page cache reads it from where it last stopped.
 */
class ScopeLog {
  /** Whether the listener is connected: until then nothing is known. */
  ready = false;
  /** The number of the last entry. */
  count = 0;
  readonly #entries: { n: number; all: boolean; scopes: readonly string[] }[] = [];
  static readonly KEPT = 4096;

  add(all: boolean, scopes: readonly string[]): void {
    if (!all && scopes.length === 0) return;
    this.count += 1;
    this.#entries.push({ n: this.count, all, scopes });
    if (this.#entries.length > ScopeLog.KEPT) this.#entries.shift();
  }

  /** A notice's payload: a scoped commit's `Notice` (skipped when it is this process's own), else everything. */
  heard(payload: string | undefined, origin: string): void {
    let notice: Notice | null = null;
    try {
      notice = payload && payload.startsWith("{") ? (JSON.parse(payload) as Notice) : null;
    } catch {
      notice = null;
    }
    if (!notice || !Array.isArray(notice.s)) return this.add(true, []);
    if (notice.o === origin) return;
    this.add(notice.s.includes("*"), notice.s.map(String));
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
 * One connection that LISTENs for the notices commits send (a scoped commit its scopes, with its
 * `commit`; any other write to a content table `*`, from the triggers of
 * migrations/20261129T0000-writers-side-by-side.ts), so this server's page cache hears the
 * others' writes. Reconnects with a growing pause when the connection is lost.
 */
function listenForChanges(url: string, log: (line: string) => void, scopes: ScopeLog, origin: string) {
  let heard = 0;
  let connected = false;
  let stopped = false;
  let unheard = 0;
  let client: pg.Client | null = null;
  let retryMs = 250;
  let timer: NodeJS.Timeout | null = null;

  const connect = async () => {
    if (stopped) return;
    const next = new pg.Client({ connectionString: url, types });
    client = next;
    next.on("notification", (message) => {
      if (next !== client || !scopes.ready) return;
      heard += 1;
      scopes.heard(message.payload, origin);
    });
    next.on("error", () => lost(next));
    next.on("end", () => lost(next));
    try {
      await next.connect();
      await next.query(`listen ${NOTICE_CHANNEL}`);
      if (stopped) return void next.end().catch(() => undefined);
      // What came before is either in no kept page yet (the first connection) or unheard (a
      // lost one), so everything counts as changed.
      scopes.add(true, []);
      scopes.ready = true;
      connected = true;
      heard += 1;
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

  writers: {
    // One sequence per table (owned by its seq column): numbers in the order they were taken, not
    // the order of the commits; nothing reads them as more than an order.
    nextSeq: (table) => sql<number>`nextval(${`${table}_seq_seq`}::regclass)`,
    // Transaction-scoped advisory locks on a 64-bit hash of each key, taken in one statement and
    // in one order (the hashes sorted), so two holders of the same keys cannot deadlock.
    async lock(trx, keys, mode = "exclusive") {
      if (keys.length === 0) return;
      const list = keys.map((key) => pg.escapeLiteral(key)).join(", ");
      const take = mode === "shared" ? `${LOCK_PREFIX}_shared(h)` : `${LOCK_PREFIX}(h)`;
      await trx.executeQuery(CompiledQuery.raw(`${take} from (select distinct hashtextextended(k, 0) as h from unnest(array[${list}]::text[]) as k order by 1) as keys`));
    },
    // FOR NO KEY UPDATE: another writer of these rows waits, a row that refers to them (a like of a
    // post, a session of a user) does not; FOR UPDATE when they are about to be deleted.
    forUpdate: (query, options) => (options?.deleting ? query.forUpdate() : query.forNoKeyUpdate()) as typeof query,
    // Held by the connection and sent with `commit` (SideBySideConnection): one round trip fewer.
    async withCommit(database, query) {
      WITH_COMMIT.add(query);
      await database.executeQuery(query);
    },
  },

  pageCache: {
    async mark(trx) {
      await trx.executeQuery(MARK_SCOPED);
    },
    // Kept by the connection and sent with `commit` (SideBySideConnection): one round trip fewer.
    async record(trx, scopes) {
      await trx.executeQuery(CompiledQuery.raw(NOTICE_SQL, [...scopes]));
    },
  },
};
