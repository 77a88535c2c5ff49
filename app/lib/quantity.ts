// The one reader of quantities in ingredient lines (docs/rules.md#quantities), for scaling
// (servings and multipliers), the shopping list's adding up, and later unit conversion. It reads
// the two ways lines are written:
//
//   bracket form   "Eggs (3)", "Flour (200g)", "Garlic (2 cloves, crushed)", "Tomatoes (1 x 400g tin)"
//                  (the sample data's: the quantity in the line's last bracket)
//   leading form   "2 eggs", "100 g cheese", "1 ½ cups flour", "2-3 cloves garlic, crushed",
//                  "a 400g tin of tomatoes", "2 x 400g tins chopped tomatoes", "1 (400g) can chickpeas"
//                  (what people type, and what pages imported by link carry)
//
// Numbers: whole, decimal, ascii and unicode fractions ("1/2", "1 1/2", "½", "1½", "1 ½") and
// ranges ("2-3", "2–3", "2 to 3"). What it cannot read is left as written: a line it does not
// understand is never guessed at.
//
// Every scan below walks a line (capped at MAX_LINE characters) once, with regular expressions
// only on short anchored windows, so the work stays linear in the line's length.

import { formatQuantity, isDigit, readNumberAt, UNICODE_FRACTIONS, type NumberToken } from "./numbers";

export { formatQuantity, readNumberAt, UNICODE_FRACTIONS, type NumberStyle, type NumberToken } from "./numbers";

/** Longer lines are left as written: stored lines are at most 500 characters. */
export const MAX_LINE = 500;

const isLetter = (char: string | undefined) => char !== undefined && /\p{L}/u.test(char);
const isSpace = (char: string | undefined) => char === " " || char === "\t" || char === "\u00a0";

// ---------------------------------------------------------------------------------------------
// Units

export interface Measure {
  kind: "mass" | "volume";
  unit: string;
  /** Grams or millilitres in one of this unit. */
  size: number;
  metric: boolean;
}

// US legal cup (240 ml) and its eighth (30 ml) keep spoon and cup sums exact: 1 cup = 16 tbsp = 48 tsp.
export const GRAM: Measure = { kind: "mass", unit: "g", size: 1, metric: true };
export const KILOGRAM: Measure = { kind: "mass", unit: "kg", size: 1000, metric: true };
export const OUNCE: Measure = { kind: "mass", unit: "oz", size: 28.349523125, metric: false };
export const POUND: Measure = { kind: "mass", unit: "lb", size: 453.59237, metric: false };
export const MILLILITRE: Measure = { kind: "volume", unit: "ml", size: 1, metric: true };
export const LITRE: Measure = { kind: "volume", unit: "l", size: 1000, metric: true };
export const TEASPOON: Measure = { kind: "volume", unit: "tsp", size: 5, metric: false };
export const TABLESPOON: Measure = { kind: "volume", unit: "tbsp", size: 15, metric: false };
export const CUP: Measure = { kind: "volume", unit: "cup", size: 240, metric: false };
export const FLUID_OUNCE: Measure = { kind: "volume", unit: "fl oz", size: 30, metric: false };

// Maps, not object literals: a line's words ("constructor", "__proto__") must never find Object's own keys.
const MEASURES = new Map<string, Measure>(
  Object.entries({
    g: GRAM, gr: GRAM, gram: GRAM, grams: GRAM, gramme: GRAM, grammes: GRAM,
    kg: KILOGRAM, kgs: KILOGRAM, kilo: KILOGRAM, kilos: KILOGRAM, kilogram: KILOGRAM, kilograms: KILOGRAM,
    oz: OUNCE, ounce: OUNCE, ounces: OUNCE,
    lb: POUND, lbs: POUND, pound: POUND, pounds: POUND,
    ml: MILLILITRE, mls: MILLILITRE, millilitre: MILLILITRE, millilitres: MILLILITRE, milliliter: MILLILITRE, milliliters: MILLILITRE,
    l: LITRE, litre: LITRE, litres: LITRE, liter: LITRE, liters: LITRE, ltr: LITRE,
    tsp: TEASPOON, tsps: TEASPOON, teaspoon: TEASPOON, teaspoons: TEASPOON,
    tbsp: TABLESPOON, tbsps: TABLESPOON, tbs: TABLESPOON, tbls: TABLESPOON, tblsp: TABLESPOON,
    tablespoon: TABLESPOON, tablespoons: TABLESPOON,
    cup: CUP, cups: CUP,
  }),
);
/** The measure a unit word names ("g", "Cups", "lbs"), or null; "fl oz" is two words, FLUID_OUNCE. */
export function measureNamed(word: string): Measure | null {
  return MEASURES.get(word.toLowerCase()) ?? null;
}
export const DISPLAY_MEASURES = [GRAM, KILOGRAM, OUNCE, POUND, MILLILITRE, LITRE, TEASPOON, TABLESPOON, CUP, FLUID_OUNCE];

