import fs from "node:fs";

import { describe, expect, it } from "vitest";

import { readIngredientLine } from "~/lib/quantity";
import {
  convertIngredientLine,
  convertStepTemperatures,
  parseUnitSystem,
  presentIngredientLine,
  UNIT_SYSTEMS,
  type UnitSystem,
} from "~/lib/units";

import { QUANTITY_FIRST_LINES } from "../support/quantity-first-lines";

// Metric / US display (app/lib/units.ts, docs/rules.md#units): amounts and oven temperatures
// in the chosen system, everything else exactly as written.

describe("the choice", () => {
  it("is metric or us, exactly", () => {
    expect(UNIT_SYSTEMS).toEqual(["metric", "us"]);
    expect(parseUnitSystem("metric")).toBe("metric");
    expect(parseUnitSystem("us")).toBe("us");
  });

  it.each([["US"], ["Metric"], [" us"], ["us "], ["imperial"], ["uk"], [""], [null], [undefined], [1], [["us"]], [{}], [true]])(
    "refuses %j",
    (value) => {
      expect(parseUnitSystem(value)).toBeNull();
    },
  );
});

describe("ingredient lines to US", () => {
  it.each([
    // Grams to ounces (to the half; quarters below one), from a pound on to pounds (to the quarter).
    ["Butter (250 g)", "Butter (9 oz)"],
    ["Flour (200g)", "Flour (7oz)"],
    ["Sugar (45g)", "Sugar (1½ oz)"],
    ["Chorizo (300g)", "Chorizo (10½ oz)"],
    ["Yeast (7g)", "Yeast (¼ oz)"],
    ["Puff Pastry (500g)", "Puff Pastry (1lb)"],
    ["Beef (1kg)", "Beef (2¼ lb)"],
    ["Chicken Thighs (4 (650g))", "Chicken Thighs (4 (1½ lb))"],
    // Millilitres and litres to cups (to the quarter or third), less than a quarter cup in spoons.
    ["Milk (200ml)", "Milk (¾ cup)"],
    ["Beef Stock (100ml)", "Beef Stock (⅓ cup)"],
    ["Stout (330ml)", "Stout (1⅓ cups)"],
    ["Water (1 l)", "Water (4¼ cups)"],
    ["Water (2 Litres)", "Water (8⅓ cups)"],
    ["Lime juice (30 ml)", "Lime juice (2 tbsp)"],
    ["Brandy (50ml)", "Brandy (3½ tbsp)"],
    ["Vanilla extract (5 ml)", "Vanilla extract (1 tsp)"],
    ["Rose water (2.5 ml)", "Rose water (½ tsp)"],
    // Ranges convert both ends; notes after the amount stay.
    ["Flour (200-250 g)", "Flour (7-9 oz)"],
    ["Flour (200 to 250 g)", "Flour (7 to 9 oz)"],
    ["Potatoes (450g waxy)", "Potatoes (1lb waxy)"],
    ["Butter (250 g, softened)", "Butter (9 oz, softened)"],
    // Quantity first.
    ["100 g cheese", "3½ oz cheese"],
    ["250g plain flour", "9oz plain flour"],
    ["1 kg potatoes, peeled", "2¼ lb potatoes, peeled"],
    ["500 ml chicken stock", "2 cups chicken stock"],
    ["200ml double cream", "¾ cup double cream"],
  ])("%s → %s", (line, expected) => {
    expect(convertIngredientLine(line, "us")).toBe(expected);
  });
});

