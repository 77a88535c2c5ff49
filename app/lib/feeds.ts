import { BASE } from "./paths";

// Atom feeds of a user's recipes (docs/rules.md#atom-feeds). The URL sits outside /ReciPals/Account/, which
// needs sign-in (docs/rules.md#pages-that-need-sign-in): feed readers never sign in, and a feed holds only what recipe pages
// already show to every visitor (recipe names, descriptions, photos and the creator's username).

export function recipesFeedPath(uid: string): string {
  return `${BASE}/Users/${encodeURIComponent(uid)}/recipes.atom`;
}

/**
 * The `<link rel="alternate">` for a page's <head>, as a `meta` descriptor: Remix's `links`
 * export cannot see the route's params or data, and the feed's URL depends on the user.
 */
export function recipesFeedLink(href: string, username: string) {
  return { tagName: "link", rel: "alternate", type: "application/atom+xml", href, title: `${username}'s recipes on ReciPals` };
}