// Word units count things that are bought by the piece; each merges only with the same word.
const WORD_UNITS: [singular: string, plural: string, ...misspellings: string[]][] = [
  ["clove", "cloves"], ["tin", "tins"], ["can", "cans"], ["slice", "slices"], ["bunch", "bunches"],
  ["handful", "handfuls", "handfull", "handfulls"], ["pinch", "pinches"], ["sprig", "sprigs"], ["dash", "dashes"],
  ["splash", "splashes"], ["drizzle", "drizzles"], ["knob", "knobs"], ["stick", "sticks"], ["packet", "packets"],
  ["pack", "packs"], ["jar", "jars"], ["pot", "pots"], ["tub", "tubs"], ["bottle", "bottles"], ["bag", "bags"],
  ["sachet", "sachets"], ["head", "heads"], ["leaf", "leaves"], ["strip", "strips"], ["stalk", "stalks"],
  ["stem", "stems"], ["pod", "pods"], ["bulb", "bulbs"], ["drop", "drops"], ["piece", "pieces"],
  ["fillet", "fillets"], ["rasher", "rashers"], ["sheet", "sheets"], ["portion", "portions"], ["ear", "ears"],
];
const WORD_UNIT = new Map(WORD_UNITS.flatMap(([singular, ...forms]) => [singular, ...forms].map((form) => [form, singular])));
export const PLURAL_WORD = new Map(WORD_UNITS.map(([singular, plural]) => [singular, plural]));
/** Words with a singular and a plural written after a count (the others read the same for any count). */
const COUNTED_FORMS = new Map<string, { singular: string; plural: string }>([
  ...WORD_UNITS.flatMap(([singular, plural]) => [
    [singular, { singular, plural }],
    [plural, { singular, plural }],
  ] as const),
  ...[
    ["cup", "cups"], ["pound", "pounds"], ["ounce", "ounces"], ["gram", "grams"], ["gramme", "grammes"], ["kilo", "kilos"],
    ["kilogram", "kilograms"], ["litre", "litres"], ["liter", "liters"], ["millilitre", "millilitres"], ["milliliter", "milliliters"],
    ["teaspoon", "teaspoons"], ["tablespoon", "tablespoons"],
  ].flatMap(([singular, plural]) => [
    [singular!, { singular: singular!, plural: plural! }],
    [plural!, { singular: singular!, plural: plural! }],
  ] as const),
]);
// What a pack is: "400g tin", "1 (400g) can".
const PACK_WORDS = new Set(["tin", "can", "jar", "packet", "pack", "pot", "tub", "bottle", "bag", "sachet", "carton", "box"]);

/** "tin", "Cans", "jar": a word for a pack, whose size ("400g tin") is what its label says. */
export function isPackWord(word: string): boolean {
  const lower = word.toLowerCase();
  return PACK_WORDS.has(WORD_UNIT.get(lower) ?? lower.replace(/e?s$/, ""));
}

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

export type UnitKind = "mass" | "volume" | "count" | "word" | "pack";

