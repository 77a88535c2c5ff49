// Servings and multipliers on the recipe page (docs/rules.md#servings-scaling): which amounts the
// address asks for. The scaling itself is the quantity reader's (app/lib/quantity.ts), which the
// page loads only once someone changes them.

import { formatQuantity, readNumberAt } from "./numbers";

export const MAX_SERVES = 100;

/** The serves asked for in the URL, within 1…100, or null when absent or unreadable. */
export function parseServes(value: string | null): number | null {
  if (!value || !/^\d{1,3}$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n <= MAX_SERVES ? n : null;
}

/** A multiplier for a recipe without stated servings: the choices offered, and what may be typed. */
export const SCALE_CHOICES = [0.5, 1, 2, 3] as const;
export const SCALE_LIMITS = { min: 0.25, max: 20 } as const;
export const SCALE_MESSAGE = "The multiplier must be a number from ¼ to 20, such as 1.5 or 1/2.";

/**
 * The multiplier written in an address or a form ("2", "0.5", "1.5", "1 1/2", "½", "1/3", "2x"),
 * exactly as written (⅓ stays a third, so three eggs make one): null when none was given,
 * "invalid" when it is not a number from ¼ to 20.
 */
export function parseScale(value: string | null | undefined): number | null | "invalid" {
  const text = (value ?? "").trim().replace(/[x×]$/i, "").trim();
  if (text === "") return null;
  if (text.length > 12) return "invalid";
  const number = readNumberAt(text, 0);
  if (!number || number.end !== text.length) return "invalid";
  return number.value >= SCALE_LIMITS.min && number.value <= SCALE_LIMITS.max ? number.value : "invalid";
}

/** "½×", "2×", "1.5×": a multiplier as the page shows it. */
export function scaleLabel(scale: number): string {
  return `${formatQuantity(scale, "auto")}×`;
}
