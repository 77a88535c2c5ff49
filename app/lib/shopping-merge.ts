// A shopping list made from the (already scaled) ingredient lines of several recipes: lines that
// name the same thing in compatible units are added up, everything else is shown as written.
//
// Lines follow the sample data: the quantity sits in the last bracket — "Flour (200g)",
// "Eggs (3)", "Garlic (2 cloves chopped)", "Salt (pinch)", "Tomatoes (1 x 400g tin)". A line this
// module cannot read with confidence (no bracket, a range, "to taste", nested brackets, unknown
// words) is never guessed at: it goes to `unmerged`, under its recipe, exactly as written.
//
// Display format: a merged item reads like a stored line, "<name> (<quantity>)" — "Eggs (5)",
// "Flour (700 g)", "Beef (1.2 kg)", "Salt (2 pinches)", "Tomatoes (3 x 400g tin)". It matches what
// the recipe page shows, and the text can be read back by `parseShoppingLine`.
//
// Every expression here reads at most one bracket of a line capped at MAX_LINE characters, and
// none has nested or overlapping quantifiers, so the work stays linear in the line's length.

import { formatQuantity, scaleIngredientLine } from "./servings";

/** Longer lines are shown as written: stored lines are at most 500 characters. */
export const MAX_LINE = 500;

export type UnitKind = "mass" | "volume" | "count" | "word" | "pack";

export interface ParsedLine {
  /** The text before the last bracket, trimmed, as written. */
  name: string;
  /** The name reduced for matching ("Eggs" and "egg" both give "egg"); a stem, not a word. */
  key: string;
  /** The amount in `unit`: grams, millilitres, a count, or a count of the word unit. */
  quantity: number;
  /** "g", "ml", "count", a word unit ("clove", "pinch", "large", "small tin") or a pack ("400g tin"). */
  unit: string;
  kind: UnitKind;
  /** The unit as the line spelled it, in one spelling ("lb", "tbsp", "cup", "g"): picks the display. */
  writtenUnit: string;
}

export interface ShoppingInputItem {
  id: string;
  recipeId: string;
  recipeName: string;
  /** The line as stored, already scaled to the servings the user chose. */
  text: string;
  checked: boolean;
}

export interface MergedItem {
  key: string;
  name: string;
  quantityText: string;
  /** The full display text: "<name> (<quantityText>)". */
  text: string;
  /** The total in the canonical `unit` (grams, millilitres, a count): what tests and sums compare. */
  amount: number;
  unit: string;
  itemIds: string[];
  recipeIds: string[];
  /** True only when every merged input is checked. */
  checked: boolean;
}

export interface UnmergedGroup {
  recipeId: string;
  recipeName: string;
  items: ShoppingInputItem[];
}

export interface ShoppingList {
  byItem: MergedItem[];
  unmerged: UnmergedGroup[];
}

// ---------------------------------------------------------------------------------------------
// Units

interface Measure {
  kind: "mass" | "volume";
  unit: string;
  /** Grams or millilitres in one of this unit. */
  size: number;
  metric: boolean;
}

// US legal cup (240 ml) and its eighth (30 ml) keep spoon and cup sums exact: 1 cup = 16 tbsp = 48 tsp.
const GRAM: Measure = { kind: "mass", unit: "g", size: 1, metric: true };
const KILOGRAM: Measure = { kind: "mass", unit: "kg", size: 1000, metric: true };
const OUNCE: Measure = { kind: "mass", unit: "oz", size: 28.349523125, metric: false };
const POUND: Measure = { kind: "mass", unit: "lb", size: 453.59237, metric: false };
const MILLILITRE: Measure = { kind: "volume", unit: "ml", size: 1, metric: true };
const LITRE: Measure = { kind: "volume", unit: "l", size: 1000, metric: true };
const TEASPOON: Measure = { kind: "volume", unit: "tsp", size: 5, metric: false };
const TABLESPOON: Measure = { kind: "volume", unit: "tbsp", size: 15, metric: false };
const CUP: Measure = { kind: "volume", unit: "cup", size: 240, metric: false };
const FLUID_OUNCE: Measure = { kind: "volume", unit: "fl oz", size: 30, metric: false };

