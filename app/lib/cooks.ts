// "I made this" (docs/rules.md#i-made-this): what the recipe page and search cards show of the
// entries. Apart from app/lib/paths.ts so that pages without cooks do not download it; the form's
// limits and messages are in app/lib/cook-limits.ts, which only the form's page loads.

/** Where a recipe's "I made this" form is: inside the recipe page, under "Cooked it". */
export const cookedPath = (recipeId: string) => `/ReciPals/Recipes/${encodeURIComponent(recipeId)}/Cooked`;

/** "★ 4.3 · 12 cooks", or null when no one has said they made it. */
export function cookSummary({ count, average }: { count: number; average: number | null }): string | null {
  if (count === 0 || average === null) return null;
  return `★ ${average.toFixed(1)} · ${count} ${count === 1 ? "cook" : "cooks"}`;
}

/** The summary as a screen reader says it: "Rated 4.3 out of 5 by 12 cooks". */
export function cookSummaryLabel({ count, average }: { count: number; average: number | null }): string {
  return `Rated ${average?.toFixed(1) ?? 0} out of 5 by ${count} ${count === 1 ? "cook" : "cooks"}`;
}

/** Five stars, as many filled as the rating: "★★★★☆". */
export const stars = (rating: number) => "★".repeat(rating) + "☆".repeat(Math.max(0, 5 - rating));