/** An amount the shopping list can add up: in grams, millilitres, a count, or a count of a word unit or pack. */
export interface Amount {
  quantity: number;
  /** "g", "ml", "count", a word unit ("clove", "pinch", "large", "small tin") or a pack ("400g tin"). */
  unit: string;
  kind: UnitKind;
  /** The unit as the line spelled it, in one spelling ("lb", "tbsp", "cup", "g"): picks the display. */
  writtenUnit: string;
}

/** A word after a count whose spelling follows the count ("1 clove", "2 cloves"). */
interface CountedWord {
  start: number;
  end: number;
  singular: string;
  plural: string;
}

export interface IngredientReading {
  form: "bracket" | "leading";
  /** What is bought, as written ("Eggs", "cheese", "garlic"); notes after a comma left out. */
  name: string;
  /** The numbers that change with servings, in the order written. */
  numbers: NumberToken[];
  /** How many of the counted word there are (a range's larger end; 1 for "a"), null when there is no count. */
  count: number | null;
  /** "a"/"an" standing for one ("a pinch of salt"), to be written as a number once scaled. */
  article: { start: number; end: number; beforePack: boolean } | null;
  /** The unit word after the count, spelled for the count once scaled. */
  countedWord: CountedWord | null;
  /** The amount to add up, or null when the words around the number are not understood (or it is a range). */
  amount: Amount | null;
}

interface Word {
  /** As written, without a unit's full stop ("lb." → "lb"). */
  text: string;
  lower: string;
  start: number;
  end: number;
  /** Where the written word ends, its full stop included. */
  rawEnd: number;
}

/** The words of `text` from `at` (split on spaces; a unit's full stop, "lb.", dropped), with where each is. */
function wordsFrom(text: string, at: number, end = text.length): Word[] {
  const words: Word[] = [];
  let i = at;
  while (i < end) {
    while (i < end && isSpace(text.charAt(i))) i++;
    const start = i;
    while (i < end && !isSpace(text.charAt(i))) i++;
    if (i > start) {
      const raw = text.slice(start, i);
      const trimmed = raw.endsWith(".") ? raw.slice(0, -1) : raw;
      words.push({ text: trimmed, lower: trimmed.toLowerCase(), start, end: start + trimmed.length, rawEnd: i });
    }
  }
  return words;
}

function skipSpaces(text: string, at: number): number {
  while (isSpace(text.charAt(at))) at++;
  return at;
}

/** A range's second number after the first: "-3", " – 3", " to 3". */
function readRangeEnd(text: string, at: number): NumberToken | null {
  const joint = /^[ \u00a0]{0,3}(?:[-–—]|to(?=[ \u00a0]))[ \u00a0]{0,3}/i.exec(text.slice(at, at + 10));
  if (!joint) return null;
  return readNumberAt(text, at + joint[0].length);
}

function measureOf(words: Word[], at: number): { measure: Measure; used: number } | null {
  const first = words[at]?.lower;
  if (first === "fl" && ["oz", "ounce", "ounces"].includes(words[at + 1]?.lower ?? "")) return { measure: FLUID_OUNCE, used: 2 };
  const measure = first === undefined ? undefined : MEASURES.get(first.replace(/[,;]$/, ""));
  return measure ? { measure, used: 1 } : null;
}

/** "clove", "large", "small tin": a word unit, a size, or a size of a word unit. */
function wordUnitOf(words: Word[], at: number): { unit: string; used: number; counted: Word } | null {
  const first = words[at];
  if (!first) return null;
  const plain = first.lower.replace(/[,;]$/, "");
  const word = WORD_UNIT.get(plain);
  if (word) return { unit: word, used: 1, counted: first };
  if (!SIZES.has(plain)) return null;
  const second = words[at + 1];
  const sized = second ? WORD_UNIT.get(second.lower.replace(/[,;]$/, "")) : undefined;
  return sized ? { unit: `${plain} ${sized}`, used: 2, counted: second! } : { unit: plain, used: 1, counted: first };
}

function countedWordOf(word: Word): CountedWord | null {
  const forms = COUNTED_FORMS.get(word.lower.replace(/[,;]$/, ""));
  return forms && /^[a-z]+[,;]?$/i.test(word.text) ? { start: word.start, end: word.start + word.text.replace(/[,;]$/, "").length, ...forms } : null;
}

