import type { RecipesFeedData } from "../queries/recipe-feed.server";

// Atom (RFC 4287) for a user's recipes. Built as text: the shape is small and fixed, and every
// piece of user text goes through `xml()`, which escapes markup and drops the characters XML 1.0
// does not allow at all (control characters, lone surrogates).

const NOT_XML_CHAR = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xml(text: string): string {
  return text
    .replace(NOT_XML_CHAR, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** RFC 3339 for Atom's date elements: a stored date (YYYY-MM-DD) or timestamp, else `fallback`. */
function rfc3339(value: string | null | undefined, fallback: string): string {
  if (value && /^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00Z`;
  const time = value ? Date.parse(value) : NaN;
  return Number.isNaN(time) ? fallback : new Date(time).toISOString();
}

export interface AtomUrls {
  /** The feed's own absolute URL (also its id). */
  self: string;
  /** The user's profile page. */
  profile: string;
  recipe: (recipeId: string) => string;
  absolute: (pathOrUrl: string) => string;
}

export function renderRecipesAtom({ user, recipes }: RecipesFeedData, urls: AtomUrls): string {
  const userDate = rfc3339(user.created_at, "1970-01-01T00:00:00Z");
  const entries = recipes.map((recipe) => {
    const url = urls.recipe(recipe.recipe_id);
    const updated = rfc3339(recipe.created_at, userDate);
    const photo = recipe.photo ? urls.absolute(recipe.photo) : null;
    // HTML for readers that show it: escaped once as HTML, then once more as XML text.
    const html = `${photo ? `<p><img src="${xml(photo)}" alt="${xml(recipe.name)}" width="400"></p>` : ""}<p>${xml(recipe.description)}</p>`;
    return [
      "  <entry>",
      `    <id>${xml(url)}</id>`,
      `    <title type="text">${xml(recipe.name)}</title>`,
      `    <link rel="alternate" type="text/html" href="${xml(url)}"/>`,
      `    <updated>${updated}</updated>`,
      recipe.created_at ? `    <published>${updated}</published>` : null,
      `    <summary type="text">${xml(recipe.description)}</summary>`,
      `    <content type="html">${xml(html)}</content>`,
      "  </entry>",
    ]
      .filter((line) => line !== null)
      .join("\n");
  });
  // The feed changed when its newest entry did (or, empty, when the account was made).
  const entryDates = recipes.map((recipe) => rfc3339(recipe.created_at, userDate));
  const updated = entryDates.length === 0 ? userDate : entryDates.reduce((latest, date) => (Date.parse(date) > Date.parse(latest) ? date : latest));
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xml(urls.self)}</id>`,
    `  <title type="text">${xml(`${user.username}'s recipes · ReciPals`)}</title>`,
    `  <updated>${updated}</updated>`,
    `  <author><name>${xml(user.username)}</name><uri>${xml(urls.profile)}</uri></author>`,
    `  <link rel="self" type="application/atom+xml" href="${xml(urls.self)}"/>`,
    `  <link rel="alternate" type="text/html" href="${xml(urls.profile)}"/>`,
    `  <icon>${xml(urls.absolute("/favicon.svg"))}</icon>`,
    "  <generator>ReciPals</generator>",
    ...entries,
    "</feed>",
    "",
  ].join("\n");
}
