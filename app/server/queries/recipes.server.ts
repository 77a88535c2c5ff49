import { db, type DB } from "../db.server";

// Reads of recipes. Field names follow SPEC §3 so pages and the JSON API share one shape.

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
export async function getRecipeDetail(id: string, database: DB = db): Promise<RecipeDetail | undefined> {
  const recipe = await database
    .selectFrom("recipes as r")
    .leftJoin("users as u", "u.id", "r.user_created")
    .leftJoin("posts as p", "p.recipe_id", "r.id")
    .select([
      "r.id",
      "r.user_created",
      "r.name",
      "r.description",
      "r.total_time",
      "r.serves",
      "r.photo",
      "r.created_at",
      "u.id as creator_id",
      "u.username as creator_username",
      "u.profile as creator_profile",
      "p.id as post_id",
    ])
    .where("r.id", "=", id)
    .executeTakeFirst();
  if (!recipe) return undefined;

  const [tags, lines, steps] = await Promise.all([
    database.selectFrom("recipe_tags").select("tag").where("recipe_id", "=", id).orderBy("position").execute(),
    database
      .selectFrom("ingredient_sections as s")
      .leftJoin("ingredient_lines as l", "l.section_id", "s.id")
      .select(["s.id", "s.title", "l.text"])
      .where("s.recipe_id", "=", id)
      .orderBy("s.position")
      .orderBy("l.position")
      .execute(),
    database.selectFrom("steps").select("text").where("recipe_id", "=", id).orderBy("position").execute(),
  ]);

  const sections: IngredientSection[] = [];
  for (const line of lines) {
    let section = sections.at(-1);
    if (!section || section._id !== line.id) {
      section = { _id: line.id, title: line.title, ingredients: [] };
      sections.push(section);
    }
    if (line.text !== null) section.ingredients.push(line.text);
  }

  return {
    recipe_id: recipe.id,
    post_id: recipe.post_id,
    user_created: recipe.user_created,
    creator:
      recipe.creator_id && recipe.creator_username
        ? { id: recipe.creator_id, username: recipe.creator_username, profile: recipe.creator_profile ?? "" }
        : null,
    name: recipe.name,
    description: recipe.description,
    total_time: recipe.total_time,
    serves: recipe.serves,
    photo: recipe.photo,
    created_at: recipe.created_at,
    tags: tags.map((row) => row.tag),
    ingredients_sec: sections,
    steps: steps.map((row) => row.text),
  };
}
