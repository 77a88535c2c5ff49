import { z } from "zod";

import {
  DEFAULT_SECTION_TITLE,
  ERROR_KEY,
  FIELD,
  quickDraftErrors,
  RECIPE_LIMITS as L,
  RECIPE_MESSAGES as M,
  splitTags,
  type RecipeDraft,
} from "~/lib/recipe-form";

// The recipe editor's rules (docs/rules.md#recipe-fields). Texts and limits come from
// app/lib/recipe-form.ts so the browser shows the same numbers; zod stays on the server.

/** A recipe ready to be written: trimmed, blank rows dropped, tags split, serves a number. */
export interface RecipeInput {
  name: string;
  description: string;
  totalTime: string;
  serves: number;
  tags: string[];
  sections: { id: string; title: string; ingredients: string[] }[];
  steps: string[];
}

const SectionSchema = z.object({
  id: z.string().max(200),
  title: z.string().trim().max(L.sectionTitle, M.sectionTitleTooLong),
  ingredients: z.array(z.string().trim().max(L.line, M.lineTooLong)),
});

export const RecipeDraftSchema = z
  .object({
    name: z.string().trim().min(1, M.nameRequired).max(L.name, M.nameTooLong),
    description: z.string().trim().min(1, M.descriptionRequired).max(L.description, M.descriptionTooLong),
    sections: z.array(SectionSchema).max(L.sections, M.tooManySections),
    steps: z.array(z.string().trim().max(L.step, M.stepTooLong)).max(L.steps, M.tooManySteps),
    totalTime: z.string().trim().max(L.totalTime, M.totalTimeTooLong),
    serves: z.string().trim(),
    // Tags beyond the third are cut and blank ones dropped (the rule for recipe tags), not refused.
    tags: z.string(),
  })
  .superRefine((draft, ctx) => {
    // Row counts are checked on the rows as sent, blank ones included: hundreds of empty rows
    // are refused with a message rather than silently dropped.
    const lines = draft.sections.reduce((sum, section) => sum + section.ingredients.length, 0);
    if (lines > L.lines) ctx.addIssue({ code: "custom", message: M.tooManyLines, path: ["sections"] });
    // An ingredient and a step at least, and whole servings: the rules the browser also checks
    // before sending (quickDraftErrors, shared so the two never differ).
    const quick = quickDraftErrors(draft);
    for (const [key, path] of [[ERROR_KEY.ingredients, "sections"], [ERROR_KEY.steps, "steps"], [FIELD.serves, "serves"]] as const) {
      const message = quick[key];
      if (message) ctx.addIssue({ code: "custom", message, path: [path] });
    }
    if (keptTags(draft.tags).some((tag) => tag.length > L.tag)) ctx.addIssue({ code: "custom", message: M.tagTooLong, path: ["tags"] });
  })
  .transform(
    (draft): RecipeInput => ({
      name: draft.name,
      description: draft.description,
      totalTime: draft.totalTime,
      serves: draft.serves === "" ? 1 : Number(draft.serves),
      tags: keptTags(draft.tags),
      sections: draft.sections
        .map((section) => ({
          id: section.id,
          title: section.title || DEFAULT_SECTION_TITLE,
          ingredients: section.ingredients.filter((line) => line !== ""),
        }))
        .filter((section) => section.ingredients.length > 0),
      steps: draft.steps.filter((step) => step !== ""),
    }),
  );

const keptTags = (field: string) => splitTags(field).slice(0, L.tags);

export type RecipeValidation =
  /** `tagsCut`: more than three tags were sent and only the first three kept (worth telling the person). */
  | { ok: true; value: RecipeInput; tagsCut: boolean }
  | { ok: false; fieldErrors: Record<string, string> };

/** Field-error keys the editor understands (see ERROR_KEY in app/lib/recipe-form.ts). */
function errorKey(path: PropertyKey[]): string {
  const [head, index, child, line] = path;
  if (head === "sections") {
    if (typeof index === "number" && child === "title") return ERROR_KEY.sectionTitle(index);
    if (typeof index === "number" && child === "ingredients" && typeof line === "number") {
      return ERROR_KEY.ingredient(index, line);
    }
    return ERROR_KEY.ingredients;
  }
  if (head === "steps") return typeof index === "number" ? ERROR_KEY.step(index) : ERROR_KEY.steps;
  return typeof head === "string" ? head : "form";
}

/** Checks a draft; on failure, one message per field (the first issue wins). */
export function validateRecipeDraft(draft: RecipeDraft): RecipeValidation {
  const parsed = RecipeDraftSchema.safeParse(draft);
  if (parsed.success) return { ok: true, value: parsed.data, tagsCut: splitTags(draft.tags).length > L.tags };
  const fieldErrors: Record<string, string> = {};
  for (const issue of parsed.error.issues) fieldErrors[errorKey(issue.path)] ??= issue.message;
  return { ok: false, fieldErrors };
}

/** A recipe id from the URL that may name a new recipe: the shape our ids (UUIDs, seed ids) have. */
export function isUsableRecipeId(rid: string): boolean {
  return /^[A-Za-z0-9_-]{1,100}$/.test(rid);
}
