import type { Kysely, RawBuilder, SqlBool } from "kysely";

import type { Database } from "../db-types.server";

// What differs between the two database engines, in one small interface (docs/scaling.md).
// Query modules ask `engineOf(database)` (db.server.ts) for these pieces and never test which
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
}

/** A LIKE pattern matching `text` literally (`\` escapes the wildcards). */
export function likePattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
