// The share tags and schema.org data, for loaders that make them (a recipe's): imported through
// this server-only module, the browser's copy of the route carries no ~/lib/structured-data (the
// bundler still loaded it there, for a route that used it only in its loader).
export { absoluteUrl, recipeJsonLd, shareMeta } from "~/lib/structured-data";
