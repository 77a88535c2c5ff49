// Rescales the quantities written in ingredient lines (docs/rules.md#servings-scaling). The sample data writes
// them in brackets — "digestive biscuits (175g/6oz)", "Eggs (3)", "Cabbage (0.25)" — so
// numbers inside the last bracket are scaled: integers, decimals, "1 1/2", "½", "1¾" and
// ranges ("2-3"). Anything else stays exactly as written.

const UNICODE_FRACTIONS: Record<string, number> = {
  "¼": 1 / 4, "½": 1 / 2, "¾": 3 / 4, "⅓": 1 / 3, "⅔": 2 / 3, "⅛": 1 / 8, "⅜": 3 / 8, "⅝": 5 / 8, "⅞": 7 / 8,
  "⅕": 1 / 5, "⅖": 2 / 5, "⅗": 3 / 5, "⅘": 4 / 5, "⅙": 1 / 6, "⅚": 5 / 6,
};
const FRACTION_CHARS = Object.keys(UNICODE_FRACTIONS).join("");
const NICE = [["¼", 0.25], ["⅓", 1 / 3], ["½", 0.5], ["⅔", 2 / 3], ["¾", 0.75]] as const;

// One quantity: "1 1/2", "1/2", "1½", "½", "0.25", "175"; a range is two of them joined by - or –.
const NUMBER = `(?:\\d+(?:\\.\\d+)?\\s+\\d+/\\d+|\\d+/\\d+|\\d+(?:\\.\\d+)?[${FRACTION_CHARS}]?|[${FRACTION_CHARS}])`;
const QUANTITY = new RegExp(`${NUMBER}(?:\\s*[-–]\\s*${NUMBER})?`, "g");
const SINGLE = new RegExp(`^${NUMBER}$`);

function readNumber(text: string): number | null {
  const t = text.trim();
  if (!SINGLE.test(t)) return null;
  const mixed = /^(\d+(?:\.\d+)?)\s+(\d+)\/(\d+)$/.exec(t);
  if (mixed) return Number(mixed[3]) === 0 ? null : Number(mixed[1]) + Number(mixed[2]) / Number(mixed[3]);
  const fraction = /^(\d+)\/(\d+)$/.exec(t);
  if (fraction) return Number(fraction[2]) === 0 ? null : Number(fraction[1]) / Number(fraction[2]);
  const last = t.at(-1)!;
  if (last in UNICODE_FRACTIONS) return (t.length > 1 ? Number(t.slice(0, -1)) : 0) + UNICODE_FRACTIONS[last]!;
  const value = Number(t);
  return Number.isFinite(value) ? value : null;
}

/**
 * A friendly number: whole, a common fraction (2¾), or at most two decimals. Quantities
 * written as decimals stay decimals; fractions stay fractions.
 */
export function formatQuantity(value: number, style: "fraction" | "decimal" | "auto"): string {
  const whole = Math.floor(value + 1e-9);
  const rest = value - whole;
  if (rest < 0.01) return String(whole);
  if (rest > 0.99) return String(whole + 1);
  if (style === "fraction" || (style === "auto" && whole < 10)) {
    const nice = NICE.find(([, v]) => Math.abs(v - rest) < 0.02);
    if (nice) return `${whole > 0 ? whole : ""}${nice[0]}`;
  }
  return String(Math.round(value * 100) / 100);
}

function scaleNumber(text: string, factor: number): string {
  const value = readNumber(text);
  if (value === null) return text;
  const scaled = value * factor;
  if (Math.abs(scaled - value) < 1e-9) return text; // unchanged quantities keep their spelling
  const style = /[/¼-¾⅐-⅞]/.test(text) ? "fraction" : text.includes(".") ? "decimal" : "auto";
  return formatQuantity(scaled, style);
}

function scaleQuantity(match: string, factor: number): string {
  const range = new RegExp(`^(${NUMBER})(\\s*[-–]\\s*)(${NUMBER})$`).exec(match);
  if (range) return `${scaleNumber(range[1]!, factor)}${range[2]}${scaleNumber(range[3]!, factor)}`;
  return scaleNumber(match, factor);
}

/** One ingredient line with the quantities in its last bracket multiplied by `factor`. */
export function scaleIngredientLine(line: string, factor: number): string {
  if (!Number.isFinite(factor) || factor <= 0) return line;
  const open = line.lastIndexOf("(");
  const close = line.lastIndexOf(")");
  if (open < 0 || close < open) return line;
  const inside = line.slice(open + 1, close);
  // "1 x 400g tin": the count scales, the tin size does not.
  const multiplied = /^(\s*)(\d+)(\s*x\s+)(.*)$/i.exec(inside);
  const scaledInside = multiplied
    ? `${multiplied[1]}${scaleNumber(multiplied[2]!, factor)}${multiplied[3]}${multiplied[4]}`
    : inside.replace(QUANTITY, (match) => scaleQuantity(match, factor));
  return `${line.slice(0, open + 1)}${scaledInside}${line.slice(close)}`;
}

export const MAX_SERVES = 100;

/** The serves asked for in the URL, within 1…100, or null when absent or unreadable. */
export function parseServes(value: string | null): number | null {
  if (!value || !/^\d{1,3}$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n <= MAX_SERVES ? n : null;
}
