// "I made this" (docs/rules.md#i-made-this): limits, texts and addresses shared by the recipe page,
// the entry's own form and the server. Apart from app/lib/paths.ts so that pages without cooks do
// not download them.

export const COOK_LIMITS = {
  noteMax: 500,
  servingsMax: 100,
  /** Entries shown on a recipe page; a profile's "Cooked" tab lists them all. */
  shownOnRecipe: 20,
} as const;

export const COOK_MESSAGES = {
  rating: "Choose a rating from 1 to 5 stars.",
  noteTooLong: `The note can be at most ${COOK_LIMITS.noteMax} characters.`,
  servings: `Servings made must be a whole number from 1 to ${COOK_LIMITS.servingsMax}.`,
  ownRecipe: "You cannot say you made your own recipe.",
  already: "You already said you made this recipe. Change your entry instead.",
  missing: "You have not said you made this recipe.",
  recipeMissing: "Recipe not found.",
  notYours: "You may only change your own entry.",
  saved: "Thanks! Your entry is saved.",
} as const;

/** Where a recipe's "I made this" form is: inside the recipe page, under "Cooked it". */
export const cookedPath = (recipeId: string) => `/ReciPals/Recipes/${encodeURIComponent(recipeId)}/Cooked`;

/** "★ 4.3 · 12 cooks", or null when no one has said they made it. */
export function cookSummary({ count, average }: { count: number; average: number | null }): string | null {
  if (count === 0 || average === null) return null;
  return `★ ${average.toFixed(1)} · ${count} ${count === 1 ? "cook" : "cooks"}`;
}

/** Five stars, as many filled as the rating: "★★★★☆". */
export const stars = (rating: number) => "★".repeat(rating) + "☆".repeat(Math.max(0, 5 - rating));
