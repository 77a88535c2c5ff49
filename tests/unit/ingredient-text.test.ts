import fc from "fast-check";
import { describe, expect, it } from "vitest";

import {
  formatIngredientText,
  formatStepsText,
  parseIngredientText,
  parseStepsText,
  type TextSection,
} from "~/lib/ingredient-text";

/** One line of text: non-empty, no line breaks, no surrounding spaces (what a stored line looks like). */
const line = fc
  .string({ minLength: 1, maxLength: 60 })
  .map((s) => s.replace(/[\r\n]/g, " ").trim())
  .filter((s) => s.length > 0);

describe("ingredient text", () => {
  it("reads titled blocks separated by blank lines, stripping the colon", () => {
    const text = "Dough:\nFlour (200g)\nEggs (2)\n\nSauce:\nSoy sauce";
    expect(parseIngredientText(text)).toEqual({
      ok: true,
      value: [
        { title: "Dough", ingredients: ["Flour (200g)", "Eggs (2)"] },
        { title: "Sauce", ingredients: ["Soy sauce"] },
      ],
    });
  });

  it("titles a block without a title line 'Main Ingredients'", () => {
    expect(parseIngredientText("Salt\nPepper")).toEqual({ ok: true, value: [{ title: "Main Ingredients", ingredients: ["Salt", "Pepper"] }] });
  });

  it("drops blank lines and empty sections, and takes Windows line endings and stray spaces", () => {
    const text = "\r\n  Empty:  \r\n\r\n\r\n   Topping:\r\n   Cream   \r\n\r\n\r\n";
    expect(parseIngredientText(text)).toEqual({ ok: true, value: [{ title: "Topping", ingredients: ["Cream"] }] });
  });

  it("refuses text with no ingredient at all: only blank lines, or only titles", () => {
    expect(parseIngredientText("\n\n   \n")).toEqual({ ok: false, error: "Please add at least one ingredient." });
    expect(parseIngredientText("A:\n\nB:")).toEqual({ ok: false, error: "Please add at least one ingredient." });
  });

  it("refuses too many lines, sections and too-long lines with clear messages", () => {
    expect(parseIngredientText(Array.from({ length: 10_000 }, (_, i) => `item ${i}`).join("\n"))).toEqual({
      ok: false,
      error: "Too many ingredients (200 lines at most).",
    });
    expect(parseIngredientText(Array.from({ length: 51 }, (_, i) => `S${i}:\nx`).join("\n\n"))).toEqual({
      ok: false,
      error: "Too many sections (50 at most).",
    });
    expect(parseIngredientText(`Main:\nok\n${"y".repeat(5000)}`)).toEqual({ ok: false, error: "Line 3 is too long (500 characters at most)." });
  });

  const sections = fc.array(
    fc.record({ title: line, ingredients: fc.array(line, { minLength: 1, maxLength: 6 }) }),
    { minLength: 1, maxLength: 8 },
  );

  it("round-trips: the text it opens with parses back to the same sections (property)", () => {
    fc.assert(
      fc.property(sections, (value: TextSection[]) => {
        expect(parseIngredientText(formatIngredientText(value))).toEqual({ ok: true, value });
      }),
      { numRuns: 300 },
    );
  });

  it("formats to a fixed point: format(parse(text)) is stable for any text (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const first = parseIngredientText(text);
        if (!first.ok) return;
        const again = parseIngredientText(formatIngredientText(first.value));
        expect(again).toEqual(first);
      }),
      { numRuns: 300 },
    );
  });
});

describe("instruction text", () => {
  it("makes one step per non-blank line", () => {
    expect(parseStepsText("Boil water\r\n\r\n  Add pasta  \n")).toEqual({ ok: true, value: ["Boil water", "Add pasta"] });
    expect(parseStepsText(" \n ")).toEqual({ ok: false, error: "Please add at least one instruction step." });
  });

  it("round-trips (property)", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 30 }), (steps) => {
        expect(parseStepsText(formatStepsText(steps))).toEqual({ ok: true, value: steps });
      }),
    );
  });
});
