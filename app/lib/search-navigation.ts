import { paths } from "./paths";

/**
 * A new query of the Search page (typing, Back, Forward) changes nothing the layout routes show:
 * they keep their data (their `shouldRevalidate`), and only the Search page's loader runs.
 */
export function onlySearchChanged({ currentUrl, nextUrl, formMethod }: { currentUrl: URL; nextUrl: URL; formMethod?: string }): boolean {
  // The search box submits a GET form: a navigation all the same (a POST is a write).
  const reading = !formMethod || formMethod.toUpperCase() === "GET";
  // The same address again is a revalidation (a tab shown again, after a write): the layout reloads.
  return reading && currentUrl.pathname === paths.search() && nextUrl.pathname === paths.search() && currentUrl.search !== nextUrl.search;
}

/** The messages (docs/rules.md#search-screen) for the search screen's alert box. */
export const SEARCH_MESSAGES = {
  failed: "Search failed",
  list: "Failed to fetch recipes",
  recipes: "Failed to search recipes",
} as const;
