import { describe, expect, it } from "vitest";

import { validateRecipeDraft } from "~/server/validation/recipe-schema.server";

import {
  applyRowIntent,
  draftFromFormData,
  draftFromRecipe,
  draftToFields,
  emptyDraft,
  firstInvalidField,
  firstThreeTags,
  normalizeDraft,
  parseRowIntent,
  quickDraftErrors,
  RECIPE_LIMITS,
  RECIPE_MESSAGES,
  rowIntent,
  splitTags,
  type RecipeDraft,
} from "~/lib/recipe-form";

const sample = (): RecipeDraft => ({
  name: "Noodles",
  description: "Quick noodles",
  sections: [
    { id: "s1", title: "Noodles", ingredients: ["Rice noodles", "Spinach"] },
    { id: "s2", title: "Sauce", ingredients: ["Soy sauce"] },
  ],
  steps: ["Boil", "Toss"],
  totalTime: "20min",
  serves: "2",
  tags: "Savory, Quick",
});

function toFormData(draft: RecipeDraft): FormData {
  const formData = new FormData();
  for (const [name, value] of draftToFields(draft)) formData.append(name, value);
  return formData;
}

describe("row intents", () => {
  it("parses every button value and nothing else", () => {
    expect(parseRowIntent(rowIntent.addIngredient(2))).toEqual({ op: "add-ingredient", section: 2 });
    expect(parseRowIntent(rowIntent.deleteIngredient(1, 3))).toEqual({ op: "delete-ingredient", section: 1, line: 3 });
    expect(parseRowIntent(rowIntent.addSection())).toEqual({ op: "add-section" });
    expect(parseRowIntent(rowIntent.deleteSection(0))).toEqual({ op: "delete-section", section: 0 });
    expect(parseRowIntent(rowIntent.addStep())).toEqual({ op: "add-step" });
    expect(parseRowIntent(rowIntent.deleteStep(4))).toEqual({ op: "delete-step", step: 4 });
    for (const bad of ["save", "delete", "add-step:1", "delete-step:-1", "delete-step:01", "delete-step:99999", "add-ingredient:", ""]) {
      expect(parseRowIntent(bad)).toBeNull();
    }
  });

  it("adds and deletes ingredient lines, focusing the new or next line", () => {
    const added = applyRowIntent(sample(), { op: "add-ingredient", section: 1 });
    expect(added.draft.sections[1]!.ingredients).toEqual(["Soy sauce", ""]);
    expect(added.focus).toBe("ingredient-1-1");
    const deleted = applyRowIntent(sample(), { op: "delete-ingredient", section: 0, line: 0 });
    expect(deleted.draft.sections[0]!.ingredients).toEqual(["Spinach"]);
    expect(deleted.focus).toBe("ingredient-0-0");
  });

  it("never deletes the last line of a section, the last section or the last step", () => {
    const draft = sample();
    expect(applyRowIntent(draft, { op: "delete-ingredient", section: 1, line: 0 })).toMatchObject({
      draft,
      error: RECIPE_MESSAGES.lastIngredient,
    });
    const single = { ...draft, sections: [draft.sections[0]!], steps: ["Only"] };
    expect(applyRowIntent(single, { op: "delete-section", section: 0 }).error).toBe(RECIPE_MESSAGES.lastSection);
    expect(applyRowIntent(single, { op: "delete-step", step: 0 }).error).toBe(RECIPE_MESSAGES.lastStep);
  });

  it("adds and deletes sections and steps, keeping the rest in order", () => {
    const withSection = applyRowIntent(sample(), { op: "add-section" }).draft;
    expect(withSection.sections).toHaveLength(3);
    expect(withSection.sections[2]).toEqual({ id: "", title: "", ingredients: [""] });
    const withoutFirst = applyRowIntent(withSection, { op: "delete-section", section: 0 }).draft;
    expect(withoutFirst.sections.map((s) => s.title)).toEqual(["Sauce", ""]);
    const steps = applyRowIntent(applyRowIntent(sample(), { op: "add-step" }).draft, { op: "delete-step", step: 0 }).draft;
    expect(steps.steps).toEqual(["Toss", ""]);
  });

  it("ignores indexes that do not exist", () => {
    const draft = sample();
    expect(applyRowIntent(draft, { op: "delete-step", step: 9 })).toEqual({ draft, error: null, focus: null });
    expect(applyRowIntent(draft, { op: "add-ingredient", section: 9 })).toEqual({ draft, error: null, focus: null });
  });

  it("stops adding rows at the limits with a message", () => {
    const manySteps = { ...sample(), steps: Array.from({ length: RECIPE_LIMITS.steps }, () => "x") };
    expect(applyRowIntent(manySteps, { op: "add-step" }).error).toBe(RECIPE_MESSAGES.tooManySteps);
    const manySections = {
      ...sample(),
      sections: Array.from({ length: RECIPE_LIMITS.sections }, () => ({ id: "", title: "", ingredients: [""] })),
    };
    expect(applyRowIntent(manySections, { op: "add-section" }).error).toBe(RECIPE_MESSAGES.tooManySections);
    const manyLines = { ...sample(), sections: [{ id: "", title: "", ingredients: Array.from({ length: RECIPE_LIMITS.lines }, () => "x") }] };
    expect(applyRowIntent(manyLines, { op: "add-ingredient", section: 0 }).error).toBe(RECIPE_MESSAGES.tooManyLines);
  });
});

