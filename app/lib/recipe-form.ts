import { NOTICES } from "./notices";

// The recipe editor's draft: what the form holds, how it is read back from a submitted form,
// and the row operations (add/delete ingredient, section, step). Pure and shared: the server
// applies a row button for a no-JavaScript re-render, the browser applies the same button
// instantly. No zod here (it would ship to the browser); the server schema lives in
// app/server/validation/recipe-schema.server.ts and uses the limits and texts below.

export const RECIPE_LIMITS = {
  name: 50,
  description: 150,
  sectionTitle: 100,
  sections: 50,
  /** Ingredient lines across all sections. */
  lines: 200,
  line: 500,
  steps: 100,
  step: 2000,
  totalTime: 50,
  tags: 3,
  tag: 30,
  tagsField: 200,
  serves: 1000,
} as const;

export const RECIPE_MESSAGES = {
  nameRequired: "Please enter a recipe name.",
  nameTooLong: `Recipe name must be at most ${RECIPE_LIMITS.name} characters.`,
  descriptionRequired: "Please enter a recipe description.",
  descriptionTooLong: `Description must be at most ${RECIPE_LIMITS.description} characters.`,
  ingredientRequired: "Please add at least one ingredient.",
  stepRequired: "Please add at least one instruction step.",
  tooManySections: `A recipe can have at most ${RECIPE_LIMITS.sections} ingredient sections.`,
  tooManyLines: `A recipe can have at most ${RECIPE_LIMITS.lines} ingredients.`,
  lineTooLong: `Each ingredient must be at most ${RECIPE_LIMITS.line} characters.`,
  sectionTitleTooLong: `A section title must be at most ${RECIPE_LIMITS.sectionTitle} characters.`,
  tooManySteps: `A recipe can have at most ${RECIPE_LIMITS.steps} steps.`,
  stepTooLong: `Each step must be at most ${RECIPE_LIMITS.step} characters.`,
  totalTimeTooLong: `Total time must be at most ${RECIPE_LIMITS.totalTime} characters.`,
  servesInvalid: "Serves must be a whole number of at least 1.",
  servesTooLarge: `Serves must be at most ${RECIPE_LIMITS.serves}.`,
  tagsCut: NOTICES["tags-cut"],
  tagTooLong: `Each tag must be at most ${RECIPE_LIMITS.tag} characters.`,
  lastSection: "A recipe needs at least one ingredient section.",
  lastIngredient: "A section needs at least one ingredient line.",
  lastStep: "A recipe needs at least one step.",
  deleteConfirm: "Are you sure you want to delete this recipe?",
  notFound: "Recipe not found.",
  notAllowed: "You are not allowed to edit this recipe.",
} as const;

/** The title a section gets when left blank (the seed's sections are titled this way too). */
export const DEFAULT_SECTION_TITLE = "Main Ingredients";

export interface DraftSection {
  /** The stored section id, or "" for a section added in this draft. */
  id: string;
  title: string;
  ingredients: string[];
}

export interface RecipeDraft {
  name: string;
  description: string;
  sections: DraftSection[];
  steps: string[];
  totalTime: string;
  /** As typed (the field is a number input, but a no-JS browser may send anything). */
  serves: string;
  /** Comma-separated, as typed. */
  tags: string;
}

/** Form field names, one place for the form, the parser and the tests. */
export const FIELD = {
  name: "name",
  description: "description",
  sectionId: "sectionId",
  sectionTitle: "sectionTitle",
  /** Lines of section i: one field name repeated, order kept. */
  ingredient: (section: number) => `ingredient-${section}`,
  step: "step",
  totalTime: "totalTime",
  serves: "serves",
  tags: "tags",
  photo: "photo",
  pendingPhoto: "pendingPhoto",
  mode: "mode",
  intent: "intent",
  confirm: "confirm",
  /** `Import from link` (docs/rules.md#import-by-link); its button is `intent=import`. */
  importLink: "importLink",
} as const;

/** The intent of the `Import` button: read a recipe from a link into the draft, saving nothing. */
export const IMPORT_INTENT = "import";

/** Keys of per-row error messages (kept with the draft's field-error map). */
export const ERROR_KEY = {
  sectionTitle: (section: number) => `sectionTitle-${section}`,
  ingredient: (section: number, line: number) => `ingredient-${section}-${line}`,
  step: (step: number) => `step-${step}`,
  ingredients: "ingredients",
  steps: "steps",
} as const;

export function emptyDraft(): RecipeDraft {
  return {
    name: "",
    description: "",
    sections: [{ id: "", title: "", ingredients: [""] }],
    steps: [""],
    totalTime: "",
    serves: "1",
    tags: "",
  };
}

