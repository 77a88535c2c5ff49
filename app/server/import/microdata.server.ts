import { LINE_BREAKS, scanHtml, TextStack, type HtmlElement } from "./html.server";

// Reading a schema.org Recipe written as microdata (itemscope, itemtype, itemprop) instead of
// JSON-LD. The Recipe item is turned into the same kind of node JSON-LD gives, so
// draftFromRecipeNode (draft.server.ts) reads both alike (docs/rules.md#import-by-link).

/** One microdata item: its types and its properties' values, in page order. */
interface Item {
  types: string[];
  properties: Map<string, Value[]>;
  /** The item element's own text, for a step written as `<li itemscope itemtype=HowToStep>Mix.</li>`. */
  text: string;
}

type Value = string | Item;

// A hostile page may hold a million items or values: reading stops adding past these, which are far
// above what the editor keeps (200 ingredients, 100 steps, 3 tags).
const MAX_ITEMS = 2_000;
const MAX_VALUES = 1_000;
const MAX_PROPERTY_NAMES = 100;
/** Characters kept of one text value; a step may hold 2,000, and a little more tells it was cut. */
const MAX_TEXT = 20_000;

/** Elements whose value is an address in an attribute (the microdata rules), and which attribute. */
const URL_ATTRIBUTE: Record<string, string> = {
  a: "href",
  area: "href",
  link: "href",
  img: "src",
  audio: "src",
  embed: "src",
  iframe: "src",
  source: "src",
  track: "src",
  video: "src",
  object: "data",
};

/** "name", "http://schema.org/name" and "https://schema.org/Recipe/name" all mean "name". */
function shortName(value: string): string {
  const slash = value.lastIndexOf("/");
  return slash >= 0 && /^https?:\/\//i.test(value) ? value.slice(slash + 1) : value;
}

function tokens(value: string | undefined): string[] {
  return value ? value.split(/[\t\n\f\r ]+/).filter(Boolean) : [];
}

/** A value given by the element's attributes, or null when the value is its text. */
function attributeValue(element: HtmlElement): string | null {
  const { name, attributes } = element;
  // `content` is meant for <meta>, but pages put it on <span> and <div> too (a time as PT30M).
  const content = attributes.get("content");
  if (content !== undefined) return content;
  const urlAttribute = URL_ATTRIBUTE[name];
  if (urlAttribute) {
    const url = attributes.get(urlAttribute) ?? "";
    // Lazy-loaded pictures keep the address in data-src until a script moves it.
    return name === "img" && url.trim() === "" ? (attributes.get("data-src") ?? "") : url;
  }
  if (name === "meta") return "";
  if (name === "data" || name === "meter") return attributes.get("value") ?? "";
  if (name === "time") return attributes.get("datetime") ?? null;
  return null;
}

function isRecipe(item: Item): boolean {
  return item.types.some((type) => /^(?:https?:\/\/schema\.org\/)?recipe$/i.test(type));
}

interface Frame {
  element: HtmlElement;
  /** The item this element starts (itemscope), if any. */
  item: Item | null;
  /** Property names this element's value goes to, and the item they belong to. */
  names: string[];
  owner: Item | null;
  /** Whether this element started a text frame (its text is its value, or its item's text). */
  collects: boolean;
}

