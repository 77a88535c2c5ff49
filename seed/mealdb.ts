import { z } from "zod";

import { BOT_USER_ID } from "./core";
import type { Progress } from "./progress";
import type { SeedDataInput } from "./seed-data";

// TheMealDB's free JSON API, converted to the sample file's shape (docs/rules.md#seed-sources), so the same
// writer stores both. The whole download finishes before anything is written: a network
// failure never holds the database's write lock or leaves half the bot recipes behind.

export const DEFAULT_MEALDB_BASE_URL = "https://www.themealdb.com/api/json/v1/1";

const LETTERS = [..."abcdefghijklmnopqrstuvwxyz"];
const REQUEST_TIMEOUT_MS = 10_000;
/** A few requests at a time: quick on a good connection, polite to a free API. */
const CONCURRENCY = 4;
const MAX_INGREDIENTS = 20;
const MAX_TAGS = 3;

type Meal = Record<string, unknown>;

const SearchAnswerSchema = z.object({ meals: z.array(z.record(z.string(), z.unknown())).nullable() });

export interface MealDbOptions {
  baseUrl: string;
  fetch: typeof fetch;
  /** Advanced once per letter (26 in all). */
  progress?: Progress;
}

/** Downloads every meal (searching by first letter) and converts them; throws on any failure. */
export async function fetchMealDbSeedData(options: MealDbOptions): Promise<SeedDataInput> {
  const perLetter = await mapWithConcurrency(LETTERS, CONCURRENCY, async (letter) => {
    const meals = await fetchLetter(letter, options);
    options.progress?.advance();
    return meals;
  });
  const meals = uniqueMeals(perLetter.flat());
  if (meals.length === 0) throw new Error("TheMealDB returned no recipes");
  return mealsToSeedData(meals);
}

async function fetchLetter(letter: string, { baseUrl, fetch: fetchImpl }: MealDbOptions): Promise<Meal[]> {
  const url = `${withoutTrailingSlashes(baseUrl)}/search.php?f=${letter}`;
  let response: Response;
  try {
    response = await fetchImpl(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    throw new Error(`${url} could not be reached (${networkReason(error)})`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${url} answered HTTP ${response.status}`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    throw new Error(`${url} did not answer valid JSON (${networkReason(error)})`);
  }
  const parsed = SearchAnswerSchema.safeParse(body);
  if (!parsed.success) throw new Error(`${url} answered JSON without a "meals" list`);
  return parsed.data.meals ?? [];
}

/**
 * The base URL without the slashes it ends with. A loop, not /\/+$/: that expression starts again
 * at every slash and reads the whole run each time, quadratic on a URL full of slashes.
 */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 0x2f /* / */) end -= 1;
  return url.slice(0, end);
}

function networkReason(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  // undici hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`.
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  return cause?.code ?? (error instanceof Error ? error.message : String(error));
}

/** Runs `task` over `items`, at most `limit` at once, keeping order; stops starting new ones after a failure. */
async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function field(meal: Meal, key: string): string {
  const value = meal[key];
  if (typeof value === "number") return String(value);
  return typeof value === "string" ? value.trim() : "";
}

/** Keeps the first copy of each meal id, in download order; drops meals without id or name. */
function uniqueMeals(meals: Meal[]): Meal[] {
  const seen = new Set<string>();
  return meals.filter((meal) => {
    const id = field(meal, "idMeal");
    if (!id || !field(meal, "strMeal") || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

export function mealsToSeedData(meals: Meal[]): SeedDataInput {
  const recipes: NonNullable<SeedDataInput["recipes"]> = [];
  const posts: NonNullable<SeedDataInput["posts"]> = [];
  meals.forEach((meal, index) => {
    const number = index + 1;
    const recipeId = `${BOT_USER_ID}-R${number}`;
    const postId = `${BOT_USER_ID}-P${number}`;
    const name = field(meal, "strMeal");
    const description = [field(meal, "strCategory"), field(meal, "strArea")].filter(Boolean).join(" | ");
    const photo = field(meal, "strMealThumb");
    recipes.push({
      recipe_id: recipeId,
      post_id: postId,
      user_created: BOT_USER_ID,
      name,
      description,
      photo,
      tags: field(meal, "strTags")
        .split(",")
        .map((tag) => tag.trim())
        .filter(Boolean)
        .slice(0, MAX_TAGS),
      // The section id follows the original data: bot prefix + TheMealDB id + I1 (docs/rules.md#seed-sources).
      ingredients_sec: [{ _id: `recipe_bot-${field(meal, "idMeal")}I1`, title: "Main Ingredients", ingredients: ingredientLines(meal) }],
      steps: field(meal, "strInstructions")
        .split(/\r?\n|\r/)
        .map((step) => step.trim())
        .filter(Boolean),
    });
    posts.push({ post_id: postId, recipe_id: recipeId, created_by: BOT_USER_ID, title: name, caption: description, photo, created_at: null });
  });
  return { users: [], recipes, posts };
}

/** `ingredient (measure)`, or just `ingredient` when the measure is blank. */
function ingredientLines(meal: Meal): string[] {
  const lines: string[] = [];
  for (let i = 1; i <= MAX_INGREDIENTS; i++) {
    const ingredient = field(meal, `strIngredient${i}`);
    if (!ingredient) continue;
    const measure = field(meal, `strMeasure${i}`);
    lines.push(measure ? `${ingredient} (${measure})` : ingredient);
  }
  return lines;
}
