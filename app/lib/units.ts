// Metric / US display of recipes (docs/rules.md#units): ingredient amounts and step temperatures
// shown in the system the reader chose. Built on the one quantity reader (quantity.ts), so a line
// it cannot read is never guessed at; pure and browser-safe, loaded lazily by the recipe page.
//
// Only the amounts change; the rest of a line is kept character for character. Spoons (tsp, tbsp)
// belong to both systems and are never converted. A pack's size ("400g tin") is what the label
// says and is left alone, like counts, word units ("2 cloves", "pinch") and ranges that do not read.

import { formatQuantity, isDigit, readNumberAt, UNICODE_FRACTIONS, type NumberStyle, type NumberToken } from "./numbers";
import {
  CUP,
  FLUID_OUNCE,
  GRAM,
  isPackWord,
  KILOGRAM,
  LITRE,
  MILLILITRE,
  OUNCE,
  POUND,
  TABLESPOON,
  TEASPOON,
  measureNamed,
  readIngredientLine,
  scaleIngredientLine,
  type Measure,
} from "./quantity";

export type UnitSystem = "metric" | "us";
export const UNIT_SYSTEMS: readonly UnitSystem[] = ["metric", "us"];

/** "metric" or "us" exactly; anything else (other spellings, case, padding) is no choice. */
export function parseUnitSystem(value: unknown): UnitSystem | null {
  return value === "metric" || value === "us" ? value : null;
}

const systemOf = (measure: Measure): UnitSystem | null =>
  measure === TEASPOON || measure === TABLESPOON ? null : measure.metric ? "metric" : "us";

// ---------------------------------------------------------------------------------------------
// Ingredient lines

/** How an amount is written in the target system: its unit, and the rounding a cook reads. */
interface Display {
  measure: Measure;
  singular: string;
  plural: string;
  round: (value: number) => number;
  style: NumberStyle;
}

const toStep = (value: number, step: number) => Math.round(value / step) * step;

// Grams and millilitres: whole below 100, to 5 from 100; kilograms and litres to one decimal, as
// a cookbook writes them ("1.4 l", not "1.44 l").
export const roundMetric = (value: number) => (value < 100 ? Math.round(value) : toStep(value, 5));
export const roundLarge = (value: number) => Math.round(value * 10) / 10;

/** Cups to the nearest quarter or third (1¼, 1⅓, 1½, 1⅔, 1¾): the marks on measuring cups. */
function roundCups(value: number): number {
  const whole = Math.floor(value);
  let best = whole;
  for (const part of [1 / 4, 1 / 3, 1 / 2, 2 / 3, 3 / 4, 1]) {
    if (Math.abs(whole + part - value) < Math.abs(best - value) - 1e-9) best = whole + part;
  }
  return best;
}

const display = (measure: Measure, singular: string, plural: string, round: Display["round"], style: NumberStyle): Display => ({
  measure,
  singular,
  plural,
  round,
  style,
});
const GRAMS = display(GRAM, "g", "g", roundMetric, "auto");
const KILOGRAMS = display(KILOGRAM, "kg", "kg", roundLarge, "decimal");
const MILLILITRES = display(MILLILITRE, "ml", "ml", roundMetric, "auto");
const LITRES = display(LITRE, "l", "l", roundLarge, "decimal");
// Ounces to the half (quarters below one ounce), pounds to the quarter.
const OUNCES = display(OUNCE, "oz", "oz", (value) => toStep(value, value < 1 ? 0.25 : 0.5), "fraction");
const POUNDS = display(POUND, "lb", "lb", (value) => toStep(value, 0.25), "fraction");
const CUPS = display(CUP, "cup", "cups", roundCups, "fraction");
const TABLESPOONS = display(TABLESPOON, "tbsp", "tbsp", (value) => toStep(value, 0.5), "fraction");
const TEASPOONS = display(TEASPOON, "tsp", "tsp", (value) => toStep(value, 0.25), "fraction");

const inUnit = (base: number, shown: Display) => shown.round(base / shown.measure.size);