/** The items on a page, in the order they start; at most MAX_ITEMS. */
function readItems(html: string): Item[] {
  const items: Item[] = [];
  const frames: Frame[] = [];
  const scopes: Item[] = [];
  const texts = new TextStack(MAX_TEXT);

  const addValue = (owner: Item, names: string[], value: Value) => {
    for (const name of names) {
      let values = owner.properties.get(name);
      if (!values) {
        if (owner.properties.size >= MAX_PROPERTY_NAMES) continue;
        values = [];
        owner.properties.set(name, values);
      }
      if (values.length < MAX_VALUES) values.push(value);
    }
  };

  scanHtml(html, {
    open(element) {
      const owner = scopes[scopes.length - 1] ?? null;
      const names = owner ? tokens(element.attributes.get("itemprop")).map(shortName) : [];
      const frame: Frame = { element, item: null, names, owner, collects: false };
      if (element.attributes.has("itemscope")) {
        // An item nested in a property is that property's value; otherwise it stands on its own.
        const item: Item = { types: tokens(element.attributes.get("itemtype")), properties: new Map(), text: "" };
        if (items.length < MAX_ITEMS) items.push(item);
        if (owner && names.length > 0) addValue(owner, names, item);
        frame.item = item;
        scopes.push(item);
        frame.collects = names.length > 0 && texts.begin();
      } else if (names.length > 0) {
        const value = attributeValue(element);
        if (value !== null) addValue(owner!, names, value);
        else frame.collects = texts.begin();
      }
      if (element.name === "br") texts.add("\n");
      frames.push(frame);
    },
    close(element) {
      const frame = frames.pop();
      if (!frame) return;
      if (LINE_BREAKS.has(element.name) && element.name !== "br") texts.add("\n");
      if (frame.item) scopes.pop();
      if (!frame.collects) return;
      const text = texts.end(true);
      if (frame.item) frame.item.text = text;
      else addValue(frame.owner!, frame.names, text);
    },
    text(raw) {
      if (texts.depth > 0) texts.add(raw);
    },
  });
  return items;
}

const first = (item: Item, name: string): Value | undefined => item.properties.get(name)?.[0];

/** The first non-blank text value (a `<meta itemprop="name">` without content gives a blank one). */
function firstText(item: Item, name: string): string | undefined {
  const value = item.properties.get(name)?.find((entry) => typeof entry === "string" && entry.trim() !== "");
  return typeof value === "string" ? value : undefined;
}

function textList(item: Item, ...names: string[]): string[] | undefined {
  for (const name of names) {
    const values = item.properties.get(name);
    if (values) return values.map((value) => (typeof value === "string" ? value : (firstText(value, "name") ?? value.text)));
  }
  return undefined;
}

/** A step, a section of steps, or plain text, in the shapes draft.server.ts reads from JSON-LD. */
function instructionNode(value: Value, depth: number): unknown {
  if (typeof value === "string") return value;
  if (depth > 6) return undefined;
  const children = ["itemListElement", "step", "steps"].flatMap((name) => value.properties.get(name) ?? []);
  const text = firstText(value, "text");
  const name = firstText(value, "name");
  const description = firstText(value, "description");
  return {
    "@type": value.types.map(shortName),
    text: text ?? (children.length === 0 && name === undefined && description === undefined ? value.text : undefined),
    name,
    description,
    itemListElement: children.length > 0 ? children.map((child) => instructionNode(child, depth + 1)) : undefined,
  };
}

function imageNode(value: Value): unknown {
  if (typeof value === "string") return value;
  const url = first(value, "url") ?? first(value, "contentUrl");
  return typeof url === "string" ? url : undefined;
}

/** The first schema.org Recipe item written as microdata, as a JSON-LD-like node, or null. */
export function findRecipeMicrodata(html: string): Record<string, unknown> | null {
  const recipe = readItems(html).find(isRecipe);
  if (!recipe) return null;
  return {
    "@type": "Recipe",
    name: firstText(recipe, "name"),
    headline: firstText(recipe, "headline"),
    description: firstText(recipe, "description"),
    recipeIngredient: textList(recipe, "recipeIngredient"),
    ingredients: textList(recipe, "ingredients"),
    recipeInstructions: recipe.properties.get("recipeInstructions")?.map((value) => instructionNode(value, 0)),
    recipeYield: textList(recipe, "recipeYield", "yield"),
    totalTime: firstText(recipe, "totalTime"),
    prepTime: firstText(recipe, "prepTime"),
    cookTime: firstText(recipe, "cookTime"),
    keywords: textList(recipe, "keywords"),
    recipeCategory: textList(recipe, "recipeCategory"),
    recipeCuisine: textList(recipe, "recipeCuisine"),
    image: recipe.properties.get("image")?.map(imageNode),
  };
}
