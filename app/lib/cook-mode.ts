// Cook mode (docs/rules.md#cook-mode): one step at a time. What the page needs to decide, kept pure
// so it is tested on its own: which step an address asks for, the addresses of the steps, the
// durations in a step's text (its timers), and which ingredient lines a step mentions.

import { readNumberAt } from "./numbers";
import { BASE } from "./paths";
import { readIngredientLine } from "./quantity";
import { parseServes } from "./servings";
import { parseScale } from "./scale";
import { matchKey } from "./shopping-merge";

export { formatClock } from "./cook-clock";

// ---------------------------------------------------------------------------------------------
// Addresses

/** The amounts the cook page was asked for, as the recipe page reads them (docs/rules.md#servings-scaling). */
export interface CookAmounts {
  /** `?serves=N` as asked (a recipe with stated servings only), or null. */
  serves: number | null;
  /** `?scale=…` as written (a recipe without servings only, and only a multiplier it can read), or null. */
  scale: string | null;
  /** What each ingredient line is multiplied by. */
  factor: number;
}

/**
 * The amounts an address asks for: `serves` for a recipe with stated servings, `scale` for one
 * without, as on the recipe page. What cannot be read is dropped (the recipe as written).
 */
export function cookAmounts(recipeServes: number | null, searchParams: URLSearchParams): CookAmounts {
  if (recipeServes !== null) {
    const serves = parseServes(searchParams.get("serves"));
    return { serves, scale: null, factor: (serves ?? recipeServes) / recipeServes };
  }
  const text = searchParams.get("scale");
  const scale = parseScale(text);
  return typeof scale === "number" ? { serves: null, scale: text!.trim(), factor: scale } : { serves: null, scale: null, factor: 1 };
}