describe("drafts and forms", () => {
  it("round-trips a draft through form fields", () => {
    expect(draftFromFormData(toFormData(sample()))).toEqual(sample());
  });

  it("reads a missing form as an empty draft with one section", () => {
    const draft = draftFromFormData(new FormData());
    expect(draft.sections).toEqual([{ id: "", title: "", ingredients: [""] }]);
    expect(draft.steps).toEqual([]);
    expect(draft.name).toBe("");
  });

  it("stops reading a little past the limits", () => {
    const formData = new FormData();
    for (let i = 0; i < 5000; i += 1) formData.append("step", "");
    for (let i = 0; i < 500; i += 1) {
      formData.append("sectionId", "");
      formData.append("sectionTitle", "");
    }
    for (let i = 0; i < 5000; i += 1) formData.append("ingredient-0", "");
    const draft = draftFromFormData(formData);
    expect(draft.steps).toHaveLength(RECIPE_LIMITS.steps + 1);
    expect(draft.sections).toHaveLength(RECIPE_LIMITS.sections + 1);
    expect(draft.sections.reduce((n, s) => n + s.ingredients.length, 0)).toBeLessThanOrEqual(RECIPE_LIMITS.lines + 1 + RECIPE_LIMITS.sections);
    const shown = normalizeDraft(draft);
    expect(shown.steps).toHaveLength(RECIPE_LIMITS.steps);
    expect(shown.sections).toHaveLength(RECIPE_LIMITS.sections);
  });

  it("turns a stored recipe into a draft and fills empty lists", () => {
    const draft = draftFromRecipe({
      name: "Soup",
      description: "Warm",
      ingredients_sec: [],
      steps: [],
      total_time: "",
      serves: null,
      tags: ["Soup", "", "Warm"],
    });
    expect(draft).toEqual({ ...emptyDraft(), name: "Soup", description: "Warm", tags: "Soup, Warm" });
  });

  it("finds the first invalid field in page order", () => {
    const draft = sample();
    expect(firstInvalidField({ steps: "x", description: "y" }, draft)).toBe("description");
    expect(firstInvalidField({ ingredients: "x", serves: "y" }, draft)).toBe("ingredient-0-0");
    expect(firstInvalidField({ steps: "x", tags: "y" }, draft)).toBe("step-0");
    expect(firstInvalidField({ "ingredient-1-0": "x", "step-1": "y" }, draft)).toBe("ingredient-1-0");
    expect(firstInvalidField({ photo: "x" }, draft)).toBe("photo");
    expect(firstInvalidField({}, draft)).toBeNull();
  });

  it("splits and cuts tags", () => {
    expect(splitTags(" a, ,b ,, c,d ")).toEqual(["a", "b", "c", "d"]);
    expect(firstThreeTags("a, b, c, d")).toBe("a, b, c");
    expect(firstThreeTags("a, b")).toBe("a, b");
  });
});

describe("the browser's quick check before a save", () => {
  // What the browser says at once must be what the server would say: the same message for each
  // field it checks, and nothing where the server has nothing.
  const drafts: Array<[string, RecipeDraft]> = [
    ["a good draft", sample()],
    ["an empty form", { ...emptyDraft(), serves: "" }],
    ["blanks only", { ...sample(), name: "   ", description: " \n ", sections: [{ id: "", title: "", ingredients: ["  "] }], steps: [" "] }],
    ["too long", { ...sample(), name: "n".repeat(RECIPE_LIMITS.name + 1), description: "d".repeat(RECIPE_LIMITS.description + 1) }],
    ["just long enough", { ...sample(), name: ` ${"n".repeat(RECIPE_LIMITS.name)} `, description: "d".repeat(RECIPE_LIMITS.description) }],
    ["serves negative", { ...sample(), serves: "-3" }],
    ["serves a fraction", { ...sample(), serves: "1.5" }],
    ["serves zero", { ...sample(), serves: "0" }],
    ["serves huge", { ...sample(), serves: String(RECIPE_LIMITS.serves + 1) }],
    ["serves blank", { ...sample(), serves: "" }],
    ["a second section holds the only ingredient", { ...sample(), sections: [{ id: "", title: "", ingredients: [""] }, { id: "", title: "", ingredients: ["Salt"] }] }],
  ];
  it.each(drafts)("agrees with the server on %s", (_, draft) => {
    const quick = quickDraftErrors(draft);
    const server = validateRecipeDraft(draft);
    const serverErrors = server.ok ? {} : server.fieldErrors;
    for (const [field, message] of Object.entries(quick)) expect(serverErrors[field], field).toBe(message);
    if (server.ok) expect(quick).toEqual({});
  });
  it("finds the four missing things of an empty form", () => {
    expect(Object.keys(quickDraftErrors({ ...emptyDraft(), serves: "-1" })).sort()).toEqual(["description", "ingredients", "name", "serves", "steps"]);
  });
});