/** The stored recipe (the API's field names) as an editable draft. */
export function draftFromRecipe(recipe: {
  name: string;
  description: string;
  ingredients_sec: { _id: string; title: string; ingredients: string[] }[];
  steps: string[];
  total_time: string;
  serves: number | null;
  tags: string[];
}): RecipeDraft {
  const sections = recipe.ingredients_sec.map((section) => ({
    id: section._id,
    title: section.title,
    ingredients: section.ingredients.length > 0 ? [...section.ingredients] : [""],
  }));
  return {
    name: recipe.name,
    description: recipe.description,
    sections: sections.length > 0 ? sections : [{ id: "", title: "", ingredients: [""] }],
    steps: recipe.steps.length > 0 ? [...recipe.steps] : [""],
    totalTime: recipe.total_time,
    serves: recipe.serves === null ? "1" : String(recipe.serves),
    tags: recipe.tags.filter((tag) => tag.trim() !== "").join(", "),
  };
}

// A forged form may carry thousands of rows; reading stops a little past each limit, which is
// enough for validation to say "too many" without holding the rest.
const READ_SECTIONS = RECIPE_LIMITS.sections + 1;
const READ_LINES = RECIPE_LIMITS.lines + 1;
const READ_STEPS = RECIPE_LIMITS.steps + 1;

function text(value: FormDataEntryValue | null | undefined): string {
  return typeof value === "string" ? value : "";
}

/** Reads the draft back from a submitted editor form (missing fields read as empty). */
export function draftFromFormData(formData: FormData): RecipeDraft {
  const ids = formData.getAll(FIELD.sectionId);
  const titles = formData.getAll(FIELD.sectionTitle);
  const sectionCount = Math.min(Math.max(ids.length, titles.length), READ_SECTIONS);
  const sections: DraftSection[] = [];
  let lines = 0;
  for (let index = 0; index < sectionCount; index += 1) {
    const ingredients = formData
      .getAll(FIELD.ingredient(index))
      .slice(0, Math.max(0, READ_LINES - lines))
      .map(text);
    lines += ingredients.length;
    sections.push({ id: text(ids[index]), title: text(titles[index]), ingredients });
  }
  const steps = formData.getAll(FIELD.step).slice(0, READ_STEPS).map(text);
  return {
    name: text(formData.get(FIELD.name)),
    description: text(formData.get(FIELD.description)),
    sections: sections.length > 0 ? sections : [{ id: "", title: "", ingredients: [""] }],
    steps,
    totalTime: text(formData.get(FIELD.totalTime)),
    serves: text(formData.get(FIELD.serves)),
    tags: text(formData.get(FIELD.tags)),
  };
}

/** The form fields of a draft, as the editor submits them (for tests and programmatic posts). */
export function draftToFields(draft: RecipeDraft): [string, string][] {
  const fields: [string, string][] = [
    [FIELD.name, draft.name],
    [FIELD.description, draft.description],
  ];
  draft.sections.forEach((section, index) => {
    fields.push([FIELD.sectionId, section.id], [FIELD.sectionTitle, section.title]);
    for (const line of section.ingredients) fields.push([FIELD.ingredient(index), line]);
  });
  for (const step of draft.steps) fields.push([FIELD.step, step]);
  fields.push([FIELD.totalTime, draft.totalTime], [FIELD.serves, draft.serves], [FIELD.tags, draft.tags]);
  return fields;
}

/** Splits the tags field: trimmed, blanks dropped (all of them, not yet cut to three). */
export function splitTags(value: string): string[] {
  return value
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag !== "");
}

/** The first three non-blank tags, joined back for display. */
export function firstThreeTags(value: string): string {
  return splitTags(value).slice(0, RECIPE_LIMITS.tags).join(", ");
}

/**
 * The field to focus after a refused save: the first one with a message, in page order
 * (a list-wide message focuses that list's first row).
 */
export function firstInvalidField(errors: Record<string, string>, draft: RecipeDraft): string | null {
  const order: string[] = [FIELD.photo, FIELD.name, FIELD.description];
  draft.sections.forEach((section, i) => {
    order.push(ERROR_KEY.sectionTitle(i));
    section.ingredients.forEach((_, j) => order.push(ERROR_KEY.ingredient(i, j)));
  });
  order.push(ERROR_KEY.ingredients);
  draft.steps.forEach((_, k) => order.push(ERROR_KEY.step(k)));
  order.push(ERROR_KEY.steps, FIELD.totalTime, FIELD.serves, FIELD.tags);
  const first = order.find((key) => errors[key]);
  if (first === ERROR_KEY.ingredients) return ERROR_KEY.ingredient(0, 0);
  if (first === ERROR_KEY.steps) return ERROR_KEY.step(0);
  return first ?? null;
}

