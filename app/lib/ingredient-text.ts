// The plain-text format admins bulk-edit ingredients and steps in (docs/rules.md#admin-text-format):
//
//   Dough:            ← a block's first line ending in ':' is the section title
//   Flour (200g)      ← every other line is one ingredient
//   Eggs (2)
//                     ← blank lines separate sections
//   Sauce:
//   Soy sauce
//
// Pure and shared, so the page can show the same text the server parses.

export interface TextSection {
  title: string;
  ingredients: string[];
}

export const TEXT_LIMITS = { sections: 50, lines: 200, lineLength: 500, steps: 200, stepLength: 2000 } as const;
export const DEFAULT_SECTION_TITLE = "Main Ingredients";

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

const splitLines = (text: string) => text.replace(/\r\n?/g, "\n").split("\n");

/** Sections in the text format; `parseIngredientText(formatIngredientText(s))` gives `s` back. */
export function formatIngredientText(sections: readonly TextSection[]): string {
  return sections.map((section) => [`${section.title}:`, ...section.ingredients].join("\n")).join("\n\n");
}

export function parseIngredientText(text: string): ParseResult<TextSection[]> {
  const lines = splitLines(text);
  // Refuse the absurd before doing any work on it.
  const tooLong = lines.findIndex((line) => line.trim().length > TEXT_LIMITS.lineLength);
  if (tooLong >= 0) return { ok: false, error: `Line ${tooLong + 1} is too long (${TEXT_LIMITS.lineLength} characters at most).` };

  const sections: TextSection[] = [];
  let block: string[] = [];
  const closeBlock = () => {
    if (block.length === 0) return;
    const [first, ...rest] = block;
    const titled = first!.endsWith(":");
    const title = titled ? first!.slice(0, -1).trim() || DEFAULT_SECTION_TITLE : DEFAULT_SECTION_TITLE;
    const ingredients = titled ? rest : block;
    if (ingredients.length > 0) sections.push({ title, ingredients });
    block = [];
  };
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "") closeBlock();
    else block.push(line);
  }
  closeBlock();

  const count = sections.reduce((sum, section) => sum + section.ingredients.length, 0);
  if (count === 0) return { ok: false, error: "Please add at least one ingredient." };
  if (sections.length > TEXT_LIMITS.sections) return { ok: false, error: `Too many sections (${TEXT_LIMITS.sections} at most).` };
  if (count > TEXT_LIMITS.lines) return { ok: false, error: `Too many ingredients (${TEXT_LIMITS.lines} lines at most).` };
  return { ok: true, value: sections };
}

/** One step per line. */
export function formatStepsText(steps: readonly string[]): string {
  return steps.join("\n");
}

export function parseStepsText(text: string): ParseResult<string[]> {
  const lines = splitLines(text);
  const tooLong = lines.findIndex((line) => line.trim().length > TEXT_LIMITS.stepLength);
  if (tooLong >= 0) return { ok: false, error: `Line ${tooLong + 1} is too long (${TEXT_LIMITS.stepLength} characters at most).` };
  const steps = lines.map((line) => line.trim()).filter(Boolean);
  if (steps.length === 0) return { ok: false, error: "Please add at least one instruction step." };
  if (steps.length > TEXT_LIMITS.steps) return { ok: false, error: `Too many steps (${TEXT_LIMITS.steps} at most).` };
  return { ok: true, value: steps };
}
