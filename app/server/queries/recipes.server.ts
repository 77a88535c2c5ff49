import { db, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";
import { applyBatchSelection, groupRows, type BatchSelection } from "./seq.server";

// Reads of recipes. Field names follow docs/rules.md#api-entities so pages and the JSON API share one shape.

export interface IngredientSection {
  _id: string;
  title: string;
  ingredients: string[];
}

export interface RecipeDetail {
  recipe_id: string;
  post_id: string | null;
  user_created: string | null;
  creator: { id: string; username: string; profile: string } | null;
  name: string;
  description: string;
  total_time: string;
  serves: number | null;
  photo: string;
  created_at: string | null;
  tags: string[];
  ingredients_sec: IngredientSection[];
  steps: string[];
}

export async function recipeExists(id: string, database: DB = db): Promise<boolean> {
  const row = await database.selectFrom("recipes").select("id").where("id", "=", id).executeTakeFirst();
  return row !== undefined;
}

/** A recipe with its creator, post id, tags, ordered sections and lines, and ordered steps. */
/** Who created a recipe: their id, null once their account is gone, undefined when there is no such recipe. */
export async function getRecipeCreator(id: string, database: DB = db): Promise<string | null | undefined> {
  const row = await database.selectFrom("recipes").select("user_created").where("id", "=", id).executeTakeFirst();
  return row ? row.user_created : undefined;
}

const creatorRow = preparedRead((database, recipeId: string) =>
  database.selectFrom("recipes as r").innerJoin("users as u", "u.id", "r.user_created").select(["u.id", "u.username", "u.profile"]).where("r.id", "=", recipeId),
);

export async function getRecipeDetail(id: string, database: DB = db): Promise<RecipeDetail | undefined> {
  // The same reader as the API's lists (one recipe is a batch of one), plus who made it.
  const [[recipe], [creator]] = await Promise.all([readRecipesFull({ ids: [id] }, database), creatorRow(database, id)]);
  if (!recipe) return undefined;
  const { seq: _seq, ...detail } = recipe;
  return { ...detail, creator: creator ? { id: creator.id, username: creator.username, profile: creator.profile ?? "" } : null };
}

// ---------------------------------------------------------------------------------------------
// Whole recipes in batches, for the JSON API's lists (docs/rules.md#api-entities). One query per child
// kind (tags, sections with lines, steps) for a whole batch, never one per recipe.

export interface RecipeFull extends Omit<RecipeDetail, "creator"> {
  seq: number;
}

export async function readRecipesFull(selection: BatchSelection, database: DB = db): Promise<RecipeFull[]> {
  const query = applyBatchSelection(
    database
      .selectFrom("recipes as r")
      .leftJoin("posts as p", "p.recipe_id", "r.id")
      .select([
        "r.seq",
        "r.id",
        "r.user_created",
        "r.name",
        "r.description",
        "r.total_time",
        "r.serves",
        "r.photo",
        "r.created_at",
        "p.id as post_id",
      ]),
    selection,
    { id: "r.id", seq: "r.seq", person: "r.user_created" },
  );
  if (!query) return [];
  const recipes = await query.execute();
  if (recipes.length === 0) return [];
  const ids = recipes.map((recipe) => recipe.id);
  const [tags, lines, steps] = await Promise.all([
    database.selectFrom("recipe_tags").select(["recipe_id", "tag"]).where("recipe_id", "in", ids).orderBy("recipe_id").orderBy("position").execute(),
    database
      .selectFrom("ingredient_sections as s")
      .leftJoin("ingredient_lines as l", "l.section_id", "s.id")
      .select(["s.recipe_id", "s.id", "s.title", "l.text"])
      .where("s.recipe_id", "in", ids)
      .orderBy("s.recipe_id")
      .orderBy("s.position")
      .orderBy("l.position")
      .execute(),
    database.selectFrom("steps").select(["recipe_id", "text"]).where("recipe_id", "in", ids).orderBy("recipe_id").orderBy("position").execute(),
  ]);
  const tagsOf = groupRows(tags.map((row) => [row.recipe_id, row.tag] as const));
  const stepsOf = groupRows(steps.map((row) => [row.recipe_id, row.text] as const));
  const sectionsOf = new Map<string, IngredientSection[]>();
  for (const line of lines) {
    let sections = sectionsOf.get(line.recipe_id);
    if (!sections) sectionsOf.set(line.recipe_id, (sections = []));
    let section = sections.at(-1);
    if (!section || section._id !== line.id) {
      section = { _id: line.id, title: line.title, ingredients: [] };
      sections.push(section);
    }
    if (line.text !== null) section.ingredients.push(line.text);
  }
  return recipes.map(({ id, ...recipe }) => ({
    ...recipe,
    recipe_id: id,
    tags: tagsOf.get(id) ?? [],
    ingredients_sec: sectionsOf.get(id) ?? [],
    steps: stepsOf.get(id) ?? [],
  }));
}