/**
 * What the browser can tell at once when Save is pressed, before anything is sent: the missing
 * name, description, ingredient or step, a name or description too long, servings that are not
 * a whole number. The server's check (app/server/validation/recipe-schema.server.ts) uses this
 * for the ingredient, step and servings rules and still decides every save; its name and
 * description limits are zod's, kept in step with these by a unit test.
 */
export function quickDraftErrors(draft: RecipeDraft): Record<string, string> {
  const errors: Record<string, string> = {};
  const name = draft.name.trim();
  const description = draft.description.trim();
  if (!name) errors[FIELD.name] = RECIPE_MESSAGES.nameRequired;
  else if (name.length > RECIPE_LIMITS.name) errors[FIELD.name] = RECIPE_MESSAGES.nameTooLong;
  if (!description) errors[FIELD.description] = RECIPE_MESSAGES.descriptionRequired;
  else if (description.length > RECIPE_LIMITS.description) errors[FIELD.description] = RECIPE_MESSAGES.descriptionTooLong;
  if (!draft.sections.some((section) => section.ingredients.some((line) => line.trim() !== ""))) errors[ERROR_KEY.ingredients] = RECIPE_MESSAGES.ingredientRequired;
  if (!draft.steps.some((step) => step.trim() !== "")) errors[ERROR_KEY.steps] = RECIPE_MESSAGES.stepRequired;
  const serves = draft.serves.trim();
  if (serves !== "") {
    if (!/^[0-9]+$/.test(serves) || Number(serves) < 1) errors[FIELD.serves] = RECIPE_MESSAGES.servesInvalid;
    else if (Number(serves) > RECIPE_LIMITS.serves) errors[FIELD.serves] = RECIPE_MESSAGES.servesTooLarge;
  }
  return errors;
}

export function countLines(draft: RecipeDraft): number {
  return draft.sections.reduce((sum, section) => sum + section.ingredients.length, 0);
}

// ---------------------------------------------------------------------------------------------
// Row buttons. Each is a submit button `name="intent"` with one of these values.

export type RowIntent =
  | { op: "add-ingredient"; section: number }
  | { op: "delete-ingredient"; section: number; line: number }
  | { op: "add-section" }
  | { op: "delete-section"; section: number }
  | { op: "add-step" }
  | { op: "delete-step"; step: number };

export const rowIntent = {
  addIngredient: (section: number) => `add-ingredient:${section}`,
  deleteIngredient: (section: number, line: number) => `delete-ingredient:${section}:${line}`,
  addSection: () => "add-section",
  deleteSection: (section: number) => `delete-section:${section}`,
  addStep: () => "add-step",
  deleteStep: (step: number) => `delete-step:${step}`,
} as const;

const INDEX = "(0|[1-9][0-9]{0,3})";
const ROW_PATTERNS: [RegExp, (m: RegExpExecArray) => RowIntent][] = [
  [new RegExp(`^add-ingredient:${INDEX}$`), (m) => ({ op: "add-ingredient", section: Number(m[1]) })],
  [
    new RegExp(`^delete-ingredient:${INDEX}:${INDEX}$`),
    (m) => ({ op: "delete-ingredient", section: Number(m[1]), line: Number(m[2]) }),
  ],
  [/^add-section$/, () => ({ op: "add-section" })],
  [new RegExp(`^delete-section:${INDEX}$`), (m) => ({ op: "delete-section", section: Number(m[1]) })],
  [/^add-step$/, () => ({ op: "add-step" })],
  [new RegExp(`^delete-step:${INDEX}$`), (m) => ({ op: "delete-step", step: Number(m[1]) })],
];

/** The row operation a button value names, or null for anything else. */
export function parseRowIntent(value: string): RowIntent | null {
  for (const [pattern, build] of ROW_PATTERNS) {
    const match = pattern.exec(value);
    if (match) return build(match);
  }
  return null;
}

export interface RowChange {
  draft: RecipeDraft;
  /** Why nothing changed (a limit, or the last row of its kind). */
  error: string | null;
  /** The field to focus afterwards, as `[data-row="…"]` of the editor: the new row, or the row that moved up. */
  focus: string | null;
}

const unchanged = (draft: RecipeDraft, error: string | null): RowChange => ({ draft, error, focus: null });

/**
 * Applies one row button. Deleting the last section, the last line of a section or the last
 * step is refused (the buttons are not shown then), as are rows beyond the limits. An index
 * that does not exist changes nothing.
 */
