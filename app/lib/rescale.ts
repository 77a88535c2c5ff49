// What the recipe page loads the first time someone changes the amounts (docs/rules.md#servings-scaling):
// reading a typed multiplier, and writing the lines at other amounts and in other units.

export { presentIngredientLine as present } from "./units";
export { parseScale } from "./scale";