// Maps, not object literals: a line's words ("constructor", "__proto__") must never find Object's own keys.
const MEASURES = new Map<string, Measure>(Object.entries({
  g: GRAM, gram: GRAM, grams: GRAM, gramme: GRAM, grammes: GRAM,
  kg: KILOGRAM, kgs: KILOGRAM, kilo: KILOGRAM, kilos: KILOGRAM, kilogram: KILOGRAM, kilograms: KILOGRAM,
  oz: OUNCE, ounce: OUNCE, ounces: OUNCE,
  lb: POUND, lbs: POUND, pound: POUND, pounds: POUND,
  ml: MILLILITRE, mls: MILLILITRE, millilitre: MILLILITRE, millilitres: MILLILITRE, milliliter: MILLILITRE, milliliters: MILLILITRE,
  l: LITRE, litre: LITRE, litres: LITRE, liter: LITRE, liters: LITRE, ltr: LITRE,
  tsp: TEASPOON, tsps: TEASPOON, teaspoon: TEASPOON, teaspoons: TEASPOON,
  tbsp: TABLESPOON, tbsps: TABLESPOON, tbs: TABLESPOON, tbls: TABLESPOON, tblsp: TABLESPOON,
  tablespoon: TABLESPOON, tablespoons: TABLESPOON,
  cup: CUP, cups: CUP,
}));
const DISPLAY_MEASURES = [GRAM, KILOGRAM, OUNCE, POUND, MILLILITRE, LITRE, TEASPOON, TABLESPOON, CUP, FLUID_OUNCE];
const PLURAL_MEASURES = new Map([["cup", "cups"]]);

// Word units count things that are bought by the piece; each merges only with the same word.
const WORD_UNITS: [singular: string, plural: string, ...misspellings: string[]][] = [
  ["clove", "cloves"], ["tin", "tins"], ["can", "cans"], ["slice", "slices"], ["bunch", "bunches"],
  ["handful", "handfuls", "handfull", "handfulls"], ["pinch", "pinches"], ["sprig", "sprigs"], ["dash", "dashes"],
  ["splash", "splashes"], ["drizzle", "drizzles"], ["knob", "knobs"], ["stick", "sticks"], ["packet", "packets"],
  ["pack", "packs"], ["jar", "jars"], ["pot", "pots"], ["tub", "tubs"], ["bottle", "bottles"], ["bag", "bags"],
  ["sachet", "sachets"], ["head", "heads"], ["leaf", "leaves"], ["strip", "strips"], ["stalk", "stalks"],
  ["stem", "stems"], ["pod", "pods"], ["bulb", "bulbs"], ["drop", "drops"], ["piece", "pieces"],
  ["fillet", "fillets"], ["rasher", "rashers"], ["sheet", "sheets"],
];
const WORD_UNIT = new Map(WORD_UNITS.flatMap(([singular, ...forms]) => [singular, ...forms].map((form) => [form, singular])));
const PLURAL_WORD = new Map(WORD_UNITS.map(([singular, plural]) => [singular, plural]));

// A size counts pieces too ("Onion (1 large)"), but a large onion is not a small one.
const SIZES = new Set(["small", "medium", "large"]);

// Preparation notes change how an ingredient is cut, not what is bought, so "Onion (1 chopped)"
// merges with "Onion (2)". Words that change the product ("dried", "ground", "fresh") are not here:
// such lines are shown as written.
const NOTES = new Set([
  "and", "chopped", "finely", "roughly", "coarsely", "thinly", "sliced", "diced", "minced", "crushed", "grated",
  "beaten", "peeled", "shredded", "mashed", "halved", "quartered", "cubed", "skinned", "separated", "seperated",
  "trimmed", "deseeded", "seeded", "softened", "melted", "whole",
]);

// ---------------------------------------------------------------------------------------------
// Reading a line

const UNICODE_FRACTIONS = new Map<string, number>(Object.entries({
  "¼": 1 / 4, "½": 1 / 2, "¾": 3 / 4, "⅓": 1 / 3, "⅔": 2 / 3, "⅛": 1 / 8, "⅜": 3 / 8, "⅝": 5 / 8, "⅞": 7 / 8,
  "⅕": 1 / 5, "⅖": 2 / 5, "⅗": 3 / 5, "⅘": 4 / 5, "⅙": 1 / 6, "⅚": 5 / 6,
}));