/** "400g", "400 g", "7.5cm": a pack size (a number with the unit right after it); its end. */
function packSizeAt(text: string, at: number): { size: string; end: number } | null {
  const number = readNumberAt(text, at);
  if (!number || number.style === "fraction") return null;
  const unit = /^[ \u00a0]?([a-z]{1,6})\b/i.exec(text.slice(number.end, number.end + 8));
  if (!unit || !(MEASURES.has(unit[1]!.toLowerCase()) || unit[1]!.toLowerCase() === "cm")) return null;
  return { size: `${text.slice(number.start, number.end)}${unit[1]!.toLowerCase()}`, end: number.end + unit[0].length };
}

/** Where the bought name starts: after preparation words in front ("finely chopped onion"). */
function nameStartIn(line: string, from: number, to: number): number {
  const words = wordsFrom(line, from, to);
  let first = 0;
  while (first < words.length - 1 && NOTES.has(words[first]!.lower)) first++;
  return words[first]?.start ?? from;
}

// Words after "a"/"an" that say "some", not one: "a few leaves", "a little oil", "a good pinch".
const VAGUE = new Set(["few", "little", "lot", "lots", "bit", "couple", "good", "generous", "dozen", "touch", "hint"]);

// Nouns whose plural is not the usual one.
const IRREGULAR_NOUNS: [singular: string, plural: string][] = [
  ["leaf", "leaves"], ["loaf", "loaves"], ["half", "halves"], ["knife", "knives"], ["tomato", "tomatoes"],
  ["potato", "potatoes"], ["mango", "mangoes"], ["chilli", "chillies"],
];
const NOUN_PLURAL = new Map(IRREGULAR_NOUNS);
const NOUN_SINGULAR = new Map(IRREGULAR_NOUNS.map(([singular, plural]) => [plural, singular]));

/** The singular and plural of a counted noun ("egg"/"eggs", "berry"/"berries"), or null when it is not a plain noun. */
function nounForms(word: string): { singular: string; plural: string } | null {
  const lower = word.toLowerCase();
  if (!/^[a-z]{3,}$/.test(lower)) return null;
  const irregular = NOUN_SINGULAR.get(lower) ?? (NOUN_PLURAL.has(lower) ? lower : undefined);
  if (irregular) return { singular: irregular, plural: NOUN_PLURAL.get(irregular)! };
  if (/(?:ss|us|is)$/.test(lower)) return null; // "grass", "asparagus", "harissa": not plurals
  if (lower.endsWith("ies")) return { singular: `${lower.slice(0, -3)}y`, plural: lower };
  if (/(?:ch|sh|x)es$/.test(lower)) return { singular: lower.slice(0, -2), plural: lower };
  if (lower.endsWith("s")) return { singular: lower.slice(0, -1), plural: lower };
  if (/[^aeiou]y$/.test(lower)) return { singular: lower, plural: `${lower.slice(0, -1)}ies` };
  if (/(?:ch|sh|x)$/.test(lower)) return { singular: lower, plural: `${lower}es` };
  return { singular: lower, plural: `${lower}s` };
}

/** The counted noun of a name: its last word ("2 red onions" → "onions"), spelled for the count once scaled. */
function countedNoun(line: string, from: number, to: number): CountedWord | null {
  const words = wordsFrom(line, from, to);
  const last = words[words.length - 1];
  if (!last || last.rawEnd !== last.end) return null;
  const forms = nounForms(last.text);
  return forms ? { start: last.start, end: last.end, ...forms } : null;
}

/** A unit written as "cups/480ml" or "g/12oz": the unit, and where another measurement of the same amount is. */
function splitAlternative(word: Word): { unit: string; alternative: [number, number] | null } {
  const slash = word.text.indexOf("/");
  if (slash <= 0) return { unit: word.lower, alternative: null };
  const rest = word.start + slash + 1;
  return { unit: word.lower.slice(0, slash), alternative: isDigit(word.text.charAt(slash + 1)) ? [rest, word.rawEnd] : null };
}

