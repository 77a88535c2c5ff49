import fs from "node:fs";

import { describe, expect, it } from "vitest";

import { formatQuantity, scaleIngredientLine } from "~/lib/quantity";
import { scaleLabel } from "~/lib/scale";
import { parseServes, SCALE_CHOICE_LABELS, SCALE_CHOICES } from "~/lib/servings";

describe("scaling ingredient lines", () => {
  it.each([
    ["digestive biscuits (175g/6oz)", 2, "digestive biscuits (350g/12oz)"],
    ["Eggs (3)", 2, "Eggs (6)"],
    ["Eggs (3)", 0.5, "Eggs (1½)"],
    ["flaked almonds (50g/1¾oz)", 2, "flaked almonds (100g/3½oz)"],
    ["Cabbage (0.25)", 2, "Cabbage (0.5)"],
    ["Milk (1 1/2 cups)", 2, "Milk (3 cups)"],
    // A counted word follows its count: "1½ cups", "2 cloves".
    ["Butter (1/2 cup)", 3, "Butter (1½ cups)"],
    ["Sugar (½ cup)", 3, "Sugar (1½ cups)"],
    ["Garlic (1 clove finely chopped)", 2, "Garlic (2 cloves finely chopped)"],
    ["Garlic (2 Cloves)", 0.5, "Garlic (1 Clove)"],
    ["Potatoes (2-3)", 2, "Potatoes (4-6)"],
    ["Chillies (1–2 chopped)", 3, "Chillies (3–6 chopped)"],
    ["Tomatoes (1 x 400g tin)", 2, "Tomatoes (2 x 400g tin)"],
    ["Flour (175g)", 1.5, "Flour (262.5g)"],
  ])("%s × %s → %s", (line, factor, expected) => {
    expect(scaleIngredientLine(line, factor)).toBe(expected);
  });

  it("leaves lines it cannot read exactly as written", () => {
    for (const line of ["Rice Noodles", "Salt (to taste)", "Pepper (pinch)", "Oil )weird(", "Zest (1/0)"]) {
      expect(scaleIngredientLine(line, 3)).toBe(line);
    }
  });

  it("formats friendly quantities", () => {
    expect(formatQuantity(2.75, "fraction")).toBe("2¾");
    expect(formatQuantity(0.3333, "auto")).toBe("⅓");
    expect(formatQuantity(12.5, "auto")).toBe("12.5");
    expect(formatQuantity(3.999, "decimal")).toBe("4");
  });

  it("reads serves from the URL within 1…100", () => {
    expect(parseServes("8")).toBe(8);
    expect(parseServes("0")).toBeNull();
    expect(parseServes("101")).toBeNull();
    expect(parseServes("-2")).toBeNull();
    expect(parseServes("abc")).toBeNull();
    expect(parseServes(null)).toBeNull();
  });

  it("changes nothing at factor 1 and never throws, over every seeded ingredient line", () => {
    const file = process.env.RECIPALS_SEED_FILE!;
    const data = JSON.parse(fs.readFileSync(file, "utf8")) as { recipes: { ingredients_sec: { ingredients: string[] }[] }[] };
    const lines = data.recipes.flatMap((r) => r.ingredients_sec.flatMap((s) => s.ingredients));
    expect(lines.length).toBeGreaterThan(2000);
    for (const line of lines) {
      expect(scaleIngredientLine(line, 1)).toBe(line);
      for (const factor of [0.5, 2, 3.5]) expect(typeof scaleIngredientLine(line, factor)).toBe("string");
    }
    // And it really scales most bracketed quantities of the sample data.
    const changed = lines.filter((line) => /\(\s*\d/.test(line) && scaleIngredientLine(line, 2) !== line);
    expect(changed.length / lines.filter((line) => /\(\s*\d/.test(line)).length).toBeGreaterThan(0.9);
  });
});

describe("the multiplier choices", () => {
  it("are labelled as scaleLabel writes them (the page shows them before the number reader loads)", () => {
    for (const choice of SCALE_CHOICES) expect(SCALE_CHOICE_LABELS[choice]).toBe(scaleLabel(choice));
  });
});