/** One line: its name, matching key and quantity in a canonical unit, or null when it cannot be read with confidence. */
export function parseShoppingLine(line: string): ParsedLine | null {
  if (line.length > MAX_LINE) return null;
  const open = line.lastIndexOf("(");
  const close = line.lastIndexOf(")");
  // Nested brackets ("Chicken (2 (460g))") and text after the bracket are too ambiguous to add up.
  if (open < 0 || close < open || line.slice(close + 1).trim() !== "") return null;
  const inside = line.slice(open + 1, close);
  if (inside.includes("(")) return null;
  const name = line.slice(0, open).trim();
  const key = matchKey(name);
  if (key === "") return null;
  const amount = readAmount(firstMeasurement(inside).trim());
  return amount && { name, key, ...amount };
}

type Amount = Omit<ParsedLine, "name" | "key">;

/** "175g/6oz" → "175g": the first of alternative measurements; "1/2 cup" keeps its fraction. */
function firstMeasurement(inside: string): string {
  for (let i = inside.indexOf("/"); i >= 0; i = inside.indexOf("/", i + 1)) {
    if (!isDigit(inside[i - 1])) return inside.slice(0, i);
  }
  return inside;
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= "0" && char <= "9";
}

function readAmount(text: string): Amount | null {
  const number = readLeadingNumber(text);
  if (!number) return readBareUnit(text);
  const rest = number.rest.trim();
  if (/^[-–—]/.test(rest)) return null; // a range: "2-3"
  if (/^[x×]/i.test(rest)) return readPack(number.value, rest.slice(1).trim());
  return readUnitAndNotes(number.value, words(rest));
}

/** A number at the start of `text`: "3", "0.25", "1/2", "1 1/2", "1½", "1 ½", "½". */
function readLeadingNumber(text: string): { value: number; rest: string } | null {
  const fraction = UNICODE_FRACTIONS.get(text.charAt(0));
  if (fraction !== undefined) return { value: fraction, rest: text.slice(1) };
  const match = /^\d{1,9}(?:\.\d{1,9})?/.exec(text);
  if (!match) return null;
  const value = Number(match[0]);
  const rest = text.slice(match[0].length);
  if (match[0].includes(".")) return { value, rest };
  return addFraction(value, rest);
}

/** The fraction part after a whole number, if any: "/2", "½", " 1/2", " ½". */
function addFraction(whole: number, rest: string): { value: number; rest: string } | null {
  const glued = UNICODE_FRACTIONS.get(rest.charAt(0));
  if (glued !== undefined) return { value: whole + glued, rest: rest.slice(1) };
  const over = /^\/(\d{1,9})/.exec(rest);
  if (over) return Number(over[1]) === 0 ? null : { value: whole / Number(over[1]), rest: rest.slice(over[0].length) };
  const mixed = /^\s+(\d{1,9})\/(\d{1,9})/.exec(rest);
  if (mixed) {
    return Number(mixed[2]) === 0 ? null : { value: whole + Number(mixed[1]) / Number(mixed[2]), rest: rest.slice(mixed[0].length) };
  }
  const spaced = /^\s+(\S)/.exec(rest);
  const unicode = spaced ? UNICODE_FRACTIONS.get(spaced[1]!) : undefined;
  if (unicode !== undefined) return { value: whole + unicode, rest: rest.slice(spaced![0].length) };
  return { value: whole, rest };
}

/** Lower-case words of a unit and its notes; commas and a unit's full stop ("lb.") are not words. */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[\s,;]+/)
    .map((word) => (word.endsWith(".") ? word.slice(0, -1) : word))
    .filter((word) => word !== "");
}

/** "pinch", "Handful", "Small bunch": one of a word unit, with no number written. */
function readBareUnit(text: string): Amount | null {
  const parts = words(text);
  const unit = readWordUnit(parts);
  return unit && allNotes(parts.slice(unit.used)) ? { quantity: 1, ...unit.amount } : null;
}

/** "1 x 400g tin": a count of one pack size; the size must be written ("400g", "7.5cm"). */
function readPack(count: number, size: string): Amount | null {
  if (!isDigit(size[0])) return null;
  const parts = size.toLowerCase().split(/\s+/);
  const last = parts.length - 1;
  parts[last] = WORD_UNIT.get(parts[last]!) ?? parts[last]!;
  const unit = parts.join(" ");
  return { quantity: count, unit, kind: "pack", writtenUnit: unit };
}

