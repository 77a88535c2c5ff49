import { presentIngredientLine, type UnitSystem } from "~/lib/units";

/**
 * A recipe's ingredient lines at `factor` and in `units` (null: as written), section by section:
 * the recipe page shows them as the server made them, so the browser needs the quantity reader
 * only once the amounts change (docs/rules.md#servings-scaling, docs/rules.md#units).
 */
export function scaledSections(sections: readonly { ingredients: readonly string[] }[], factor: number, units: UnitSystem | null = null): string[][] {
  return sections.map((section) => section.ingredients.map((line) => presentIngredientLine(line, factor, units)));
}
