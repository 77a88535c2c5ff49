import type { Note } from "@fedify/fedify";

import { isoDuration } from "~/lib/structured-data";

import type { RecipeDetail } from "../queries/recipes.server";

// A recipe's Note carries the recipe twice (docs/federation.md, "What a recipe looks like there"):
// as HTML for Mastodon and the like, and as schema.org Recipe properties for software that reads
// them (schema:recipeIngredient, schema:recipeInstructions, …). The library's vocabulary writes
// ActivityStreams only, so a Note of ours adds them to the JSON-LD it makes: as full addresses
// when it is expanded (inside a Create or Update, or to be signed), with the `schema:` prefix when
// it is written compact (its own address, /ap/posts/{id}). Its `type` stays "Note": software that
// reads the type as one string would drop a Note that were also a Recipe.

const SCHEMA = "http://schema.org/";

type RecipeFacts = Pick<RecipeDetail, "ingredients_sec" | "steps" | "serves" | "total_time" | "tags">;

/** The recipe's schema.org properties, as term → values (terms without their prefix). */
function propertiesOf(recipe: RecipeFacts): [term: string, values: unknown[]][] {
  const totalTime = isoDuration(recipe.total_time);
  return [
    ["recipeIngredient", recipe.ingredients_sec.flatMap((section) => section.ingredients)],
    ["recipeInstructions", recipe.steps.map((text, index) => ({ type: "HowToStep", position: index + 1, text }))],
    ["recipeYield", recipe.serves ? [String(recipe.serves)] : []],
    ["totalTime", totalTime ? [totalTime] : []],
    ["keywords", recipe.tags.length ? [recipe.tags.join(", ")] : []],
  ].filter(([, values]) => (values as unknown[]).length > 0) as [string, unknown[]][];
}

/** A value in expanded JSON-LD: a string or number as @value, a step as a typed node. */
function expanded(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return { "@value": value };
  const { type, ...rest } = value as Record<string, unknown>;
  return { "@type": [`${SCHEMA}${String(type)}`], ...Object.fromEntries(Object.entries(rest).map(([key, inner]) => [`${SCHEMA}${key}`, [{ "@value": inner }]])) };
}

/** A value in compact JSON-LD, under the `schema:` prefix. */
function compacted(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const { type, ...rest } = value as Record<string, unknown>;
  return { type: `schema:${String(type)}`, ...Object.fromEntries(Object.entries(rest).map(([key, inner]) => [`schema:${key}`, inner])) };
}

/** Adds the recipe's properties to JSON-LD the library made of a Note, in the form it was made. */
export function addRecipeProperties(json: unknown, recipe: RecipeFacts, format: string | undefined): unknown {
  const properties = propertiesOf(recipe);
  if (format === "expand") {
    const node = (Array.isArray(json) ? json[0] : json) as Record<string, unknown> | undefined;
    if (node) for (const [term, values] of properties) node[`${SCHEMA}${term}`] = values.map(expanded);
    return json;
  }
  const compact = json as Record<string, unknown>;
  // Made from the expanded form already (the library compacts what it expanded): nothing to add twice.
  if (Object.keys(compact).some((key) => key.startsWith("schema:") || key.startsWith(SCHEMA))) return json;
  const context = compact["@context"];
  return {
    ...compact,
    ...(context === undefined ? {} : { "@context": [...(Array.isArray(context) ? context : [context]), { schema: SCHEMA }] }),
    ...Object.fromEntries(properties.map(([term, values]) => [`schema:${term}`, values.length === 1 && term !== "recipeIngredient" && term !== "recipeInstructions" ? compacted(values[0]) : values.map(compacted)])),
  };
}

type NoteClass = typeof Note;
let recipeNoteClass: ReturnType<typeof makeClass> | undefined;

function makeClass(Base: NoteClass) {
  return class RecipeNote extends Base {
    recipe?: RecipeFacts;

    override async toJsonLd(options: Parameters<Note["toJsonLd"]>[0] = {}): Promise<unknown> {
      const json = await super.toJsonLd(options);
      return this.recipe ? addRecipeProperties(json, this.recipe, options.format) : json;
    }
  };
}

/** A Note (made of the library's class, loaded late) that writes `recipe`'s schema.org properties with its own. */
export function noteWithRecipe(Base: NoteClass, values: ConstructorParameters<NoteClass>[0], recipe: RecipeFacts): Note {
  recipeNoteClass ??= makeClass(Base);
  const note = new recipeNoteClass(values);
  note.recipe = recipe;
  return note;
}