function readUnitAndNotes(value: number, parts: string[]): Amount | null {
  const measured = readMeasure(parts);
  if (measured) {
    const { measure, used } = measured;
    if (!allNotes(parts.slice(used))) return null;
    const unit = measure.kind === "mass" ? "g" : "ml";
    return { quantity: value * measure.size, unit, kind: measure.kind, writtenUnit: measure.unit };
  }
  const word = readWordUnit(parts);
  if (word) return allNotes(parts.slice(word.used)) ? { quantity: value, ...word.amount } : null;
  return allNotes(parts) ? { quantity: value, unit: "count", kind: "count", writtenUnit: "count" } : null;
}

function readMeasure(parts: string[]): { measure: Measure; used: number } | null {
  if (parts[0] === "fl" && (parts[1] === "oz" || parts[1] === "ounce" || parts[1] === "ounces")) {
    return { measure: FLUID_OUNCE, used: 2 };
  }
  const measure = parts[0] === undefined ? undefined : MEASURES.get(parts[0]);
  return measure ? { measure, used: 1 } : null;
}

/** "clove", "large", "small tin": a word unit, a size, or a size of a word unit. */
function readWordUnit(parts: string[]): { amount: Omit<Amount, "quantity">; used: number } | null {
  const [first, second] = parts;
  if (first === undefined) return null;
  const word = WORD_UNIT.get(first);
  if (word) return { amount: { unit: word, kind: "word", writtenUnit: word }, used: 1 };
  if (!SIZES.has(first)) return null;
  const sized = second === undefined ? undefined : WORD_UNIT.get(second);
  const unit = sized ? `${first} ${sized}` : first;
  return { amount: { unit, kind: "word", writtenUnit: unit }, used: sized ? 2 : 1 };
}

function allNotes(parts: string[]): boolean {
  return parts.every((part) => NOTES.has(part));
}

// ---------------------------------------------------------------------------------------------
// Matching names

const IRREGULAR = new Map([["leaves", "leaf"], ["loaves", "loaf"], ["halves", "half"], ["knives", "knife"]]);

/**
 * The name for matching: accents, case, punctuation and spacing dropped, and each word cut to a
 * stem so singular and plural meet ("Eggs"/"egg" → "egg", "Chillies"/"chilli" → "chilli",
 * "Tomatoes"/"tomato" → "tomato", "Peaches"/"peach" → "peach", "berries"/"berry" → "berri").
 */
export function matchKey(name: string): string {
  return name
    .slice(0, MAX_LINE)
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "")
    .map(stem)
    .join(" ");
}

// Cutting a final "e" as well as the plural "s" makes "-es" plurals meet their singulars without
// a dictionary: "peaches"/"peach", "brioches"/"brioche", "limes"/"lime", "potatoes"/"potato".
function stem(word: string): string {
  const irregular = IRREGULAR.get(word);
  if (irregular !== undefined) return irregular;
  if (word.length <= 3) return word;
  let base = word;
  if (base.endsWith("ies")) base = `${base.slice(0, -3)}i`;
  else if (base.endsWith("s") && !/(?:ss|us|is)$/.test(base)) base = base.slice(0, -1);
  if (base.length > 3 && base.endsWith("e")) base = base.slice(0, -1);
  if (base.length > 3 && base.endsWith("y")) base = `${base.slice(0, -1)}i`;
  return base;
}

// ---------------------------------------------------------------------------------------------
// Merging

interface Entry {
  item: ShoppingInputItem;
  parsed: ParsedLine;
}

/**
 * The shopping list for `items`. Every item appears exactly once: in one merged item, or under its
 * recipe in `unmerged`. The result does not depend on the order of `items`: they are sorted first
 * (by id, ids of digits numerically), so sums, names and lists come out the same every time.
 */
export function mergeShoppingList(items: readonly ShoppingInputItem[]): ShoppingList {
  const groups = new Map<string, Entry[]>();
  const unread: ShoppingInputItem[] = [];
  for (const item of [...items].sort(compareItems)) {
    const parsed = parseShoppingLine(item.text);
    if (!parsed) {
      unread.push(item);
      continue;
    }
    const groupKey = `${parsed.key}\u0000${parsed.unit}`;
    const group = groups.get(groupKey);
    if (group) group.push({ item, parsed });
    else groups.set(groupKey, [{ item, parsed }]);
  }
  const byItem = [...groups.values()].map(mergeGroup).sort((a, b) => compareText(a.key, b.key) || compareText(a.unit, b.unit));
  return { byItem, unmerged: groupByRecipe(unread) };
}