/** The unit an amount (in grams or millilitres) reads best in, in the target system. */
function displayFor(base: number, kind: Measure["kind"], system: UnitSystem): Display {
  if (system === "metric") {
    const small = kind === "mass" ? GRAMS : MILLILITRES;
    return inUnit(base, small) >= 1000 ? (kind === "mass" ? KILOGRAMS : LITRES) : small;
  }
  if (kind === "mass") return inUnit(base, OUNCES) >= 16 ? POUNDS : OUNCES;
  // A quarter cup (4 tbsp) and more in cups; less in spoons.
  const spoons = inUnit(base, TABLESPOONS);
  return spoons >= 4 ? CUPS : spoons >= 1 ? TABLESPOONS : TEASPOONS;
}

// Abbreviations whose full stop ("1 lb.") goes with the unit it replaces.
const ABBREVIATIONS = new Set(["g", "gr", "kg", "kgs", "ml", "mls", "l", "ltr", "oz", "lb", "lbs", "fl oz", "fl"]);
const SYMBOLS = new Set(["g", "kg", "ml", "l", "oz", "lb"]);

interface UnitAfter {
  measure: Measure;
  /** What separates the number from the unit ("" when glued: "200g"). */
  gap: string;
  end: number;
}

/** The measuring unit right after a number: " g", "g", " cups", " fl oz", "fl", " lb."; null for anything else. */
function unitAfter(line: string, at: number): UnitAfter | null {
  const match = /^([ \u00a0]?)(fl\.?[ \u00a0]?oz|[a-z]{1,12})(\.?)/i.exec(line.slice(at, at + 20));
  if (!match) return null;
  const [, gap, word, stop] = match as unknown as [string, string, string, string];
  const wordEnd = at + gap.length + word.length;
  if (/[\p{L}\d]/u.test(line.charAt(wordEnd))) return null; // "2 large", "3 lemons": not a unit
  const lower = word.toLowerCase().replace(/[.\u00a0 ]+/g, " ");
  // "fl" alone is the shorthand of fluid ounces ("350ml/12fl").
  const measure = lower === "fl oz" || lower === "fl" ? FLUID_OUNCE : measureNamed(lower);
  if (!measure) return null;
  const keepsStop = stop !== "" && ABBREVIATIONS.has(lower) && !/[\p{L}\d]/u.test(line.charAt(wordEnd + 1));
  return { measure, gap, end: wordEnd + (keepsStop ? 1 : 0) };
}

/** Whether the line measures anything in `system` ("butter (75g/3oz)" does in both). */
function measuresIn(line: string, system: UnitSystem): boolean {
  for (let i = 0; i < line.length; i++) {
    const char = line.charAt(i);
    if (!(isDigit(char) || UNICODE_FRACTIONS.has(char)) || /[\p{L}\d.]/u.test(line.charAt(i - 1))) continue;
    const number = readNumberAt(line, i);
    if (!number) continue;
    const unit = unitAfter(line, number.end);
    if (unit && systemOf(unit.measure) === system) return true;
    i = number.end - 1;
  }
  return false;
}

/** "400g tin", "(400g) can", "14 oz jar": a pack's size, not an amount. */
const sizesPack = (line: string, unitEnd: number) => {
  const word = /^\)?[ \u00a0]*([a-z]{2,8})(?![\p{L}])/iu.exec(line.slice(unitEnd, unitEnd + 12));
  return word !== null && isPackWord(word[1]!);
};