export function applyRowIntent(draft: RecipeDraft, intent: RowIntent): RowChange {
  const sections = draft.sections;
  switch (intent.op) {
    case "add-ingredient": {
      const section = sections[intent.section];
      if (!section) return unchanged(draft, null);
      if (countLines(draft) >= RECIPE_LIMITS.lines) return unchanged(draft, RECIPE_MESSAGES.tooManyLines);
      const next = sections.map((s, i) => (i === intent.section ? { ...s, ingredients: [...s.ingredients, ""] } : s));
      return {
        draft: { ...draft, sections: next },
        error: null,
        focus: ERROR_KEY.ingredient(intent.section, section.ingredients.length),
      };
    }
    case "delete-ingredient": {
      const section = sections[intent.section];
      if (!section || intent.line >= section.ingredients.length) return unchanged(draft, null);
      if (section.ingredients.length <= 1) return unchanged(draft, RECIPE_MESSAGES.lastIngredient);
      const ingredients = section.ingredients.filter((_, i) => i !== intent.line);
      const next = sections.map((s, i) => (i === intent.section ? { ...s, ingredients } : s));
      return {
        draft: { ...draft, sections: next },
        error: null,
        focus: ERROR_KEY.ingredient(intent.section, Math.min(intent.line, ingredients.length - 1)),
      };
    }
    case "add-section": {
      if (sections.length >= RECIPE_LIMITS.sections) return unchanged(draft, RECIPE_MESSAGES.tooManySections);
      if (countLines(draft) >= RECIPE_LIMITS.lines) return unchanged(draft, RECIPE_MESSAGES.tooManyLines);
      return {
        draft: { ...draft, sections: [...sections, { id: "", title: "", ingredients: [""] }] },
        error: null,
        focus: ERROR_KEY.sectionTitle(sections.length),
      };
    }
    case "delete-section": {
      if (intent.section >= sections.length) return unchanged(draft, null);
      if (sections.length <= 1) return unchanged(draft, RECIPE_MESSAGES.lastSection);
      const next = sections.filter((_, i) => i !== intent.section);
      return {
        draft: { ...draft, sections: next },
        error: null,
        focus: ERROR_KEY.sectionTitle(Math.min(intent.section, next.length - 1)),
      };
    }
    case "add-step": {
      if (draft.steps.length >= RECIPE_LIMITS.steps) return unchanged(draft, RECIPE_MESSAGES.tooManySteps);
      return { draft: { ...draft, steps: [...draft.steps, ""] }, error: null, focus: ERROR_KEY.step(draft.steps.length) };
    }
    case "delete-step": {
      if (intent.step >= draft.steps.length) return unchanged(draft, null);
      if (draft.steps.length <= 1) return unchanged(draft, RECIPE_MESSAGES.lastStep);
      const steps = draft.steps.filter((_, i) => i !== intent.step);
      return { draft: { ...draft, steps }, error: null, focus: ERROR_KEY.step(Math.min(intent.step, steps.length - 1)) };
    }
  }
}

/**
 * A draft as the no-JavaScript re-render shows it: never without a section, a line or a step,
 * and never more rows than the limits (a forged form cannot make the page render thousands).
 */
export function normalizeDraft(draft: RecipeDraft): RecipeDraft {
  let budget: number = RECIPE_LIMITS.lines;
  const sections = draft.sections.slice(0, RECIPE_LIMITS.sections).map((section) => {
    const ingredients = section.ingredients.slice(0, Math.max(1, budget));
    budget = Math.max(0, budget - ingredients.length);
    return { ...section, ingredients: ingredients.length > 0 ? ingredients : [""] };
  });
  const steps = draft.steps.slice(0, RECIPE_LIMITS.steps);
  return {
    ...draft,
    sections: sections.length > 0 ? sections : [{ id: "", title: "", ingredients: [""] }],
    steps: steps.length > 0 ? steps : [""],
  };
}

// ---------------------------------------------------------------------------------------------
// What the editor's action answers when it does not redirect.

export interface EditorResult {
  /** `draft`: a row button or Import re-render (nothing saved); `invalid`: a refused save; `confirm-delete`: the no-JS confirmation step. */
  kind: "draft" | "invalid" | "confirm-delete";
  draft: RecipeDraft;
  /** Keyed by field name or ERROR_KEY. */
  fieldErrors: Record<string, string>;
  formError: string | null;
  /** An upload kept for this draft (a URL storage produced), sent back in a hidden field. */
  pendingPhoto: string | null;
  /** A photo chosen with this submission was not kept: the page asks to choose it again. */
  photoNotKept: boolean;
  /** The row to focus after a row button (data-row value). */
  focus: string | null;
  /** The link typed into `Import from link`, sent back so the field keeps it. */
  importLink: string;
  /** What an import did (shortened fields, a photo it could not use); empty otherwise. */
  importNotes: string[];
}