/**
 * "2 eggs", "100 g cheese", "1 ½ cups flour", "2-3 cloves garlic, crushed", "a pinch of salt",
 * "an egg", "a 400g tin of tomatoes", "2 x 400g tins tomatoes", "1 (400g) can chickpeas",
 * "1 can (400g) tomatoes", "2 cups/480ml milk", "1 cup (240ml) milk, warmed".
 */
function readLeading(line: string): IngredientReading | null {
  let at = skipSpaces(line, 0);
  const numbers: NumberToken[] = [];
  let article: IngredientReading["article"] = null;
  let count = 1;
  let range = false;
  const first = readNumberAt(line, at);
  if (first) {
    numbers.push(first);
    count = first.value;
    at = first.end;
    const second = readRangeEnd(line, at);
    if (second && second.value > first.value) {
      numbers.push(second);
      range = true;
      count = second.value;
      at = second.end;
    }
  } else {
    const word = /^(an?)[ \u00a0]+/i.exec(line.slice(at, at + 6));
    if (!word) return null;
    article = { start: at, end: at + word[1]!.length, beforePack: false };
    at += word[0].length;
  }

  // After the count: a pack ("x 400g tin", "(400g) can", "400g tin"), a measure, a word unit, or nothing.
  let amountUnit: Omit<Amount, "quantity">;
  let countedWord: CountedWord | null = null;
  let countsNoun = false;
  let quantity = count;
  let rest = at;
  const times = /^[ \u00a0]{0,2}[x×][ \u00a0]{0,2}(?=\d)/i.exec(line.slice(at, at + 8));
  const bracketed = /^[ \u00a0]{0,2}\(/.exec(line.slice(at, at + 4));
  const packStart = times ? at + times[0].length : bracketed ? at + bracketed[0].length : skipSpaces(line, at);
  const pack = packSizeAt(line, packStart);
  const closing = pack && bracketed ? /^[ \u00a0]{0,2}\)/.exec(line.slice(pack.end, pack.end + 4)) : null;
  const packWordAt = pack && (!bracketed || closing) ? pack.end + (closing ? closing[0].length : 0) : -1;
  const packWord = packWordAt >= 0 ? wordsFrom(line, packWordAt, Math.min(line.length, packWordAt + 20))[0] : undefined;
  const packUnit = packWord ? WORD_UNIT.get(packWord.lower.replace(/[,;]$/, "")) : undefined;
  if (pack && packWord && packUnit) {
    // A count of packs or pieces of one size ("400g tin", "10cm piece"): the size never scales.
    amountUnit = { unit: `${pack.size} ${packUnit}`, kind: "pack", writtenUnit: `${pack.size} ${packUnit}` };
    countedWord = countedWordOf(packWord);
    if (article) article.beforePack = true;
    rest = packWord.rawEnd;
  } else if (pack && times) {
    // "1 x 2kg chicken": a count of things of one size.
    amountUnit = { unit: pack.size, kind: "pack", writtenUnit: pack.size };
    if (article) article.beforePack = true;
    rest = pack.end;
  } else {
    const words = wordsFrom(line, at, Math.min(line.length, at + 60));
    // A unit glued to the number: "100g", "2tbsp", "350g/12oz".
    const glued = numbers.length > 0 && isLetter(line.charAt(at)) ? words[0] : undefined;
    const head = words[0] ? splitAlternative(words[0]) : null;
    const unitWords = head ? [{ ...words[0]!, lower: head.unit }, ...words.slice(1)] : words;
    const measured = measureOf(unitWords, 0);
    const word = measured ? null : wordUnitOf(unitWords, 0);
    if (glued && !measured) return null; // "2large", "3x": not a quantity we know
    if (head?.alternative) numbers.push(...numbersIn(line, head.alternative[0], head.alternative[1]));
    if (measured) {
      const { measure, used } = measured;
      amountUnit = { unit: measure.kind === "mass" ? "g" : "ml", kind: measure.kind, writtenUnit: measure.unit };
      quantity = count * measure.size;
      countedWord = countedWordOf(unitWords[0]!);
      rest = unitWords[used - 1]!.rawEnd;
    } else if (word) {
      amountUnit = { unit: word.unit, kind: "word", writtenUnit: word.unit };
      // A size ("3 large eggs") counts the eggs: the noun follows the count, not the size.
      countsNoun = SIZES.has(word.unit);
      countedWord = countsNoun ? null : countedWordOf(word.counted);
      rest = unitWords[word.used - 1]!.rawEnd;
      // "1 can (400g) tomatoes", "1 pack 250g mozzarella": the size of the pack.
      if (PACK_WORDS.has(word.unit)) {
        const sizeAt = skipSpaces(line, rest);
        const inBracket = line.charAt(sizeAt) === "(";
        const size = packSizeAt(line, inBracket ? skipSpaces(line, sizeAt + 1) : sizeAt);
        const sizeEnd = size && inBracket ? /^[ \u00a0]{0,2}\)/.exec(line.slice(size.end, size.end + 4)) : null;
        if (size && (!inBracket || sizeEnd)) {
          amountUnit = { unit: `${size.size} ${word.unit}`, kind: "pack", writtenUnit: `${size.size} ${word.unit}` };
          rest = size.end + (sizeEnd ? sizeEnd[0].length : 0);
        }
      }
    } else {
      // A count of things: "2 eggs", "an egg" ("a few", "a little" say no number).
      if (article && (VAGUE.has(words[0]?.lower ?? "") || words.length === 0)) return null;
      amountUnit = { unit: "count", kind: "count", writtenUnit: "count" };
      countsNoun = true;
    }
  }

  // "(480ml)": another measurement of the same amount, scaled with it.
  let after = skipSpaces(line, rest);
  if (line.charAt(after) === "(") {
    const close = line.indexOf(")", after);
    const inside = close > after ? line.slice(after + 1, close) : "";
    if (close > after && !inside.includes("(") && readNumberAt(inside, skipSpaces(inside, 0))) {
      numbers.push(...numbersIn(line, after + 1, close));
      after = skipSpaces(line, close + 1);
    }
  }
  if (/^of[ \u00a0]/i.test(line.slice(after, after + 3))) after = skipSpaces(line, after + 2);
  // The name runs to a comma or a bracket; what follows is a note ("(optional)", ", crushed"),
  // whose own amounts ("(or 2 tsp tamari)") change with the rest.
  const comma = line.indexOf(",", after);
  const bracket = line.indexOf("(", after);
  const nameEnd = Math.min(comma < 0 ? line.length : comma, bracket < 0 ? line.length : bracket);
  const nameStart = nameStartIn(line, after, nameEnd);
  const name = line.slice(nameStart, nameEnd).trim();
  // A name starts with a letter ("5-spice powder" too); "1 lb 8 oz beef" is not 1 lb of "8 oz beef".
  if (name === "" || !(isLetter(name.charAt(0)) || /^\d+-\p{L}/u.test(name))) return null;
  if (article && countsNoun && /\bof\b/i.test(name)) return null; // "a squeeze of lemon": not a count of lemons
  if (bracket >= 0 && bracket === nameEnd) {
    const close = line.indexOf(")", bracket);
    if (close > bracket) numbers.push(...numbersIn(line, bracket + 1, close));
  }
  if (countsNoun) countedWord = countedNoun(line, nameStart, nameEnd);
  return {
    form: "leading",
    name,
    numbers,
    count,
    article,
    countedWord,
    amount: range ? null : { quantity, ...amountUnit },
  };
}

