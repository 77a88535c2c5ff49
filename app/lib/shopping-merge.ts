// A shopping list made from the (already scaled) ingredient lines of several recipes: lines that
// name the same thing in compatible units are added up, everything else is shown as written.
//
// Lines are read by the quantity reader (app/lib/quantity.ts), in both ways people write them:
// "Flour (200g)", "Eggs (3)", "Garlic (2 cloves chopped)", "Tomatoes (1 x 400g tin)" and "200 g
// flour", "3 eggs", "2 cloves garlic, chopped", "a 400g tin of tomatoes". A line it cannot read
// with confidence (no quantity, a range, "to taste", nested brackets, unknown words) is never
// guessed at: it goes to `unmerged`, under its recipe, exactly as written.
//
// Display format: a merged item reads like a stored line, "<name> (<quantity>)" — "Eggs (5)",
// "Flour (700 g)", "Beef (1.2 kg)", "Salt (2 pinches)", "Tomatoes (3 x 400g tin)". It matches what
// the recipe page shows, and the text can be read back by `parseShoppingLine`.
//
// Every expression here reads at most one bracket of a line capped at MAX_LINE characters, and
// none has nested or overlapping quantifiers, so the work stays linear in the line's length.

import {
  DISPLAY_MEASURES,
  formatQuantity,
  GRAM,
  KILOGRAM,
  LITRE,
  MAX_LINE,
  MILLILITRE,
  PLURAL_WORD,
  readIngredientLine,
  scaleIngredientLine,
  TABLESPOON,
  TEASPOON,
  type Measure,
  type UnitKind,
} from "./quantity";
import { roundLarge, roundMetric } from "./units";

export { MAX_LINE };

const PLURAL_MEASURES = new Map([["cup", "cups"]]);

export interface ParsedLine {
  /** What is bought, as written ("Eggs" of "Eggs (3)", "eggs" of "3 eggs, beaten"). */
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
// Reading a line

/** One line: its name, matching key and quantity in a canonical unit, or null when it cannot be read with confidence. */
export function parseShoppingLine(line: string): ParsedLine | null {
  const reading = readIngredientLine(line);
  if (!reading?.amount) return null;
  const key = matchKey(reading.name);
  if (key === "") return null;
  return { name: reading.name, key, ...reading.amount };
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
  // Metric totals rounded as the recipe page rounds them ("955 g", "1.9 l"), never "953.59 g".
  const exact = amount / measure.size;
  const value = measure === GRAM || measure === MILLILITRE ? roundMetric(exact) : measure === KILOGRAM || measure === LITRE ? roundLarge(exact) : exact;
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
