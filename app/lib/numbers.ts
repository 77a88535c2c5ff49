// Numbers as recipes write them (docs/rules.md#quantities): reading "3", "0.25", "1/2", "1 1/2",
// "½", "1½", "1 ½", and writing a scaled one the way it was written. Small on its own: the pages
// that only show or choose amounts load this, the whole quantity reader (quantity.ts) only when
// they rescale.

export const UNICODE_FRACTIONS = new Map<string, number>(
  Object.entries({
    "¼": 1 / 4, "½": 1 / 2, "¾": 3 / 4, "⅓": 1 / 3, "⅔": 2 / 3, "⅛": 1 / 8, "⅜": 3 / 8, "⅝": 5 / 8, "⅞": 7 / 8,
    "⅕": 1 / 5, "⅖": 2 / 5, "⅗": 3 / 5, "⅘": 4 / 5, "⅙": 1 / 6, "⅚": 5 / 6,
  }),
);
const NICE = [["⅛", 0.125], ["¼", 0.25], ["⅓", 1 / 3], ["⅜", 0.375], ["½", 0.5], ["⅝", 0.625], ["⅔", 2 / 3], ["¾", 0.75], ["⅞", 0.875]] as const;

/** How a number was written, so a scaled one is written alike. */
export type NumberStyle = "fraction" | "decimal" | "auto";

/** A number in a line: where it is, its value, how it was written. */
export interface NumberToken {
  start: number;
  end: number;
  value: number;
  style: NumberStyle;
}

export const isDigit = (char: string | undefined) => char !== undefined && char >= "0" && char <= "9";

/** The number written at `at`: "3", "0.25", "1/2", "1 1/2", "1½", "1 ½", "½"; null when there is none. */
export function readNumberAt(text: string, at: number): NumberToken | null {
  const alone = UNICODE_FRACTIONS.get(text.charAt(at));
  if (alone !== undefined) return { start: at, end: at + 1, value: alone, style: "fraction" };
  const digits = /^\d{1,9}(?:\.\d{1,9})?/.exec(text.slice(at, at + 20));
  if (!digits) return null;
  const end = at + digits[0].length;
  const whole = Number(digits[0]);
  if (digits[0].includes(".")) return isDigit(text.charAt(end)) ? null : { start: at, end, value: whole, style: "decimal" };
  if (isDigit(text.charAt(end))) return null; // more than nine digits: not a quantity
  const glued = UNICODE_FRACTIONS.get(text.charAt(end));
  if (glued !== undefined) return { start: at, end: end + 1, value: whole + glued, style: "fraction" };
  const over = /^\/(\d{1,9})(?![\d/])/.exec(text.slice(end, end + 11));
  if (over) return Number(over[1]) === 0 ? null : { start: at, end: end + over[0].length, value: whole / Number(over[1]), style: "fraction" };
  if (text.charAt(end) === "/") return null;
  const mixed = /^[ \u00a0]{1,3}(\d{1,9})\/(\d{1,9})(?![\d/])/.exec(text.slice(end, end + 26));
  if (mixed && Number(mixed[2]) !== 0 && Number(mixed[1]) < Number(mixed[2])) {
    return { start: at, end: end + mixed[0].length, value: whole + Number(mixed[1]) / Number(mixed[2]), style: "fraction" };
  }
  const spaced = /^[ \u00a0]{1,3}(\S)/.exec(text.slice(end, end + 5));
  const unicode = spaced ? UNICODE_FRACTIONS.get(spaced[1]!) : undefined;
  if (unicode !== undefined) return { start: at, end: end + spaced![0].length, value: whole + unicode, style: "fraction" };
  return { start: at, end, value: whole, style: "auto" };
}

/**
 * A friendly number: whole, a common fraction (2¾), or at most two decimals. Quantities
 * written as decimals stay decimals; fractions stay fractions.
 */
export function formatQuantity(value: number, style: NumberStyle): string {
  const whole = Math.floor(value + 1e-9);
  const rest = value - whole;
  // Within a hair of a whole number is that number: ⅓× of "Eggs (3)" is 1 egg, not 0.99.
  if (rest < 0.015) return String(whole);
  if (rest > 0.985) return String(whole + 1);
  if (style === "fraction" || (style === "auto" && whole < 10)) {
    const nice = NICE.find(([, v]) => Math.abs(v - rest) < 0.015);
    if (nice) return `${whole > 0 ? whole : ""}${nice[0]}`;
  }
  return String(Math.round(value * 100) / 100);
}