// A number that measures something else than the amount: a size ("3cm cubes", "½-inch slices"),
// a share ("70% cocoa"), a temperature ("180C"). Only the first number of a bracket may be a size:
// "Ginger (1 inch)" is an amount, "Lamb (2kg cut into 3cm cubes)" is not 6cm cubes at twice the lamb.
const SIZE_AFTER = /^[ \u00a0-]?(?:cm|mm|inch(?:es)?|in\b|")/i;
const NEVER_SCALED_AFTER = /^[ \u00a0]?(?:%|°|[CF]\b)/;

/** Every number between `from` and `to` that is an amount (not part of a word like "B12", not a size, share or temperature). */
function numbersIn(line: string, from: number, to: number): NumberToken[] {
  const found: NumberToken[] = [];
  let i = from;
  while (i < to) {
    const char = line.charAt(i);
    if ((isDigit(char) || UNICODE_FRACTIONS.has(char)) && !isLetter(line.charAt(i - 1)) && !isDigit(line.charAt(i - 1)) && line.charAt(i - 1) !== ".") {
      const number = readNumberAt(line, i);
      if (number) {
        const after = line.slice(number.end, number.end + 8);
        const skipped = NEVER_SCALED_AFTER.test(after) || (found.length > 0 && SIZE_AFTER.test(after));
        if (!skipped) found.push(number);
        i = number.end;
        continue;
      }
      while (i < to && (isDigit(line.charAt(i)) || line.charAt(i) === "/" || line.charAt(i) === ".")) i++;
      continue;
    }
    i++;
  }
  return found;
}

/** "Eggs (3)", "Flour (200g)", "Garlic (2 cloves, crushed)", "Tomatoes (1 x 400g tin)", "Salt (pinch)". */
function readBracket(line: string): IngredientReading | null {
  const open = line.lastIndexOf("(");
  const close = line.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const name = line.slice(0, open).trim();
  const inside = line.slice(open + 1, close);
  // "1 x 400g tin": the count scales, the tin size does not.
  const pack = /^([ \u00a0]*)(\d{1,9})[ \u00a0]*[x×][ \u00a0]+/i.exec(inside);
  const numbers = pack
    ? [{ start: open + 1 + pack[1]!.length, end: open + 1 + pack[1]!.length + pack[2]!.length, value: Number(pack[2]), style: "auto" as const }]
    : numbersIn(line, open + 1, close);
  const first = numbers[0];
  const lead = inside.slice(0, first ? first.start - open - 1 : inside.length);
  const unitWord = first ? wordsFrom(line, first.end, close)[0] : undefined;
  const countedWord = first && !pack && lead.trim() === "" && unitWord && unitWord.start <= first.end + 1 ? countedWordOf(unitWord) : null;
  // Nested brackets ("Chicken (2 (460g))") and text after the bracket are too ambiguous to add up.
  const mergeable = name !== "" && !/[()]/.test(name) && !/[()]/.test(inside) && line.slice(close + 1).trim() === "";
  return {
    form: "bracket",
    name,
    numbers,
    count: first ? first.value : null,
    article: null,
    countedWord,
    amount: mergeable ? readBracketAmount(firstMeasurement(inside).trim()) : null,
  };
}

/** "175g/6oz" → "175g": the first of alternative measurements; "1/2 cup" keeps its fraction. */
function firstMeasurement(inside: string): string {
  for (let i = inside.indexOf("/"); i >= 0; i = inside.indexOf("/", i + 1)) {
    if (!isDigit(inside[i - 1])) return inside.slice(0, i);
  }
  return inside;
}

function readBracketAmount(text: string): Amount | null {
  const number = readNumberAt(text, 0);
  const words = wordsFrom(text.replace(/[,;]/g, " "), number ? number.end : 0).map((word) => word.lower);
  if (!number) {
    // "pinch", "Handful", "Small bunch": one of a word unit, with no number written.
    const unit = wordUnitOf(wordsFrom(text.replace(/[,;]/g, " "), 0), 0);
    return unit && words.slice(unit.used).every((word) => NOTES.has(word)) ? { quantity: 1, unit: unit.unit, kind: "word", writtenUnit: unit.unit } : null;
  }
  const rest = text.slice(number.end).trim();
  if (/^[-–—]/.test(rest) || /^to\s/i.test(rest)) return null; // a range: "2-3"
  if (/^[x×]/i.test(rest)) {
    const size = rest.slice(1).trim();
    if (!isDigit(size[0])) return null;
    const parts = size.toLowerCase().split(/\s+/);
    const last = parts.length - 1;
    parts[last] = WORD_UNIT.get(parts[last]!) ?? parts[last]!;
    const unit = parts.join(" ");
    return { quantity: number.value, unit, kind: "pack", writtenUnit: unit };
  }
  const unitWords = wordsFrom(text.slice(number.end).replace(/[,;]/g, " "), 0);
  const measured = measureOf(unitWords, 0) ?? gluedMeasure(text, number.end);
  if (measured) {
    if (!unitWords.slice(measured.used).every((word) => NOTES.has(word.lower))) return null;
    const { measure } = measured;
    return { quantity: number.value * measure.size, unit: measure.kind === "mass" ? "g" : "ml", kind: measure.kind, writtenUnit: measure.unit };
  }
  const word = wordUnitOf(unitWords, 0);
  if (word) return unitWords.slice(word.used).every((w) => NOTES.has(w.lower)) ? { quantity: number.value, unit: word.unit, kind: "word", writtenUnit: word.unit } : null;
  return unitWords.every((w) => NOTES.has(w.lower)) ? { quantity: number.value, unit: "count", kind: "count", writtenUnit: "count" } : null;
}

/** "200g" read as a whole word ("200g" has no space for the word split to find). */
function gluedMeasure(text: string, at: number): { measure: Measure; used: number } | null {
  const unit = /^([a-z]{1,12})\b/i.exec(text.slice(at, at + 14));
  const measure = unit ? MEASURES.get(unit[1]!.toLowerCase()) : undefined;
  return measure ? { measure, used: 1 } : null;
}

/**
 * What a line says about its quantity: the leading form when it starts with a quantity ("2 eggs"),
 * the bracket form when its quantity is in its last bracket ("Eggs (2)"), or null.
 */
export function readIngredientLine(line: string): IngredientReading | null {
  if (line.length > MAX_LINE) return null;
  const leading = readLeading(line);
  if (leading && (leading.amount === null || leading.amount.kind !== "count")) return leading;
  const bracket = readBracket(line);
  // A name that starts with a number ("5 spice powder (1 tsp)", "00 flour (500g)") keeps its
  // quantity in the bracket; "3 eggs (1 for the glaze)" has none there.
  if (bracket && line.trimEnd().endsWith(")") && bracket.amount && bracket.amount.kind !== "count") return bracket;
  return leading ?? bracket;
}

// ---------------------------------------------------------------------------------------------
// Scaling

function scaleNumberText(text: string, token: NumberToken, factor: number): string {
  const scaled = token.value * factor;
  if (Math.abs(scaled - token.value) < 1e-9) return text.slice(token.start, token.end); // unchanged quantities keep their spelling
  return formatQuantity(scaled, token.style);
}

/** One ingredient line with its quantities multiplied by `factor`; anything unread stays as written. */
export function scaleIngredientLine(line: string, factor: number): string {
  if (!Number.isFinite(factor) || factor <= 0 || factor === 1) return line;
  const reading = readIngredientLine(line);
  if (!reading || (reading.numbers.length === 0 && !reading.article)) return line;
  const edits: { start: number; end: number; text: string }[] = reading.numbers.map((token) => ({
    start: token.start,
    end: token.end,
    text: scaleNumberText(line, token, factor),
  }));
  const count = reading.count === null ? null : reading.count * factor;
  if (reading.article) {
    const written = formatQuantity(factor, "auto");
    edits.push({ start: reading.article.start, end: reading.article.end, text: reading.article.beforePack ? `${written} x` : written });
  }
  const word = reading.countedWord;
  if (word && count !== null) {
    const wanted = count > 1 + 1e-9 ? word.plural : word.singular;
    const written = line.slice(word.start, word.end);
    if (written.toLowerCase() !== wanted) {
      const cased = written.charAt(0) === written.charAt(0).toUpperCase() ? wanted.charAt(0).toUpperCase() + wanted.slice(1) : wanted;
      edits.push({ start: word.start, end: word.end, text: cased });
    }
  }
  edits.sort((a, b) => b.start - a.start);
  let out = line;
  for (const edit of edits) out = `${out.slice(0, edit.start)}${edit.text}${out.slice(edit.end)}`;
  return out;
}