function mergeGroup(entries: Entry[]): MergedItem {
  const first = entries[0]!.parsed;
  const amount = entries.reduce((sum, entry) => sum + entry.parsed.quantity, 0);
  const name = entries.map((entry) => entry.parsed.name).sort(compareText)[0]!;
  const written = new Set(entries.map((entry) => entry.parsed.writtenUnit));
  const quantityText = formatAmount(amount, first, written);
  return {
    key: first.key,
    name,
    quantityText,
    text: `${name} (${quantityText})`,
    amount,
    unit: first.unit,
    itemIds: entries.map((entry) => entry.item.id),
    recipeIds: [...new Set(entries.map((entry) => entry.item.recipeId))].sort(compareText),
    checked: entries.every((entry) => entry.item.checked),
  };
}

function groupByRecipe(items: ShoppingInputItem[]): UnmergedGroup[] {
  const byRecipe = new Map<string, UnmergedGroup>();
  for (const item of items) {
    const group = byRecipe.get(item.recipeId);
    if (!group) byRecipe.set(item.recipeId, { recipeId: item.recipeId, recipeName: item.recipeName, items: [item] });
    else {
      group.items.push(item);
      // Should one recipe come with two names, the first in sorted order wins, whatever the input order.
      if (compareText(item.recipeName, group.recipeName) < 0) group.recipeName = item.recipeName;
    }
  }
  return [...byRecipe.values()].sort((a, b) => compareText(a.recipeName, b.recipeName) || compareText(a.recipeId, b.recipeId));
}

/** Code-unit order: the same on every machine and in every locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Ids of digits in numeric order ("2" before "10"), anything else in code-unit order. */
function compareIds(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b) && a.length !== b.length) return a.length - b.length;
  return compareText(a, b);
}

function compareItems(a: ShoppingInputItem, b: ShoppingInputItem): number {
  return (
    compareIds(a.id, b.id) ||
    compareText(a.recipeId, b.recipeId) ||
    compareText(a.text, b.text) ||
    compareText(a.recipeName, b.recipeName) ||
    Number(a.checked) - Number(b.checked)
  );
}

// ---------------------------------------------------------------------------------------------
// Display

function formatAmount(amount: number, parsed: ParsedLine, written: Set<string>): string {
  const count = formatQuantity(amount, "auto");
  switch (parsed.kind) {
    case "count":
      return count;
    case "pack":
      return `${count} x ${parsed.unit}`;
    case "word":
      return `${count} ${amount > 1 ? pluralWordUnit(parsed.unit) : parsed.unit}`;
    case "mass":
    case "volume":
      return formatMeasured(amount, displayMeasure(amount, parsed.kind, written));
  }
}

/** "small tin" → "small tins"; a size alone ("large") has no plural. */
function pluralWordUnit(unit: string): string {
  const space = unit.lastIndexOf(" ");
  const word = unit.slice(space + 1);
  return `${unit.slice(0, space + 1)}${PLURAL_WORD.get(word) ?? word}`;
}

/**
 * The unit to show a total in: the lines' own unit when they all used the same non-metric one
 * ("2 lb", "2½ cups"), spoons when they mixed spoons only, and otherwise grams or millilitres,
 * in kilograms or litres from 1000 up.
 */
function displayMeasure(amount: number, kind: "mass" | "volume", written: Set<string>): Measure {
  const measures = [...written].map((unit) => DISPLAY_MEASURES.find((measure) => measure.unit === unit)!);
  const only = measures.length === 1 ? measures[0]! : null;
  if (only && !only.metric) return only;
  if (measures.every((measure) => measure === TEASPOON || measure === TABLESPOON)) {
    return amount >= TABLESPOON.size ? TABLESPOON : TEASPOON;
  }
  if (kind === "mass") return amount >= 1000 ? KILOGRAM : GRAM;
  return amount >= 1000 ? LITRE : MILLILITRE;
}

function formatMeasured(amount: number, measure: Measure): string {
  const value = amount / measure.size;
  const text = formatQuantity(value, measure.metric ? "decimal" : "auto");
  const unit = value > 1 ? (PLURAL_MEASURES.get(measure.unit) ?? measure.unit) : measure.unit;
  return `${text} ${unit}`;
}

// ---------------------------------------------------------------------------------------------
// Scaling

/** A stored line scaled to other servings: the same rule as the recipe page. */
export function scaleShoppingText(text: string, factor: number): string {
  return scaleIngredientLine(text, factor);
}