describe("ingredient lines to metric", () => {
  it.each([
    // Ounces and pounds to grams (whole; to 5 from 100 g), from 1000 g on to kilograms (two decimals).
    ["Chicken (1.5 lb)", "Chicken (680 g)"],
    ["Beef (1 lb.)", "Beef (455 g)"],
    ["Beef (1/2 lb)", "Beef (225 g)"],
    ["Cheese (1 oz)", "Cheese (28 g)"],
    ["Cream Cheese (1 1/4 oz)", "Cream Cheese (35 g)"],
    ["Tomato Puree (8 ounces)", "Tomato Puree (225 g)"],
    ["Red Snapper (2 Pounds)", "Red Snapper (905 g)"],
    ["Potatoes (3 Lbs)", "Potatoes (1.4 kg)"],
    ["Beef Brisket (4-5 pound)", "Beef Brisket (1.8-2.3 kg)"],
    // Cups and fluid ounces to millilitres, from 1000 ml on to litres.
    ["Milk (2 cups)", "Milk (480 ml)"],
    ["Sugar (1/2 cup)", "Sugar (120 ml)"],
    ["Milk (1 1/2 cups)", "Milk (360 ml)"],
    ["Potato starch (1/3 cup)", "Potato starch (80 ml)"],
    ["Cream (¾ cup)", "Cream (180 ml)"],
    ["Beef Stock (5 Cups)", "Beef Stock (1.2 l)"],
    // Litres and kilograms to one decimal, as a cookbook writes them.
    ["Milk (6 cups)", "Milk (1.4 l)"],
    // Spoons are spoons in both systems.
    ["Butter (2 tbsp)", "Butter (2 tbsp)"],
    ["Oil (3 tsp)", "Oil (3 tsp)"],
    ["Cream (4 fl oz)", "Cream (120 ml)"],
    ["Parmesan (½ cup freshly grated)", "Parmesan (120 ml freshly grated)"],
    ["Saffron (½ tsp dissolved in ½ cup warm milk)", "Saffron (½ tsp dissolved in 120 ml warm milk)"],
    // Quantity first.
    ["1 ½ cups flour", "360 ml flour"],
    ["1 1/2 cups whole milk", "360 ml whole milk"],
    ["8 oz cream cheese", "225 g cream cheese"],
    ["1 lb ground beef", "455 g ground beef"],
    ["2-3 cups stock", "480-720 ml stock"],
  ])("%s → %s", (line, expected) => {
    expect(convertIngredientLine(line, "metric")).toBe(expected);
  });
});

describe("left exactly as written", () => {
  it.each([
    // Spoons read the same in both systems.
    ["Salt (1 tsp)"],
    ["2 tbsp olive oil"],
    ["1–2 tbsp sugar"],
    ["0.5 tsp chilli flakes"],
    // Counts and words.
    ["Eggs (3)"],
    ["Garlic (2 cloves)"],
    ["Salt (pinch)"],
    ["a pinch of salt"],
    ["2 bay leaves"],
    ["Ginger (3cm piece)"],
    // No amount, or one it cannot read.
    ["Salt and pepper"],
    ["Fresh parsley"],
    ["Juice of 1 lemon"],
    ["1 lb 8 oz beef"],
    ["Flour (2-1/2 cups)"],
    [""],
    // A pack's size is its label.
    ["a 400g tin of tomatoes"],
    ["2 x 400g tins chopped tomatoes"],
    ["1 (400g) can chickpeas, drained"],
    ["Chopped tomatoes (1 (400g) tin)"],
    ["tomatoes (400g can)"],
    ["Enchilada sauce (14 oz jar)"],
    // Already said in both systems.
    ["butter (75g/3oz)"],
    ["flaked almonds (50g/1¾oz)"],
    ["milk (350ml/12fl)"],
    ["double cream (50ml/2fl oz)"],
    ["1 cup (240ml) milk"],
    ["2 cups/480ml milk"],
    ["Macaroni (8 ounces (230 grams))"],
    ["Apple Cider Vinegar (2 teaspoons (10ml))"],
    // Too small to say in ounces or spoons.
    ["Saffron (1 g)"],
    ["Vanilla (0.5 ml)"],
  ])("%s", (line) => {
    expect(convertIngredientLine(line, "us")).toBe(line);
    expect(convertIngredientLine(line, "metric")).toBe(line);
  });

  it("amounts already in the chosen system", () => {
    for (const line of ["Butter (250 g)", "Water (1 l)", "100 g cheese", "Beef (1.5kg)", "Milk (200ml)"]) {
      expect(convertIngredientLine(line, "metric")).toBe(line);
    }
    for (const line of ["Milk (2 cups)", "Chicken (1.5 lb)", "8 oz cream cheese", "Sugar (1/2 cup)", "Beef (1 lb.)"]) {
      expect(convertIngredientLine(line, "us")).toBe(line);
    }
  });

  it("lines longer than the reader reads", () => {
    const long = `Flour (200 g) ${"x".repeat(600)}`;
    expect(convertIngredientLine(long, "us")).toBe(long);
  });
});

