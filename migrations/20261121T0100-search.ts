import { sql, type Kysely } from "kysely";

// Frozen once merged: change the search index with a new migration, never by editing this one.
//
// SQLite-only (docs/rules.md#portability): FTS5 tables and triggers. A PostgreSQL port replaces this file with
// tsvector/pg_trgm equivalents and app/server/queries/search.server.ts with matching queries.
//
// recipes_fts: one document per recipe, rowid = recipes.seq (unique and never reused while the
//   row lives; SQLite's implicit rowid of a text-keyed table may change on VACUUM, seq does not).
//   Columns: name, description, tags, ingredient lines (section titles are not indexed: every bot
//   recipe has "Main Ingredients"). Contentless with delete support: the text lives in the real
//   tables only, the index keeps what bm25() needs.
// users_fts: trigram index of username and name (substring and prefix search, any script),
//   rowid = users.seq.
// recipe_shuffle: one random key per recipe, indexed, so "every recipe in random order" pages
//   walk an index instead of sorting the table per request.
//
// Triggers keep all three in step with every write path (pages, API, admin, seed) inside the
// writer's own transaction. A change to a recipe's tags, sections or lines rebuilds that
// recipe's document from the tables, so the index never depends on what the writer sent.

/** Deletes and rebuilds the search document of the recipe whose id is the SQL expression `id`. */
function refreshRecipe(id: string): string {
  return `
    DELETE FROM recipes_fts WHERE rowid = (SELECT seq FROM recipes WHERE id = ${id});
    INSERT INTO recipes_fts (rowid, name, description, tags, ingredients)
      SELECT r.seq, r.name, r.description,
        coalesce((SELECT group_concat(t.tag, ' ') FROM recipe_tags t WHERE t.recipe_id = r.id), ''),
        coalesce((SELECT group_concat(l.text, char(10))
                    FROM ingredient_sections s JOIN ingredient_lines l ON l.section_id = s.id
                   WHERE s.recipe_id = r.id), '')
      FROM recipes r WHERE r.id = ${id};`;
}

const sectionRecipe = (sectionId: string) => `(SELECT recipe_id FROM ingredient_sections WHERE id = ${sectionId})`;

