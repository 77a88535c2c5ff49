import { presentIngredientLine, type UnitSystem } from "~/lib/units";

// The recipe page's loader and action read multipliers from here: a route importing the number
// reader itself would put it in its first script (docs/rules.md#performance-budgets).
export { parseScale } from "~/lib/scale";

/**
 * A recipe's ingredient lines at `factor` and in `units` (null: as written), section by section:
 * the recipe page shows them as the server made them, so the browser needs the quantity reader
 * only once the amounts change (docs/rules.md#servings-scaling, docs/rules.md#units).
 */
export function scaledSections(sections: readonly { ingredients: readonly string[] }[], factor: number, units: UnitSystem | null = null): string[][] {
  return sections.map((section) => section.ingredients.map((line) => presentIngredientLine(line, factor, units)));
}