/** Grams or millilitres in a line, as the quantity reader adds them up. */
function amountOf(line: string): number {
  const amount = readIngredientLine(line)?.amount;
  if (!amount || (amount.kind !== "mass" && amount.kind !== "volume")) throw new Error(`no amount in ${line}`);
  return amount.quantity;
}

describe("round trips stay sensible", () => {
  const there = (from: UnitSystem): UnitSystem => (from === "metric" ? "us" : "metric");

  it.each([
    ["Butter (250 g)", "metric"],
    ["Flour (200g)", "metric"],
    ["Beef (1kg)", "metric"],
    ["Potatoes (1.5kg)", "metric"],
    ["Water (1 l)", "metric"],
    ["Milk (200ml)", "metric"],
    ["Stock (750 ml)", "metric"],
    ["Sugar (1/2 cup)", "us"],
    ["Milk (2 cups)", "us"],
    ["Chicken (1.5 lb)", "us"],
    ["Cheese (8 oz)", "us"],
    ["Beef (3 lb)", "us"],
  ] as const)("%s (%s) there and back is within 15%%", (line, system) => {
    const away = convertIngredientLine(line, there(system));
    const back = convertIngredientLine(away, system);
    expect(away).not.toBe(line);
    // Cups go by quarters and thirds: 200 ml is ¾ cup, 180 ml back.
    expect(amountOf(back) / amountOf(line)).toBeGreaterThanOrEqual(0.85);
    expect(amountOf(back) / amountOf(line)).toBeLessThanOrEqual(1.15);
    // And once converted, converting again to the same system changes nothing.
    expect(convertIngredientLine(away, there(system))).toBe(away);
  });
});

describe("servings scaling, then the chosen system", () => {
  it.each([
    ["Flour (200g)", 2, "us", "Flour (14oz)"],
    ["Milk (1/2 cup)", 3, "metric", "Milk (360 ml)"],
    ["Chicken (1.5 lb)", 2, "metric", "Chicken (1.4 kg)"],
    ["Butter (250 g)", 0.5, "us", "Butter (4½ oz)"],
    ["Water (1 l)", 0.5, "us", "Water (2 cups)"],
    ["Flour (200-250 g)", 2, "us", "Flour (14-17½ oz)"],
    ["2 cups flour", 1.5, "metric", "720 ml flour"],
    ["Eggs (3)", 2, "us", "Eggs (6)"],
    ["Salt (1 tsp)", 2, "metric", "Salt (2 tsp)"],
    ["Butter (250 g)", 2, "metric", "Butter (500 g)"],
    ["Butter (250 g)", 1, "us", "Butter (9 oz)"],
    ["Butter (250 g)", 3, null, "Butter (750 g)"],
  ] as const)("%s × %s in %s → %s", (line, factor, system, expected) => {
    expect(presentIngredientLine(line, factor, system)).toBe(expected);
  });

  it("factor 1 and no system is the line as written", () => {
    for (const line of ["Butter (250 g)", "Milk (2 cups)", "Salt and pepper", "Eggs (3)", ""]) {
      expect(presentIngredientLine(line, 1, null)).toBe(line);
    }
  });
});