const statements: string[] = [
  `CREATE VIRTUAL TABLE recipes_fts USING fts5(
     name, description, tags, ingredients,
     content = '', contentless_delete = 1,
     tokenize = 'porter unicode61 remove_diacritics 2',
     prefix = '2 3'
   )`,
  `CREATE VIRTUAL TABLE users_fts USING fts5(
     username, name,
     content = '', contentless_delete = 1,
     tokenize = 'trigram remove_diacritics 1'
   )`,
  `CREATE TABLE recipe_shuffle (
     recipe_seq INTEGER PRIMARY KEY,
     shuffle_key INTEGER NOT NULL
   )`,
  `CREATE INDEX recipe_shuffle_key ON recipe_shuffle (shuffle_key, recipe_seq)`,

  // Recipes
  `CREATE TRIGGER recipes_search_insert AFTER INSERT ON recipes BEGIN
     ${refreshRecipe("NEW.id")}
     INSERT OR REPLACE INTO recipe_shuffle (recipe_seq, shuffle_key) VALUES (NEW.seq, random());
   END`,
  `CREATE TRIGGER recipes_search_update AFTER UPDATE OF id, name, description, seq ON recipes BEGIN
     DELETE FROM recipes_fts WHERE rowid = OLD.seq;
     ${refreshRecipe("NEW.id")}
     UPDATE recipe_shuffle SET recipe_seq = NEW.seq WHERE recipe_seq = OLD.seq AND NEW.seq <> OLD.seq;
   END`,
  `CREATE TRIGGER recipes_search_delete AFTER DELETE ON recipes BEGIN
     DELETE FROM recipes_fts WHERE rowid = OLD.seq;
     DELETE FROM recipe_shuffle WHERE recipe_seq = OLD.seq;
   END`,

  // Tags
  `CREATE TRIGGER recipe_tags_search_insert AFTER INSERT ON recipe_tags BEGIN
     ${refreshRecipe("NEW.recipe_id")}
   END`,
  `CREATE TRIGGER recipe_tags_search_update AFTER UPDATE ON recipe_tags BEGIN
     ${refreshRecipe("NEW.recipe_id")}
   END`,
  `CREATE TRIGGER recipe_tags_search_move AFTER UPDATE OF recipe_id ON recipe_tags
   WHEN OLD.recipe_id IS NOT NEW.recipe_id BEGIN
     ${refreshRecipe("OLD.recipe_id")}
   END`,
  `CREATE TRIGGER recipe_tags_search_delete AFTER DELETE ON recipe_tags BEGIN
     ${refreshRecipe("OLD.recipe_id")}
   END`,

  // Sections (their lines move or vanish with them)
  `CREATE TRIGGER ingredient_sections_search_insert AFTER INSERT ON ingredient_sections BEGIN
     ${refreshRecipe("NEW.recipe_id")}
   END`,
  `CREATE TRIGGER ingredient_sections_search_update AFTER UPDATE OF id, recipe_id ON ingredient_sections BEGIN
     ${refreshRecipe("NEW.recipe_id")}
   END`,
  `CREATE TRIGGER ingredient_sections_search_move AFTER UPDATE OF recipe_id ON ingredient_sections
   WHEN OLD.recipe_id IS NOT NEW.recipe_id BEGIN
     ${refreshRecipe("OLD.recipe_id")}
   END`,
  `CREATE TRIGGER ingredient_sections_search_delete AFTER DELETE ON ingredient_sections BEGIN
     ${refreshRecipe("OLD.recipe_id")}
   END`,

  // Ingredient lines
  `CREATE TRIGGER ingredient_lines_search_insert AFTER INSERT ON ingredient_lines BEGIN
     ${refreshRecipe(sectionRecipe("NEW.section_id"))}
   END`,
  `CREATE TRIGGER ingredient_lines_search_update AFTER UPDATE OF text, section_id ON ingredient_lines BEGIN
     ${refreshRecipe(sectionRecipe("NEW.section_id"))}
   END`,
  `CREATE TRIGGER ingredient_lines_search_move AFTER UPDATE OF section_id ON ingredient_lines
   WHEN OLD.section_id IS NOT NEW.section_id BEGIN
     ${refreshRecipe(sectionRecipe("OLD.section_id"))}
   END`,
  `CREATE TRIGGER ingredient_lines_search_delete AFTER DELETE ON ingredient_lines BEGIN
     ${refreshRecipe(sectionRecipe("OLD.section_id"))}
   END`,

  // Users
  `CREATE TRIGGER users_search_insert AFTER INSERT ON users BEGIN
     INSERT INTO users_fts (rowid, username, name) VALUES (NEW.seq, NEW.username, NEW.name);
   END`,
  `CREATE TRIGGER users_search_update AFTER UPDATE OF username, name, seq ON users BEGIN
     DELETE FROM users_fts WHERE rowid = OLD.seq;
     INSERT INTO users_fts (rowid, username, name) VALUES (NEW.seq, NEW.username, NEW.name);
   END`,
  `CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
     DELETE FROM users_fts WHERE rowid = OLD.seq;
   END`,

  // Backfill what the database already holds.
  `INSERT INTO recipes_fts (rowid, name, description, tags, ingredients)
     SELECT r.seq, r.name, r.description,
       coalesce((SELECT group_concat(t.tag, ' ') FROM recipe_tags t WHERE t.recipe_id = r.id), ''),
       coalesce((SELECT group_concat(l.text, char(10))
                   FROM ingredient_sections s JOIN ingredient_lines l ON l.section_id = s.id
                  WHERE s.recipe_id = r.id), '')
     FROM recipes r`,
  `INSERT INTO users_fts (rowid, username, name) SELECT seq, username, name FROM users`,
  `INSERT INTO recipe_shuffle (recipe_seq, shuffle_key) SELECT seq, random() FROM recipes`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

// Forward-only, like every migration here.
export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
