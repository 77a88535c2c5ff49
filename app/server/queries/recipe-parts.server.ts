import crypto from "node:crypto";

// The rows of a recipe's parts (tags, ingredient sections and lines, steps), and the ids its
// sections get. Pure: the app's writer (recipe-writes.server.ts) and the scale seed, which inserts
// rows with its own statements, lay the parts out the same way.

export interface RecipeParts {
  tags?: string[];
  /** `id`: the section's id as the writer has it ("" or left out for a new section). */
  sections?: { id?: string; title: string; ingredients: string[] }[];
  steps?: string[];
}

/**
 * The ids a write gives a recipe's sections: one policy for the editor, the API, the admin's text,
 * the seed and the tests. A section keeps the id it comes with when that id is already this
 * recipe's or nobody's (so ids stay stable across edits and the seed's ids are kept); a section
 * without an id takes the id the recipe's section at the same position had (the admin's text
 * has no ids); anything else, or an id used twice, gets a new one.
 */
export function planSectionIds({
  wanted,
  own,
  takenElsewhere,
}: {
  wanted: (string | undefined)[];
  own: readonly string[];
  takenElsewhere: ReadonlySet<string>;
}): string[] {
  const used = new Set<string>();
  const ownIds = new Set(own);
  return wanted.map((id, position) => {
    const candidates = [id && (ownIds.has(id) || !takenElsewhere.has(id)) ? id : undefined, id ? undefined : own[position]];
    const chosen = candidates.find((candidate): candidate is string => candidate !== undefined && candidate !== "" && !used.has(candidate)) ?? crypto.randomUUID();
    used.add(chosen);
    return chosen;
  });
}

/** The rows of a recipe's parts, in order, for the section ids chosen by planSectionIds. */
export function recipePartRows(recipeId: string, parts: RecipeParts, sectionIds: readonly string[]) {
  return {
    tags: (parts.tags ?? []).map((tag, position) => ({ recipe_id: recipeId, position, tag })),
    sections: (parts.sections ?? []).map((section, position) => ({ id: sectionIds[position]!, recipe_id: recipeId, position, title: section.title })),
    lines: (parts.sections ?? []).flatMap((section, position) =>
      section.ingredients.map((text, linePosition) => ({ section_id: sectionIds[position]!, position: linePosition, text })),
    ),
    steps: (parts.steps ?? []).map((text, position) => ({ recipe_id: recipeId, position, text })),
  };
}

