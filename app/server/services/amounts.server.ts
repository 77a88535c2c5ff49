import { scaleIngredientLine } from "~/lib/quantity";

/**
 * A recipe's ingredient lines at `factor`, section by section: the recipe page shows them as the
 * server scaled them, so the browser needs the quantity reader only once the amounts change.
 */
export function scaledSections(sections: readonly { ingredients: readonly string[] }[], factor: number): string[][] {
  return sections.map((section) => section.ingredients.map((line) => scaleIngredientLine(line, factor)));
}
