import crypto from "node:crypto";

import { z } from "zod";

import { MAX_QUERY_LENGTH } from "~/lib/limits";

import { queryText } from "../http/body.server";

// The Search page's query string (`?q=&page=&seed=`). Search never refuses input: anything odd
// falls back to a sensible value, and the words themselves are made safe by the query module.

const MAX_PAGE = 10_000;
const MAX_SEED = 2_147_483_647;

/** A fresh seed for the random order of an empty search (sent back in `Load more` links). */
export function randomSeed(): number {
  return crypto.randomInt(1, MAX_SEED);
}

const SearchParamsSchema = z.object({
  // Longer text is cut: only the first words are searched anyway (see searchTerms).
  q: z
    .string()
    .catch("")
    .transform((q) => [...q.trim()].slice(0, MAX_QUERY_LENGTH).join("")),
  page: z.coerce.number().int().min(1).max(MAX_PAGE).catch(1),
  seed: z.coerce.number().int().min(1).max(MAX_SEED).optional().catch(undefined),
});

export interface SearchParams {
  q: string;
  page: number;
  seed: number;
}

export function parseSearchParams(searchParams: URLSearchParams): SearchParams {
  const parsed = SearchParamsSchema.parse({
    q: queryText(searchParams, "q"),
    page: searchParams.get("page") ?? undefined,
    seed: searchParams.get("seed") || undefined,
  });
  return { q: parsed.q, page: parsed.page, seed: parsed.seed ?? randomSeed() };
}
