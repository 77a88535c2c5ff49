import { RECIPE_LIMITS } from "~/lib/recipe-form";

import { LINE_BREAKS, scanHtml, TextStack, type HtmlElement } from "./html.server";
import { cleanText } from "./text.server";

// A guess for a page with no recipe data at all (docs/rules.md#import-by-link): the page's title as
// the name, its biggest list as the ingredients, its longest numbered list as the steps. The
// guess is shaped like a JSON-LD Recipe node so draft.server.ts cuts it to the editor's limits like
// any import; the user is told it is a guess to check.

/** Characters kept of one list item: a step may hold 2,000; a little more tells it was cut. */
const MAX_ITEM_TEXT = 4_000;
/** Items kept per list: one more than the editor keeps tells that some were dropped. */
const MAX_KEPT_ITEMS = Math.max(RECIPE_LIMITS.lines, RECIPE_LIMITS.steps) + 1;
/** Fewer items than this is not a list of ingredients. */
const MIN_INGREDIENTS = 2;

/** Parts of a page that hold menus and links, not the recipe: their lists are not candidates. */
const CHROME = new Set(["nav", "header", "footer", "aside", "menu"]);

interface List {
  ordered: boolean;
  /** The non-blank item texts, the first MAX_KEPT_ITEMS of them. */
  items: string[];
  /** All non-blank items, kept or not. */
  count: number;
  /** Characters of text in all its items. */
  length: number;
}

interface PageOutline {
  ogTitle: string;
  ogImage: string;
  h1: string;
  title: string;
  lists: List[];
}

function metaProperty(element: HtmlElement): string {
  return (element.attributes.get("property") ?? element.attributes.get("name") ?? "").trim().toLowerCase();
}

function readOutline(html: string): PageOutline {
  const outline: PageOutline = { ogTitle: "", ogImage: "", h1: "", title: "", lists: [] };
  const lists: (List | null)[] = []; // open lists, innermost last; null for one that does not count
  let chrome = 0;
  let svg = 0; // an icon's <title> is not the page's
  // What each open element is read for: the first <h1> and <title>, each item of a list that
  // counts, or a list inside an item (its text is its own, not the item's).
  type Reading = "h1" | "title" | "item" | "sub-list" | null;
  const reading: Reading[] = [];
  const texts = new TextStack(MAX_ITEM_TEXT);

  scanHtml(html, {
    open(element) {
      const { name } = element;
      let what: Reading = null;
      if (CHROME.has(name)) chrome += 1;
      if (name === "svg") svg += 1;
      if (name === "meta") {
        const property = metaProperty(element);
        const content = element.attributes.get("content") ?? "";
        if (property === "og:title" && !outline.ogTitle) outline.ogTitle = cleanText(content);
        if ((property === "og:image" || property === "og:image:url") && !outline.ogImage) outline.ogImage = content.trim();
      } else if (name === "ul" || name === "ol") {
        const list: List | null = chrome > 0 ? null : { ordered: name === "ol", items: [], count: 0, length: 0 };
        if (list) outline.lists.push(list);
        lists.push(list);
        if (texts.depth > 0) what = "sub-list";
      } else if (name === "li" && lists[lists.length - 1]) what = "item";
      else if (name === "h1" && !outline.h1) what = "h1";
      else if (name === "title" && !outline.title && svg === 0) what = "title";
      reading.push(what && texts.begin() ? what : null);
      if (name === "br") texts.add(" ");
    },
    close(element) {
      const { name } = element;
      if (CHROME.has(name)) chrome -= 1;
      if (name === "svg") svg -= 1;
      if (name === "ul" || name === "ol") lists.pop();
      if (LINE_BREAKS.has(name)) texts.add(" ");
      const what = reading.pop();
      if (!what) return;
      // Nothing passes its text on: an item's text is its own, a heading is read for the name.
      const text = cleanText(texts.end(false));
      if (what === "h1") outline.h1 = text;
      else if (what === "title") outline.title = text;
      else if (what === "item") {
        const list = lists[lists.length - 1];
        if (!list || text === "") return;
        list.count += 1;
        list.length += text.length;
        if (list.items.length < MAX_KEPT_ITEMS) list.items.push(text);
      }
    },
    text(raw) {
      if (texts.depth > 0) texts.add(raw);
    },
  });
  return outline;
}

/**
 * A guessed Recipe node for a page with no recipe data, or null when the page has no list of at
 * least MIN_INGREDIENTS items (nothing worth correcting: the import is refused as before).
 */
export function guessRecipeFromPage(html: string): Record<string, unknown> | null {
  const outline = readOutline(html);
  let ingredients: List | null = null;
  for (const list of outline.lists) if (list.count > (ingredients?.count ?? 0)) ingredients = list;
  if (!ingredients || ingredients.count < MIN_INGREDIENTS) return null;
  let steps: List | null = null;
  for (const list of outline.lists) {
    if (list === ingredients || !list.ordered || list.count === 0) continue;
    if (list.length > (steps?.length ?? 0)) steps = list;
  }
  return {
    "@type": "Recipe",
    name: outline.ogTitle || outline.h1 || outline.title,
    recipeIngredient: ingredients.items,
    recipeInstructions: steps ? steps.items : undefined,
    image: outline.ogImage || undefined,
  };
}