describe("step temperatures", () => {
  it.each([
    ["Preheat the oven to 180C.", "Preheat the oven to 350°F."],
    ["Bake at 180 °C for 20 minutes", "Bake at 350°F for 20 minutes"],
    ["Roast at 220°C until golden", "Roast at 425°F until golden"],
    ["Bake in the oven at 180ºC/160ºC fan/gas 4", "Bake in the oven at 350°F/325°F fan/gas 4"],
    ["Heat oven to 200C/180C fan/gas 6", "Heat oven to 400°F/350°F fan/gas 6"],
    ["Heat the oven to 180c/fan 160c/gas 4", "Heat the oven to 350°F/fan 325°F/gas 4"],
    ["bake at 175 degrees C for about 25 minutes", "bake at 350°F for about 25 minutes"],
    ["Preheat oven to 180° C", "Preheat oven to 350°F"],
    ["Heat to 180℃", "Heat to 350°F"],
    ["Bake at 180-200°C", "Bake at 350-400°F"],
    ["Prove somewhere warm, about 35C", "Prove somewhere warm, about 95°F"],
  ])("%s → %s (US)", (text, expected) => {
    expect(convertStepTemperatures(text, "us")).toBe(expected);
    expect(convertStepTemperatures(text, "metric")).toBe(text);
  });

  it.each([
    ["Bake at 350 °F for 20 minutes", "Bake at 180°C for 20 minutes"],
    ["Preheat the oven to 425 F", "Preheat the oven to 220°C"],
    ["Preheat oven to 550F", "Preheat oven to 290°C"],
    ["Heat until the oil reaches 360 degrees F", "Heat until the oil reaches 180°C"],
    ["Preheat oven to 375 F degrees", "Preheat oven to 190°C"],
    ["Bake in a 350f oven for 15 minutes", "Bake in a 180°C oven for 15 minutes"],
    ["Cook until the thickest part reads 165°F", "Cook until the thickest part reads 75°C"],
    ["Preheat oven to 350° F", "Preheat oven to 180°C"],
    ["Heat at 325 degrees Fahrenheit", "Heat at 160°C"],
  ])("%s → %s (metric)", (text, expected) => {
    expect(convertStepTemperatures(text, "metric")).toBe(expected);
    expect(convertStepTemperatures(text, "us")).toBe(text);
  });

  it.each([
    // One setting said in both systems stays as written, whichever is chosen.
    ["Heat to 200°C / 400°F fan"],
    ["Preheat the oven to 200C/400F/Gas 6"],
    ["Preheat the oven to 200C, 400F, gas 6"],
    ["Heat the oven to 190C (375F)."],
    ["Preheat the oven to 350 degrees F (175 degrees C)."],
    ["Heat to 200°C fan / 220°C conventional / 425°F / Gas mark 7"],
    // No scale said, or not a cooking temperature.
    ["Preheat the oven to 350°"],
    ["Heat oil to 350 degrees"],
    ["Bake at gas mark 4"],
    ["Add 2C of water"],
    ["Chill at 4C overnight"],
    ["Mix 2 c flour with 12F sugar"],
    ["Cook at 1800C"],
    ["Bake for 20-25 minutes"],
    ["Stir in 2 cups of flour"],
    [""],
  ])("%s stays", (text) => {
    expect(convertStepTemperatures(text, "us")).toBe(text);
    expect(convertStepTemperatures(text, "metric")).toBe(text);
  });

  it("converts each temperature of a step on its own", () => {
    expect(convertStepTemperatures("Fry at 180C, then bake at 200C for 10 minutes.", "us")).toBe(
      "Fry at 350°F, then bake at 400°F for 10 minutes.",
    );
  });
});

describe("the sample data and the quantity-first lines", () => {
  it("convert without touching what is not an amount, and converting twice is converting once", () => {
    const data = JSON.parse(fs.readFileSync(process.env.RECIPALS_SEED_FILE!, "utf8")) as {
      recipes: { ingredients_sec: { ingredients: string[] }[]; steps: string[] }[];
    };
    const lines = [
      ...data.recipes.flatMap((recipe) => recipe.ingredients_sec.flatMap((section) => section.ingredients)),
      ...QUANTITY_FIRST_LINES.map(({ line }) => line),
    ];
    const changed = { metric: 0, us: 0 };
    for (const system of UNIT_SYSTEMS) {
      for (const line of lines) {
        const converted = convertIngredientLine(line, system);
        if (converted === line) continue;
        changed[system]++;
        expect(converted, line).not.toMatch(/NaN|Infinity|undefined/);
        expect(convertIngredientLine(converted, system), line).toBe(converted);
        // Only the amount changes: the name before the bracket, or the words after the unit, stay.
        const name = line.includes("(") ? line.slice(0, line.lastIndexOf("(")) : line.replace(/^[\d\s./½¼¾⅓⅔-]+[a-z]+\.?\s/i, "");
        expect(converted, line).toContain(name);
      }
    }
    const steps = data.recipes.flatMap((recipe) => recipe.steps);
    const stepsChanged = { metric: 0, us: 0 };
    for (const system of UNIT_SYSTEMS) {
      for (const step of steps) {
        const converted = convertStepTemperatures(step, system);
        if (converted !== step) stepsChanged[system]++;
        expect(convertStepTemperatures(converted, system)).toBe(converted);
      }
    }
    console.log(`lines ${lines.length}: to metric ${changed.metric}, to US ${changed.us}; steps ${steps.length}: to metric ${stepsChanged.metric}, to US ${stepsChanged.us}`);
    expect(changed.metric).toBeGreaterThan(100);
    expect(changed.us).toBeGreaterThan(400);
  });
});