const SPOON_BEFORE = /(?:tsps?|tbsps?|tbl?s|tblsp|teaspoons?|tablespoons?)\.?[ \u00a0]*[(/][ \u00a0]*$/i;

/** "2 teaspoons (10ml)", "10ml/2 tsp": a volume said in spoons beside it, which read the same in both systems. */
function spoonBeside(line: string, start: number, end: number): boolean {
  if (SPOON_BEFORE.test(line.slice(Math.max(0, start - 16), start))) return true;
  const joint = /^[ \u00a0]*[(/][ \u00a0]*/.exec(line.slice(end, end + 8));
  const number = joint ? readNumberAt(line, end + joint[0].length) : null;
  const unit = number ? unitAfter(line, number.end) : null;
  return unit !== null && systemOf(unit.measure) === null;
}

const RANGE_JOINT = /^[ \u00a0]{0,3}(?:[-–—]|to)[ \u00a0]{0,3}$/i;
const AFTER_NUMBER_AND_JOINT = /\d[ \u00a0]{0,3}(?:[-–—]|to)[ \u00a0]{0,3}$/i;

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** The amount `numbers` (one, or a range's two ends) in `unit`, written in the target system; null when it cannot be. */
function convertAmount(line: string, numbers: NumberToken[], unit: UnitAfter, system: UnitSystem): Edit | null {
  const bases = numbers.map((token) => token.value * unit.measure.size);
  // A range in the unit of its larger end, unless its ends then round alike ("400-500 g" is not "1-1 lb").
  const units = [displayFor(bases[bases.length - 1]!, unit.measure.kind, system), displayFor(bases[0]!, unit.measure.kind, system)];
  const valuesIn = (shown: Display) => bases.map((base) => inUnit(base, shown));
  const shown = units.find((candidate) => bases.length === 1 || new Set(valuesIn(candidate)).size === bases.length) ?? units[0]!;
  const values = valuesIn(shown);
  // Too small to say in the target unit (a gram or two in ounces): left as written.
  if (values.some((value) => !(value > 0))) return null;
  const lo = values[0]!;
  const hi = values[values.length - 1]!;
  const first = numbers[0]!;
  const last = numbers[numbers.length - 1]!;
  const written =
    values.length === 2 && hi > lo
      ? `${formatQuantity(lo, shown.style)}${line.slice(first.end, last.start)}${formatQuantity(hi, shown.style)}`
      : formatQuantity(hi, shown.style);
  const word = hi > 1 + 1e-9 ? shown.plural : shown.singular;
  // Glued as written ("200g" → "7oz"), but not after a fraction ("10½ oz").
  const gap = unit.gap !== "" || !SYMBOLS.has(word) || !/\d$/.test(written) ? unit.gap || " " : "";
  return { start: first.start, end: unit.end, text: `${written}${gap}${word}` };
}

/**
 * An ingredient line with its mass and volume amounts written in `system`: "Flour (200 g)" →
 * "Flour (7 oz)", "Milk (1 1/2 cups)" → "Milk (360 ml)". A line already showing an amount in
 * `system` ("butter (75g/3oz)", "1 cup (240ml) milk"), and anything unread, stays as written.
 */
export function convertIngredientLine(line: string, system: UnitSystem): string {
  const reading = readIngredientLine(line);
  // A line that already says it in the chosen system is left as it is.
  if (!reading || reading.numbers.length === 0 || measuresIn(line, system)) return line;
  const numbers = [...reading.numbers].sort((a, b) => a.start - b.start);
  const edits: Edit[] = [];
  for (let i = 0; i < numbers.length; i++) {
    const token = numbers[i]!;
    const unit = unitAfter(line, token.end);
    if (!unit || systemOf(unit.measure) === null || sizesPack(line, unit.end)) continue;
    const previous = numbers[i - 1];
    const ranged = previous !== undefined && RANGE_JOINT.test(line.slice(previous.end, token.start));
    if (ranged && previous.value >= token.value) return line; // "2-1/2 cups": not a range we read
    if (!ranged && AFTER_NUMBER_AND_JOINT.test(line.slice(Math.max(0, token.start - 12), token.start))) return line;
    if (unit.measure.kind === "volume" && spoonBeside(line, (ranged ? previous : token).start, unit.end)) return line;
    const edit = convertAmount(line, ranged ? [previous, token] : [token], unit, system);
    if (!edit) return line;
    edits.push(edit);
  }
  let out = line;
  for (const edit of edits.reverse()) out = `${out.slice(0, edit.start)}${edit.text}${out.slice(edit.end)}`;
  return out;
}

/** A line as the recipe page shows it: scaled by `factor` (servings or multiplier), then in `system` when one is chosen. */
export function presentIngredientLine(line: string, factor: number, system: UnitSystem | null): string {
  const scaled = scaleIngredientLine(line, factor);
  return system === null ? scaled : convertIngredientLine(scaled, system);
}

// ---------------------------------------------------------------------------------------------
// Step temperatures

// "180C", "180 °C", "180ºC", "350F", "350 °F", "350 degrees F", "175 degrees Celsius", "180-200°C",
// "375 F degrees". A bare letter is read only as a capital or glued to the number ("180c"): "2 c"
// is two cups. "350°" and "350 degrees" say no scale and are left alone, as is "gas mark 4".
const TEMPERATURE =
  /(\d{2,3})(?:([ \u00a0]?[-–][ \u00a0]?)(\d{2,3}))?([ \u00a0]?)(?:[°º˚][ \u00a0]?([CFcf])(?:elsius|ahrenheit)?|([℃℉])|[Dd]eg(?:rees?|\.)?[ \u00a0]+([CFcf])(?:elsius|entigrade|ahrenheit)?|([CFcf])(?:elsius|entigrade|ahrenheit)?)(?:[ \u00a0]+degrees)?(?![\p{L}\d])/gu;

// What may stand between two ways of saying one setting: "200C/400F", "190C (375F)",
// "200C, 400F", "200°C fan / 220°C conventional / 425°F".
const SAME_SETTING = /^[ \u00a0/,;()]*(?:(?:fan|or|conventional|oven)[ \u00a0/,;()]*)*$/i;

// Plausible cooking temperatures, from proving dough to the hottest home oven: 30–300 °C and
// 90–575 °F. Outside these a number and a letter are something else ("2C", "12F").
const PLAUSIBLE: Record<UnitSystem, [number, number]> = { metric: [30, 300], us: [90, 575] };

interface Temperature {
  start: number;
  end: number;
  system: UnitSystem;
  values: number[];
  joint: string;
}

function readTemperatures(text: string): Temperature[] {
  const found: Temperature[] = [];
  for (const match of text.matchAll(TEMPERATURE)) {
    const [whole, lo, joint, hi, space, degree, symbol, named, bare] = match;
    const start = match.index;
    if (/[\d.,]/.test(text.charAt(start - 1))) continue; // part of a longer number
    if (bare !== undefined && bare === bare.toLowerCase() && space !== "") continue; // "2 c flour"
    const letter = (degree ?? named ?? bare ?? (symbol === "℃" ? "C" : "F")).toUpperCase();
    const system: UnitSystem = letter === "C" ? "metric" : "us";
    const values = hi === undefined ? [Number(lo)] : [Number(lo), Number(hi)];
    const [min, max] = PLAUSIBLE[system];
    if (values.some((value) => value < min || value > max) || (values.length === 2 && values[0]! >= values[1]!)) continue;
    found.push({ start, end: start + whole.length, system, values, joint: joint ?? "" });
  }
  return found;
}

/**
 * Oven settings read the way oven dials and conversion tables write them: above 250 °F to the
 * nearest 25 °F and above 120 °C to the nearest 10 °C (180C is 350°F, 350F is 180°C); lower
 * temperatures (proving, a thermometer's reading) to the nearest 5 degrees.
 */
function convertDegrees(value: number, to: UnitSystem): number {
  if (to === "us") {
    const fahrenheit = (value * 9) / 5 + 32;
    return toStep(fahrenheit, fahrenheit > 250 ? 25 : 5);
  }
  const celsius = ((value - 32) * 5) / 9;
  return toStep(celsius, celsius > 120 ? 10 : 5);
}

/**
 * Step text with its temperatures in `system`: "Preheat the oven to 180C." → "Preheat the oven to
 * 350°F." (rounded as convertDegrees says). A temperature already in `system`, or given alongside one
 * that is ("200C/400F/Gas 6", "190C (375F)"), stays as written; so does everything else.
 */
export function convertStepTemperatures(text: string, system: UnitSystem): string {
  const temperatures = readTemperatures(text);
  if (temperatures.length === 0) return text;
  // Temperatures side by side are one setting said several ways: convert none of them when one is in `system`.
  const groups: Temperature[][] = [];
  for (const temperature of temperatures) {
    const group = groups[groups.length - 1];
    const last = group?.[group.length - 1];
    if (group && last && temperature.start - last.end <= 24 && SAME_SETTING.test(text.slice(last.end, temperature.start))) group.push(temperature);
    else groups.push([temperature]);
  }
  let out = text;
  for (const group of groups.reverse()) {
    if (group.some((temperature) => temperature.system === system)) continue;
    for (const temperature of [...group].reverse()) {
      const [lo, hi] = temperature.values.map((value) => convertDegrees(value, system));
      const unit = system === "us" ? "°F" : "°C";
      const written = hi === undefined || hi <= lo! ? `${hi ?? lo}${unit}` : `${lo}${temperature.joint}${hi}${unit}`;
      out = `${out.slice(0, temperature.start)}${written}${out.slice(temperature.end)}`;
    }
  }
  return out;
}
