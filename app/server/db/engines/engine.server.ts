import { CompiledQuery, type Kysely, type QueryResult, type RawBuilder, type SqlBool } from "kysely";

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

  /** A write transaction's side of the page-cache seam (cache/scopes.server.ts, `changing`). */
  readonly pageCache: {
    /** First in the transaction: its writes name their scopes, so the content tables' triggers leave `*` alone. */
    mark(trx: DB): Promise<void>;
    /** Last in the transaction: records `scopes` as changed by it (and ends the mark); the commit's number. */
    record(trx: DB, scopes: ReadonlySet<string>): Promise<number>;
  };
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

/** The commit number a recordScopesQuery answered. */
export function recordedVersion(result: QueryResult<unknown>): number {
  return Math.max(0, ...(result.rows as { version: number }[]).map((row) => Number(row.version)));
}

/** The statement that records `scopes` as changed by the transaction it runs in (one number per commit). */
export function recordScopesQuery(engine: EngineName, scopes: ReadonlySet<string>): CompiledQuery {
  const list = [...scopes];
  return engine === "postgres"
    ? CompiledQuery.raw(
        `insert into cache_versions (scope, version)
           select s, m.v from unnest($1::text[]) as s, (select coalesce(max(version), 0) + 1 as v from cache_versions) as m
           on conflict (scope) do update set version = excluded.version
           returning version`,
        [list],
      )
    : CompiledQuery.raw(
        `insert into cache_versions (scope, version)
           select value, (select coalesce(max(version), 0) + 1 from cache_versions) from json_each(?) where true
           on conflict (scope) do update set version = excluded.version
           returning version`,
        [JSON.stringify(list)],
      );
}
