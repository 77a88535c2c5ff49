import type { CompiledQuery, Kysely, RawBuilder, SelectQueryBuilder, SqlBool } from "kysely";

import type { Database } from "../schema.server";

// What differs between the two database engines, in one small interface (docs/scaling.md).
// Query modules ask `engineOf(database)` (db/connection.server.ts) for these pieces and never test which
// engine they run on; each engine's file holds its side of every piece.

export type DB = Kysely<Database>;
export type EngineName = "sqlite" | "postgres";

/** A recipe query as search understands it: the words, and whether the last may still be typed. */
export interface RecipeQuery {
  terms: string[];
  stillTyping: boolean;
}

/** Where a recipe tier looks: matches in the name, or matches anywhere but not in the name. */
export type RecipeScope = "name" | "elsewhere";

export interface Engine {
  readonly name: EngineName;

  /** `column = value` ignoring letter case (usernames are one person whatever their case). */
  equalsIgnoringCase(column: string, value: string): RawBuilder<SqlBool>;

  /**
   * `column LIKE pattern` ignoring letter case, with `\` escaping `%`, `_` and `\` in the
   * pattern (likePattern builds such patterns from typed text).
   */
  likeIgnoringCase(column: string, pattern: string): RawBuilder<SqlBool>;

  /** Full-text recipe search (the tables of migrations/20261121T0100-search.ts). */
  readonly recipeSearch: {
    /** How many recipes match in `scope` (stopping at `upTo`). */
    count(database: DB, query: RecipeQuery, scope: RecipeScope, upTo?: number): Promise<number>;
    /** Seqs of matches in `scope`, best first (`byScore`) or newest first, skipping `exclude`. */
    ranked(
      database: DB,
      query: RecipeQuery,
      scope: RecipeScope,
      page: { offset: number; limit: number; exclude: number[]; byScore: boolean },
    ): Promise<number[]>;
    /** Recipes whose name holds every word, in insertion order (candidates for an exact-name match). */
    nameCandidates(database: DB, terms: string[], limit: number): Promise<{ seq: number; name: string }[]>;
  };

  /** Users whose username or name contains each of `terms` (each at least 3 characters), ignoring case. */
  peopleContaining(terms: string[]): RawBuilder<SqlBool>;

  /**
   * How writers that read before they write meet (docs/scaling.md, "How writers meet"). On SQLite
   * writers take turns (the file's write lock), so locks are no-ops and `max(seq) + 1` is safe;
   * PostgreSQL runs independent writers side by side and each rule takes the narrowest tool.
   */
  readonly writers: {
    /** The next insertion-order number of `table` (an expression evaluated inside the insert). */
    nextSeq(table: SeqTable, userId?: string): RawBuilder<number>;
    /**
     * Holds `keys` until the transaction ends: a rule with no row to lock (a throttle's count, a
     * pair of people). `shared` holders go side by side and wait only for an exclusive one.
     */
    lock(trx: DB, keys: readonly string[], mode?: "exclusive" | "shared"): Promise<void>;
    /**
     * `query` locking the rows it reads until the transaction ends: another writer of them waits;
     * inserting a row that refers to them (a like of a post, a session of a user) does not, unless
     * `deleting` (the rows are about to go: what refers to them waits, and fails once they are gone).
     */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any select, whatever its tables
    forUpdate<QB extends SelectQueryBuilder<any, any, any>>(query: QB, options?: { deleting?: boolean }): QB;
    /**
     * A write whose answer nobody reads (a notification), in a transaction: PostgreSQL sends it with
     * the commit, one round trip fewer (an error in it fails the commit, so the whole write); SQLite
     * runs it at once. Outside a transaction it runs at once everywhere.
     */
    withCommit(database: DB, query: CompiledQuery): Promise<void>;
  };

  /** A write transaction's side of the page-cache seam (cache/scopes.server.ts, `changing`). */
  readonly pageCache: {
    /** First in the transaction: its writes name their scopes, so the content tables' triggers leave `*` alone. */
    mark(trx: DB): Promise<void>;
    /** Last in the transaction: records `scopes` as changed by it (and ends the mark). */
    record(trx: DB, scopes: ReadonlySet<string>): Promise<void>;
  };
}

/** Tables numbered by a `seq` column; notifications and shopping lists number per person on SQLite. */
export type SeqTable = "users" | "recipes" | "posts" | "comments" | "saved_recipes" | "reports" | "moderation_log" | "notifications" | "shopping_recipes" | "cooks";

/**
 * A unique index refused the row (a second writer got there first): each engine's code for it.
 * `index` narrows it to one index (PostgreSQL names it; SQLite names its table and columns, so there
 * any unique refusal of the statement counts).
 */
export function isUniqueViolation(error: unknown, index?: string): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  if (code === "23505") return index === undefined || constraint === index;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/** A LIKE pattern matching `text` literally (`\` escapes the wildcards). */
export function likePattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Reads are the queries that start with select (or with … select); every other statement writes. */
export function isWrite(query: CompiledQuery): boolean {
  const kind = query.query.kind;
  if (kind === "SelectQueryNode") return false;
  if (kind === "RawNode") return !/^\s*(select|with|show|explain)\b/i.test(query.sql) || /^\s*with\b[\s\S]*\b(insert|update|delete)\b/i.test(query.sql);
  return true;
}

// ---------------------------------------------------------------------------------------------
// What changed, for the shared page cache (migrations/20261125T0000-cache-scopes.ts,
// app/server/cache/scopes.server.ts): each engine records the scopes a transaction names inside it, and
// reads back which scopes moved.

/** Scopes changed since the last look; `all` when everything may have changed. */
export interface ScopeChanges {
  all: boolean;
  scopes: string[];
}

/** One page cache's view of the changes (each cache has its own, with its own last look). */
export interface ChangeFeed {
  /** Moves whenever `changes()` may have something new; read on every request, so it costs next to nothing. */
  version(): string;
  /** What changed since the previous call; null while that cannot be told (nothing may be answered from memory). */
  changes(): ScopeChanges | null;
}
