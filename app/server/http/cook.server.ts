// What cook mode's loader reads with (docs/rules.md#cook-mode), from here: the route importing these
// readers itself would put the quantity and number readers in the cook page's script, which needs
// none of them (its steps, amounts and timers' durations come written by the server).

export { contentVersion, cookAmounts, cookPath, findDurations, ingredientsInStep, readStep, recipePathWith } from "~/lib/cook-mode";
export { scaleLabel } from "~/lib/scale";
export { convertStepTemperatures, presentIngredientLine } from "~/lib/units";
