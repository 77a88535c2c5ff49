import { DEFAULT_SECTION_TITLE, RECIPE_LIMITS, type RecipeDraft } from "~/lib/recipe-form";

import { JsonLdRecipeSchema } from "../validation/import-schema.server";

import { cleanText, cleanTextsUpTo, cut, decodeEntities, durationText, isoMinutes, splitInstructionText } from "./text.server";

// Turning a schema.org Recipe node (from json-ld.server.ts) into an editor draft.

/** The steps in recipeInstructions, in order, at most `limit + 1` of them. */
function instructionTexts(value: unknown, limit: number, steps: string[] = [], depth = 0): string[] {
  if (steps.length > limit || depth > 6 || value === null || value === undefined) return steps;
  if (typeof value === "string") splitInstructionText(value, steps, limit);
  else if (typeof value === "number") steps.push(String(value));
  else if (Array.isArray(value)) {
    for (const item of value) {
      if (steps.length > limit) break;
      instructionTexts(item, limit, steps, depth + 1);
    }
  } else if (typeof value === "object") {
    const node = value as Record<string, unknown>;
    // HowToSection and ItemList hold their steps in itemListElement; a HowToStep holds its text.
    if (node.itemListElement !== undefined && (typeof node.text !== "string" || node.text.trim() === "")) {
      return instructionTexts(node.itemListElement, limit, steps, depth + 1);
    }
    for (const key of ["text", "name", "description"]) {
      const text = node[key];
      if (typeof text === "string" && text.trim() !== "") {
        splitInstructionText(text, steps, limit);
        break;
      }
    }
  }
  return steps;
}

function timeText(recipe: { totalTime?: string; prepTime?: string; cookTime?: string }): string {
  const total = isoMinutes(recipe.totalTime);
  if (total !== null) return total > 0 ? durationText(total) : "";
  const prep = isoMinutes(recipe.prepTime);
  const cook = isoMinutes(recipe.cookTime);
  if ((prep ?? 0) + (cook ?? 0) > 0) return durationText((prep ?? 0) + (cook ?? 0));
  // Not ISO 8601 ("1 hour"): keep the words as the page wrote them.
  return cut(cleanText(recipe.totalTime), RECIPE_LIMITS.totalTime).text;
}

function servesOf(value: unknown): number | null {
  const values = Array.isArray(value) ? value : [value];
  for (const item of values) {
    const match = typeof item === "number" ? [String(Math.round(item))] : typeof item === "string" ? /\d+/.exec(item) : null;
    const n = match ? Number(match[0]) : NaN;
    if (Number.isInteger(n) && n >= 1 && n <= RECIPE_LIMITS.serves) return n;
  }
  return null;
}

/** Keywords read at most per list: real pages give a few dozen; a hostile one, a million repeats. */
const TAG_CANDIDATES = 200;

/** The non-blank comma-separated parts of a list of keywords, the first TAG_CANDIDATES of them. */
function tagCandidates(list: readonly string[]): string[] {
  const candidates: string[] = [];
  for (const entry of list) {
    for (const part of entry.split(",")) {
      if (part.trim() === "") continue;
      candidates.push(part);
      if (candidates.length === TAG_CANDIDATES) return candidates;
    }
  }
  return candidates;
}

function tagsOf(lists: (string[] | undefined)[]): string[] {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const list of lists) {
    for (const tag of tagCandidates(list ?? [])) {
      const text = cut(cleanText(tag), RECIPE_LIMITS.tag).text;
      if (!text || seen.has(text.toLowerCase())) continue;
      seen.add(text.toLowerCase());
      tags.push(text);
      if (tags.length === RECIPE_LIMITS.tags) return tags;
    }
    if (tags.length > 0) return tags; // keywords win; category and cuisine only stand in for them
  }
  return tags;
}

const IMAGE_CANDIDATES = 10;

function imageUrlOf(value: unknown, base: URL, depth = 0): URL | null {
  if (depth > 4 || value === null || value === undefined) return null;
  if (typeof value === "string") {
    try {
      const url = new URL(decodeEntities(value.trim()), base);
      return url.protocol === "http:" || url.protocol === "https:" ? url : null;
    } catch {
      return null;
    }
  }
  if (Array.isArray(value)) {
    // The first few: a page gives one to five sizes of its photo, not half a million candidates.
    for (const item of value.slice(0, IMAGE_CANDIDATES)) {
      const url = imageUrlOf(item, base, depth + 1);
      if (url) return url;
    }
    return null;
  }
  if (typeof value === "object") {
    const node = value as Record<string, unknown>;
    return imageUrlOf(node.url ?? node.contentUrl ?? node["@id"], base, depth + 1);
  }
  return null;
}

export interface RecipeFromPage {
  draft: RecipeDraft;
  /** Shortened fields and other things the user should know. */
  notes: string[];
  photoUrl: URL | null;
}

/** A schema.org Recipe node (from `findRecipeJsonLd`) as an editor draft, cut to the editor's limits. */
export function draftFromRecipeNode(node: Record<string, unknown>, pageUrl: URL): RecipeFromPage {
  const recipe = JsonLdRecipeSchema.parse(node);
  const notes: string[] = [];

  const name = cut(cleanText(recipe.name ?? recipe.headline), RECIPE_LIMITS.name);
  if (name.cut) notes.push(`The recipe name was longer than ${RECIPE_LIMITS.name} characters and was shortened.`);
  const description = cut(cleanText(recipe.description), RECIPE_LIMITS.description);
  if (description.cut) notes.push(`The description was longer than ${RECIPE_LIMITS.description} characters and was shortened.`);

  const allLines = cleanTextsUpTo(recipe.recipeIngredient ?? recipe.ingredients ?? [], RECIPE_LIMITS.lines);
  if (allLines.length > RECIPE_LIMITS.lines) notes.push(`Only the first ${RECIPE_LIMITS.lines} ingredients were kept.`);
  const lines = allLines.slice(0, RECIPE_LIMITS.lines).map((line) => cut(line, RECIPE_LIMITS.line));
  if (lines.some((line) => line.cut)) notes.push(`Ingredients longer than ${RECIPE_LIMITS.line} characters were shortened.`);

  const allSteps = instructionTexts(recipe.recipeInstructions, RECIPE_LIMITS.steps);
  if (allSteps.length > RECIPE_LIMITS.steps) notes.push(`Only the first ${RECIPE_LIMITS.steps} steps were kept.`);
  const steps = allSteps.slice(0, RECIPE_LIMITS.steps).map((step) => cut(step, RECIPE_LIMITS.step));
  if (steps.some((step) => step.cut)) notes.push(`Steps longer than ${RECIPE_LIMITS.step} characters were shortened.`);

  const serves = servesOf(recipe.recipeYield);
  const draft: RecipeDraft = {
    name: name.text,
    description: description.text,
    sections: [{ id: "", title: DEFAULT_SECTION_TITLE, ingredients: lines.length > 0 ? lines.map((line) => line.text) : [""] }],
    steps: steps.length > 0 ? steps.map((step) => step.text) : [""],
    totalTime: timeText(recipe),
    serves: String(serves ?? 1),
    tags: tagsOf([recipe.keywords, [...(recipe.recipeCategory ?? []), ...(recipe.recipeCuisine ?? [])]]).join(", "),
  };
  if (!draft.description) notes.push("The page gives no description: please write one before saving.");
  if (lines.length === 0) notes.push("The page lists no ingredients: please add them before saving.");
  if (steps.length === 0) notes.push("The page gives no steps: please add them before saving.");
  return { draft, notes, photoUrl: imageUrlOf(recipe.image, pageUrl) };
}
