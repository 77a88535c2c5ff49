import { sql, type Kysely } from "kysely";

import { isPostgres } from "./engine";

// Frozen once merged: change the search index with a new migration, never by editing this one.
// (The PostgreSQL variant was added when PostgreSQL became an engine; SQLite's SQL is unchanged.)
//
// Two variants, each read by its engine's side of app/server/db/engines/ (docs/scaling.md).
//
// SQLite: FTS5 tables and triggers.
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

const sqliteStatements: string[] = [
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

// PostgreSQL: the same documents as weighted tsvectors in recipe_search (one row per recipe, GIN
// indexed): name A, tags B, description C, ingredient lines D, plus the name alone for the
// name tier. The `recipals` text search configuration is English stemming without accents.
// People search uses pg_trgm indexes on username and name (ILIKE '%word%'). recipe_shuffle is
// the same table as on SQLite. Row triggers rebuild a recipe's document inside the writer's
// transaction, from the tables, like SQLite's.
const RANDOM_KEY = "((random() * 2 - 1) * 9223372036854775000)::bigint";

/** Inserts the search documents of the recipes `r` that `where` selects. */
const insertDocuments = (where: string) => `
  insert into recipe_search (recipe_id, seq, document, name_document)
  select r.id, r.seq,
    setweight(to_tsvector('recipals', r.name), 'A') ||
    setweight(to_tsvector('recipals', coalesce((select string_agg(t.tag, ' ' order by t.position) from recipe_tags t where t.recipe_id = r.id), '')), 'B') ||
    setweight(to_tsvector('recipals', r.description), 'C') ||
    setweight(to_tsvector('recipals', coalesce((select string_agg(l.text, E'\\n' order by s.position, l.position)
                                                 from ingredient_sections s join ingredient_lines l on l.section_id = s.id
                                                where s.recipe_id = r.id), '')), 'D'),
    to_tsvector('recipals', r.name)
  from recipes r ${where}`;

const postgresStatements: string[] = [
  `create extension if not exists pg_trgm`,
  `create extension if not exists unaccent`,
  `create text search configuration recipals (copy = english)`,
  `alter text search configuration recipals alter mapping for hword, hword_part, word with unaccent, english_stem`,
  `create table recipe_search (
     recipe_id text primary key,
     seq bigint not null,
     document tsvector not null,
     name_document tsvector not null
   )`,
  `create index recipe_search_document on recipe_search using gin (document)`,
  `create index recipe_search_name on recipe_search using gin (name_document)`,
  `create index recipe_search_seq on recipe_search (seq)`,
  `create table recipe_shuffle (
     recipe_seq bigint primary key,
     shuffle_key bigint not null
   )`,
  `create index recipe_shuffle_key on recipe_shuffle (shuffle_key, recipe_seq)`,
  `create index users_username_trgm on users using gin (username gin_trgm_ops)`,
  `create index users_name_trgm on users using gin (name gin_trgm_ops)`,

  `create function recipals_refresh_recipe(target text) returns void language plpgsql as $$
   begin
     if target is null then return; end if;
     delete from recipe_search where recipe_id = target;
     ${insertDocuments("where r.id = target")};
   end $$`,

  `create function recipals_recipes_search() returns trigger language plpgsql as $$
   begin
     if tg_op = 'DELETE' then
       delete from recipe_search where recipe_id = old.id;
       delete from recipe_shuffle where recipe_seq = old.seq;
       return null;
     end if;
     if tg_op = 'UPDATE' and old.id <> new.id then
       delete from recipe_search where recipe_id = old.id;
     end if;
     perform recipals_refresh_recipe(new.id);
     if tg_op = 'INSERT' then
       insert into recipe_shuffle (recipe_seq, shuffle_key) values (new.seq, ${RANDOM_KEY})
         on conflict (recipe_seq) do update set shuffle_key = excluded.shuffle_key;
     elsif new.seq <> old.seq then
       update recipe_shuffle set recipe_seq = new.seq where recipe_seq = old.seq;
     end if;
     return null;
   end $$`,
  `create trigger recipes_search after insert or delete or update of id, name, description, seq on recipes
     for each row execute function recipals_recipes_search()`,

  // Tags and sections name their recipe; a row moved to another recipe refreshes both.
  `create function recipals_recipe_part_search() returns trigger language plpgsql as $$
   begin
     if tg_op in ('INSERT', 'UPDATE') then perform recipals_refresh_recipe(new.recipe_id); end if;
     if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.recipe_id is distinct from new.recipe_id) then
       perform recipals_refresh_recipe(old.recipe_id);
     end if;
     return null;
   end $$`,
  `create trigger recipe_tags_search after insert or update or delete on recipe_tags
     for each row execute function recipals_recipe_part_search()`,
  `create trigger ingredient_sections_search after insert or delete or update of id, recipe_id on ingredient_sections
     for each row execute function recipals_recipe_part_search()`,

  `create function recipals_ingredient_line_search() returns trigger language plpgsql as $$
   begin
     if tg_op in ('INSERT', 'UPDATE') then
       perform recipals_refresh_recipe((select recipe_id from ingredient_sections where id = new.section_id));
     end if;
     if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.section_id is distinct from new.section_id) then
       perform recipals_refresh_recipe((select recipe_id from ingredient_sections where id = old.section_id));
     end if;
     return null;
   end $$`,
  `create trigger ingredient_lines_search after insert or delete or update of text, section_id on ingredient_lines
     for each row execute function recipals_ingredient_line_search()`,

  // Rebuilds every document and shuffle key: the backfill below, and after a bulk copy
  // (npm run db:copy loads the tables with triggers off).
  `create function recipals_rebuild_search() returns void language plpgsql as $$
   begin
     delete from recipe_search;
     ${insertDocuments("")};
     insert into recipe_shuffle (recipe_seq, shuffle_key) select seq, ${RANDOM_KEY} from recipes
       on conflict (recipe_seq) do nothing;
     delete from recipe_shuffle where recipe_seq not in (select seq from recipes);
   end $$`,
  `select recipals_rebuild_search()`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of isPostgres(db) ? postgresStatements : sqliteStatements) await sql.raw(statement).execute(db);
}

// Forward-only, like every migration here.
export async function down(): Promise<void> {
  throw new Error("Migrations are forward-only.");
}
