// Servings and multipliers on the recipe page (docs/rules.md#servings-scaling): which amounts the
// address asks for. Reading a typed multiplier (app/lib/scale.ts) and the scaling itself (the
// quantity reader, app/lib/quantity.ts) need the number reader, which the page loads only once
// someone changes the amounts; what the page shows first needs only this file.

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
/** The choices as the page shows them (scaleLabel's way, written out). */
export const SCALE_CHOICE_LABELS: Record<(typeof SCALE_CHOICES)[number], string> = { 0.5: "½×", 1: "1×", 2: "2×", 3: "3×" };

/** How much the lines are multiplied by: the servings asked for over the recipe's, or the multiplier. */
export function amountsFactor(recipeServes: number | null, serves: number, scale: number | null | "invalid"): number {
  if (recipeServes !== null) return serves / recipeServes;
  return typeof scale === "number" ? scale : 1;
}