/** The search of an address carrying the amounts (`serves` or `scale`), after `first` pairs. */
function searchWith(first: [string, string][], amounts: Pick<CookAmounts, "serves" | "scale">): string {
  const search = new URLSearchParams(first);
  if (amounts.serves !== null) search.set("serves", String(amounts.serves));
  if (amounts.scale !== null) search.set("scale", amounts.scale);
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

/** `/ReciPals/Recipes/{rid}/Cook?step=N&serves=S`: a step of cook mode at the amounts chosen. */
export function cookPath(rid: string, amounts: Pick<CookAmounts, "serves" | "scale"> = { serves: null, scale: null }, step?: number): string {
  return `${BASE}/Recipes/${encodeURIComponent(rid)}/Cook${searchWith(step === undefined ? [] : [["step", String(step)]], amounts)}`;
}

/** The recipe page at the same amounts ("Back to recipe"). */
export function recipePathWith(rid: string, amounts: Pick<CookAmounts, "serves" | "scale">): string {
  return `${BASE}/Recipes/${encodeURIComponent(rid)}${searchWith([], amounts)}`;
}

/**
 * The step `?step=` asks for among `total`, 1-based, and whether the address must be redirected to
 * it: no `step` is step 1 as it stands; a whole number outside 1…total goes to the nearest end,
 * a decimal to the nearest whole step, and anything else ("", "two", "1e3") to step 1. A recipe
 * without steps has no step to go to: 0, never a redirect.
 */
export function readStep(values: readonly string[], total: number): { step: number; redirect: boolean } {
  if (total <= 0) return { step: 0, redirect: false };
  if (values.length === 0) return { step: 1, redirect: false };
  const text = values[0]!;
  const trimmed = text.trim();
  if (!/^[+-]?\d+(?:\.\d+)?$/.test(trimmed)) return { step: 1, redirect: true };
  const step = Math.min(total, Math.max(1, Math.round(Number(trimmed))));
  return { step, redirect: values.length > 1 || String(step) !== text };
}

/**
 * A short fingerprint of what the cook pages show (32-bit FNV-1a, in hex): the service worker takes
 * its offline copies of them again when it changes (public/sw.js).
 */
export function contentVersion(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

// ---------------------------------------------------------------------------------------------
// Durations: a step's timers

export interface StepDuration {
  /** Where the duration is written in the step text. */
  start: number;
  end: number;
  /** How long its timer runs: the lower end of a range ("2-3 minutes" is 2 minutes). */
  seconds: number;
  /** The timer's name: "15 min", "1 hr 30 min", "45 sec". */
  label: string;
}

const HOUR = 3600;
const MINUTE = 60;
/** The longest timer offered (a step saying "marinate for 48 hours" still gets one). */
const MAX_SECONDS = 99 * HOUR;

// Longest spellings first, so "minutes" is not read as "min" + "utes". A unit must end the word:
// "15 minced", "2 hot" and "10 secret" are no durations.
const UNIT = /^(?:hours|hour|hrs|hr|h|minutes|minute|mins|min|seconds|second|secs|sec)(?![\p{L}\p{N}])/iu;
const unitSeconds = (word: string): number => {
  const lower = word.toLowerCase();
  return lower.startsWith("h") ? HOUR : lower.startsWith("m") ? MINUTE : 1;
};

/** The unit at `at` (after up to three spaces, or a hyphen: "15-minute"), with its size in seconds. */
function unitAt(text: string, at: number): { seconds: number; end: number } | null {
  const gap = /^(?:-|[ \u00a0]{0,3})/.exec(text.slice(at, at + 3))![0];
  const unit = UNIT.exec(text.slice(at + gap.length, at + gap.length + 8));
  return unit ? { seconds: unitSeconds(unit[0]), end: at + gap.length + unit[0].length } : null;
}

/** A number where a duration may start: not inside a longer number or word ("gas4", "1/2" from its "2"). */
function numberAt(text: string, at: number): { value: number; end: number } | null {
  if (/[\p{L}\p{N}./,]/u.test(text.charAt(at - 1))) return null;
  const number = readNumberAt(text, at);
  return number ? { value: number.value, end: number.end } : null;
}

/**
 * "1 hr 30 min", "2 hours and 15 minutes", "1 min 30 sec": an amount of a unit followed by
 * amounts of smaller units, read from `at` (a number); its length in seconds, or null.
 */
function amountAt(text: string, at: number): { seconds: number; end: number } | null {
  const written = numberAt(text, at);
  const number = written ?? articleAt(text, at);
  if (!number) return null;
  const unit = unitAt(text, number.end);
  // "a second" is more often "a second time" than a duration.
  if (!unit || (!written && unit.seconds === 1)) return null;
  let seconds = number.value * unit.seconds;
  let end = unit.end;
  let smallest = unit.seconds;
  for (;;) {
    const joint = /^[ \u00a0]{1,3}(?:and[ \u00a0]{1,3})?/i.exec(text.slice(end, end + 8));
    if (!joint) break;
    const more = numberAt(text, end + joint[0].length);
    const moreUnit = more ? unitAt(text, more.end) : null;
    if (!more || !moreUnit || moreUnit.seconds >= smallest) break;
    seconds += more.value * moreUnit.seconds;
    smallest = moreUnit.seconds;
    end = moreUnit.end;
  }
  return { seconds, end };
}

/** "a minute", "an hour", "half an hour": one unit (or a half) written in words (never of seconds). */
function articleAt(text: string, at: number): { value: number; end: number } | null {
  if (/[\p{L}\p{N}]/u.test(text.charAt(at - 1))) return null;
  const words = /^(half[ \u00a0]+an?|an?)(?=[ \u00a0])/i.exec(text.slice(at, at + 10));
  if (!words) return null;
  return { value: words[1]!.toLowerCase().startsWith("half") ? 0.5 : 1, end: at + words[0].length };
}

// What joins the two ends of a range: "2-3", "10–12", "30 to 45", "2 or 3".
const RANGE_JOINT = /^[ \u00a0]{0,3}(?:[-–—]|to(?=[ \u00a0])|or(?=[ \u00a0]))[ \u00a0]{0,3}/i;

/** A duration starting at `at`: one amount, or a range ("2-3 minutes", "1 hour to 1 1/2 hours"). */
function durationAt(text: string, at: number): { seconds: number; end: number } | null {
  const first = amountAt(text, at);
  if (first) {
    // "30 seconds to 1 minute": a range of two amounts, each with its unit.
    const joint = RANGE_JOINT.exec(text.slice(first.end, first.end + 10));
    const second = joint ? amountAt(text, first.end + joint[0].length) : null;
    return second ? { seconds: Math.min(first.seconds, second.seconds), end: second.end } : first;
  }
  // "2-3 minutes", "1 to 1 1/2 hours": two numbers sharing the unit after the second.
  const low = numberAt(text, at);
  if (!low) return null;
  const joint = RANGE_JOINT.exec(text.slice(low.end, low.end + 10));
  if (!joint) return null;
  const high = readNumberAt(text, low.end + joint[0].length);
  const unit = high ? unitAt(text, high.end) : null;
  if (!high || !unit) return null;
  return { seconds: Math.min(low.value, high.value) * unit.seconds, end: unit.end };
}

/**
 * The durations written in a step, in order: "simmer for 15 mins", "1 hour", "2-3 minutes",
 * "1 hr 30 min", "45 seconds", "10–12 minutes", "1 1/2 hours", "half an hour". A range's timer is its
 * lower end, so the cook checks at the earliest time (docs/rules.md#cook-mode). Amounts of anything
 * else ("2 cups", "350F", "gas 4") are not durations.
 */
export function findDurations(text: string): StepDuration[] {
  const found: StepDuration[] = [];
  let at = 0;
  while (at < text.length) {
    const duration = /[\p{N}½¼¾⅓⅔⅛⅜⅝⅞⅕⅖⅗⅘⅙⅚ah]/iu.test(text.charAt(at)) ? durationAt(text, at) : null;
    if (duration) {
      const seconds = Math.round(duration.seconds);
      if (seconds > 0 && seconds <= MAX_SECONDS) found.push({ start: at, end: duration.end, seconds, label: durationLabel(seconds) });
      at = duration.end;
    } else {
      at += 1;
    }
  }
  return found;
}

/** "1 hr 30 min", "15 min", "1 min 30 sec", "45 sec". */
export function durationLabel(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  const hours = Math.floor(whole / HOUR);
  const minutes = Math.floor((whole % HOUR) / MINUTE);
  const rest = whole % MINUTE;
  if (hours > 0) parts.push(`${hours} hr`);
  if (minutes > 0) parts.push(`${minutes} min`);
  if (rest > 0 || parts.length === 0) parts.push(`${rest} sec`);
  return parts.join(" ");
}

// ---------------------------------------------------------------------------------------------
// Ingredients a step mentions

// Words of a name that say how it is cut or how much, not what it is: "Fresh basil" is basil,
// "ground beef" is beef. Compared as matchKey stems ("large" → "larg").
const DESCRIPTIVE = new Set(
  [
    "a", "an", "and", "or", "of", "the", "for", "to", "taste", "fresh", "freshly", "large", "small", "medium", "big",
    "chopped", "sliced", "diced", "minced", "grated", "crushed", "ground", "finely", "roughly", "thinly", "peeled",
    "whole", "extra", "optional", "plus", "about", "some", "few", "handful", "pinch", "dash", "serve", "serving", "garnish",
  ].map((word) => matchKey(word)),
);

/** What a line names ("Eggs" of "Eggs (3)", "garlic" of "2 cloves garlic, crushed"), as written. */
export function ingredientName(line: string): string {
  const read = readIngredientLine(line)?.name;
  if (read !== undefined && read.trim() !== "") return read;
  // A line without a quantity ("Rice Noodles", "Salt, to taste"): its words before any note.
  return line.replace(/\([^)]*\)/g, " ").split(/[,;]/)[0]!.trim();
}

/** The words of a name that say what it is, as stems ("Bell Peppers" → ["bell", "pepper"]). */
function nameWords(line: string): string[] {
  return matchKey(ingredientName(line))
    .split(" ")
    .filter((word) => word !== "" && !DESCRIPTIVE.has(word));
}

/**
 * The ingredient lines (their positions in `lines`) a step mentions, case and singular/plural
 * aside: a line is mentioned when every word of its name is in the step ("Bell Pepper" in "slice
 * the bell peppers"), or when the step names the last word of a longer name ("noodles" for
 * "Rice Noodles") and no other line's name ends in that word ("oil" with both "Olive oil" and
 * "Sesame oil" is neither).
 */
export function ingredientsInStep(step: string, lines: readonly string[]): number[] {
  const said = new Set(matchKey(step).split(" "));
  const names = lines.map(nameWords);
  const lastWords = new Map<string, number>();
  for (const words of names) {
    const last = words[words.length - 1];
    if (last !== undefined) lastWords.set(last, (lastWords.get(last) ?? 0) + 1);
  }
  const found: number[] = [];
  names.forEach((words, index) => {
    if (words.length === 0) return;
    const last = words[words.length - 1]!;
    const whole = words.every((word) => said.has(word));
    const byLastWord = words.length > 1 && said.has(last) && lastWords.get(last) === 1;
    if (whole || byLastWord) found.push(index);
  });
  return found;
}
