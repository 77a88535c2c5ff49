import { RATE_LIMITS } from "../auth/limits.server";

// What can go wrong with an import by link, and what the user is told.

export type ImportProblem =
  | "invalid-link"
  | "refused"
  | "timeout"
  | "too-large"
  | "no-recipe"
  | "too-many-redirects"
  | "http-status"
  | "unreachable"
  | "rate-limited";

export const IMPORT_MESSAGES = {
  refused: "That link points to a private or local network address, which cannot be imported.",
  timeout: (ms: number) => `The page took too long to answer (more than ${formatSeconds(ms)}).`,
  tooLarge: (bytes: number) => `The page is too large to import (more than ${formatMegabytes(bytes)}).`,
  noRecipe: "No recipe was found on that page: it has no schema.org Recipe data to import.",
  /** A note, not a refusal: the draft is a guess from the page's title and lists. */
  guessed: "This page has no recipe data; we guessed the name, ingredients and steps from its lists. Check them before saving.",
  tooManyRedirects: "The link redirects too many times.",
  redirectNotHttp: "The link redirects to an address that is not http:// or https://.",
  httpStatus: (status: number) => `The page could not be loaded (it answered with HTTP status ${status}).`,
  unknownHost: "The page could not be reached: no such host.",
  unreachable: "The page could not be reached.",
  rateLimited: (minutes: number) =>
    `You have imported ${RATE_LIMITS.importByLink.limit} recipes in a short while. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
} as const;

const STATUS_OF: Record<ImportProblem, number> = {
  "invalid-link": 400,
  refused: 400,
  timeout: 504,
  "too-large": 413,
  "no-recipe": 422,
  "too-many-redirects": 502,
  "http-status": 502,
  unreachable: 502,
  "rate-limited": 429,
};

/** A refused or failed import; `message` is meant for the user, `status` for the answer. */
export class ImportError extends Error {
  readonly problem: ImportProblem;
  readonly status: number;
  constructor(problem: ImportProblem, message: string) {
    super(message);
    this.name = "ImportError";
    this.problem = problem;
    this.status = STATUS_OF[problem];
  }
}

function formatSeconds(ms: number): string {
  const seconds = Math.round(ms / 100) / 10;
  return seconds === 1 ? "1 second" : `${seconds} seconds`;
}

export function formatMegabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
}
