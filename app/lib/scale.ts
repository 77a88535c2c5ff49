// A multiplier as typed or written in an address (docs/rules.md#servings-scaling), read with the
// number reader. Apart from app/lib/servings.ts so that the recipe page loads the number reader only
// once someone changes the amounts.

import { formatQuantity, readNumberAt } from "./numbers";
import { SCALE_LIMITS } from "./servings";

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
