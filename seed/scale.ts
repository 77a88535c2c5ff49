import SQLite from "better-sqlite3";

import { hashPassword } from "../app/server/auth/password.server";
import { planSectionIds, recipePartRows } from "../app/server/queries/recipe-parts.server";
import { PROFILE_TAGS } from "../app/lib/tags";

import { createProgress, type ProgressSink } from "./progress";

// The synthetic scale seed (`npm run seed -- --scale N`): N users, ~5 recipes each with a post,
// power-law follows, likes and comments, for measuring pages and search at size.
//
// Speed: one raw better-sqlite3 connection (Kysely has no prepared statements to reuse), one
// transaction, single-row prepared inserts. The search triggers stay in place; foreign keys are
// off on this connection only, so each recipe's tags, sections and lines go in *before* the
// recipe row: their triggers find no recipe yet and do nothing, and the recipe's own insert
// trigger builds its search document once. Generated data is consistent by construction, and
// `PRAGMA foreign_key_check` verifies it before commit.
//
// Deterministic: every generated value comes from one PRNG with a fixed seed (ids, names, dates
// and counts are the same on every run; only the search shuffle keys, drawn by SQLite, differ).

export const SCALE_DEFAULT_USERS = 10_000;
export const SCALE_PASSWORD = "ReciPals";
export const SCALE_RUN = "scale";
/** The first scale user follows exactly this many people (benchmarks sign in as them). */
export const SCALE_HEAVY_FOLLOWING = 200;

export interface ScaleOptions {
  /** Number of users to add (default 10,000). */
  users?: number;
  /** PRNG seed; fixed by default so runs are reproducible. */
  seed?: number;
  log?: (line: string) => void;
  /** Where the progress bars go; default a redrawn line on a terminal, else a few log lines. */
  sink?: ProgressSink;
}

export interface ScaleReport {
  skipped: boolean;
  users: number;
  recipes: number;
  posts: number;
  follows: number;
  likes: number;
  comments: number;
  /** Wall-clock time of the whole run. */
  ms: number;
  /** Username of the scale user who follows SCALE_HEAVY_FOLLOWING people. */
  heavyFollower: string;
}

/** Per-user volumes; at 10,000 users: 50,000 recipes, 120,000 follows, 500,000 likes, 100,000 comments. */
const PER_USER = { recipes: 5, follows: 12, likes: 50, comments: 10 } as const;

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

/** mulberry32: tiny, fast and good enough for synthetic data. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  return {
    next,
    int,
    between: (min: number, max: number) => min + int(max - min + 1),
    pick: <T>(items: readonly T[]): T => items[int(items.length)]!,
    chance: (p: number) => next() < p,
    /** Power law over 0..n-1: low indexes are drawn far more often (a few very popular items). */
    skewed: (n: number, exponent = 3) => Math.min(n - 1, Math.floor(n * next() ** exponent)),
    /** Up to `count` distinct items, in drawn order. */
    sample: <T>(items: readonly T[], count: number): T[] => {
      const chosen = new Set<T>();
      for (let tries = 0; chosen.size < count && tries < count * 10; tries++) chosen.add(items[int(items.length)]!);
      return [...chosen];
    },
  };
}
type Random = ReturnType<typeof createRandom>;

// ---------------------------------------------------------------------------------------------
// Vocabulary

const FIRST_NAMES = [
  "Ava",
  "Liam",
  "Maya",
  "Noah",
  "Zoe",
  "Omar",
  "Lena",
  "Kai",
  "Nora",
  "Leo",
  "Aisha",
  "Mateo",
  "Yuki",
  "Ines",
  "Ravi",
  "Sofia",
  "Elias",
  "Chloe",
  "Hugo",
  "Amara",
  "Jonas",
  "Priya",
  "Diego",
  "Freya",
  "Tariq",
  "Mila",
  "Felix",
  "Hana",
  "Luca",
  "Nia",
  "Oscar",
  "Rosa",
  "Sami",
  "Tess",
  "Umar",
  "Vera",
  "Wei",
  "Ximena",
  "Yara",
  "Zane",
  "Anika",
  "Bruno",
  "Clara",
  "Dev",
  "Elif",
  "Farah",
  "Gus",
  "Ida",
  "Jade",
  "Kofi",
  "Lucia",
  "Marco",
  "Nadia",
  "Otto",
  "Pia",
  "Quinn",
  "Rhea",
  "Soren",
  "Talia",
  "Ugo",
] as const;
const LAST_NAMES = [
  "Garcia",
  "Nguyen",
  "Smith",
  "Kim",
  "Patel",
  "Rossi",
  "Muller",
  "Silva",
  "Tanaka",
  "Cohen",
  "Okafor",
  "Haddad",
  "Novak",
  "Larsen",
  "Moreau",
  "Khan",
  "Lopez",
  "Schmidt",
  "Ivanova",
  "Chen",
  "Dubois",
  "Costa",
  "Yilmaz",
  "Andersen",
  "Fischer",
  "Morales",
  "Sato",
  "Wright",
  "Kowalski",
  "Mensah",
  "Alvarez",
  "Bianchi",
  "Park",
  "Reyes",
  "Sharma",
  "Torres",
  "Weber",
  "Zhang",
  "Ortiz",
  "Lind",
] as const;
const ADJECTIVES = [
  "Smoky",
  "Spicy",
  "Creamy",
  "Crispy",
  "Zesty",
  "Classic",
  "Rustic",
  "Garlic",
  "Honey",
  "Lemon",
  "Herbed",
  "Roasted",
  "Grilled",
  "Slow-Cooked",
  "Sticky",
  "Golden",
  "Easy",
  "Weeknight",
  "Hearty",
  "Summer",
  "Winter",
  "Sweet",
  "Tangy",
  "Charred",
  "Baked",
  "Braised",
  "Fresh",
  "Simple",
  "Grandma's",
  "One-Pan",
] as const;
const MAINS = [
  "Chicken",
  "Beef",
  "Pork",
  "Lamb",
  "Salmon",
  "Shrimp",
  "Tofu",
  "Mushroom",
  "Chickpea",
  "Lentil",
  "Eggplant",
  "Potato",
  "Cauliflower",
  "Turkey",
  "Cod",
  "Halloumi",
  "Paneer",
  "Duck",
  "Spinach",
  "Squash",
  "Tomato",
  "Black Bean",
  "Sweet Potato",
  "Broccoli",
  "Tuna",
  "Sausage",
  "Egg",
  "Apple",
  "Chocolate",
  "Banana",
] as const;
const DISHES = [
  "Curry",
  "Stew",
  "Tacos",
  "Salad",
  "Soup",
  "Pie",
  "Pasta",
  "Risotto",
  "Stir-Fry",
  "Bowl",
  "Burger",
  "Skewers",
  "Casserole",
  "Noodles",
  "Tart",
  "Bake",
  "Sandwich",
  "Flatbread",
  "Dumplings",
  "Chili",
  "Fritters",
  "Wraps",
  "Gratin",
  "Traybake",
  "Hotpot",
  "Cake",
  "Muffins",
  "Pancakes",
  "Frittata",
  "Salsa",
] as const;
/** Rare words (about 1 recipe in 400) for "rare word" searches. */
const RARE_WORDS = ["Yuzu", "Sumac", "Gochujang", "Saffron", "Tamarind", "Fenugreek", "Kombu", "Mirin"] as const;
const CATEGORIES = [
  "Dessert",
  "Beef",
  "Chicken",
  "Pork",
  "Seafood",
  "Vegetarian",
  "Vegan",
  "Pasta",
  "Breakfast",
  "Side",
  "Lamb",
  "Miscellaneous",
] as const;
const CUISINES = [
  "Italian",
  "Mexican",
  "Indian",
  "Japanese",
  "Thai",
  "French",
  "Greek",
  "Moroccan",
  "American",
  "British",
  "Chinese",
  "Korean",
  "Spanish",
  "Turkish",
  "Vietnamese",
  "Jamaican",
  "Lebanese",
  "Peruvian",
] as const;
const RECIPE_TAGS = [
  "Savory",
  "Baking",
  "Pudding",
  "Soup",
  "Pie",
  "Sweet",
  "Spicy",
  "Brunch",
  "Keto",
  "Paleo",
  "Quick",
  "Comfort",
  "Healthy",
  "Vegan",
  "Vegetarian",
  "Weeknight",
  "Party",
  "Spring",
] as const;
const INGREDIENTS = [
  "olive oil",
  "butter",
  "garlic cloves",
  "onion",
  "red onion",
  "shallots",
  "ginger",
  "chilli flakes",
  "cumin",
  "coriander",
  "smoked paprika",
  "turmeric",
  "garam masala",
  "cinnamon",
  "nutmeg",
  "bay leaves",
  "thyme",
  "rosemary",
  "oregano",
  "basil",
  "parsley",
  "mint",
  "dill",
  "salt",
  "black pepper",
  "plain flour",
  "caster sugar",
  "brown sugar",
  "honey",
  "maple syrup",
  "eggs",
  "milk",
  "double cream",
  "greek yogurt",
  "parmesan",
  "cheddar",
  "mozzarella",
  "feta",
  "chicken thighs",
  "chicken breast",
  "beef mince",
  "pork shoulder",
  "lamb shoulder",
  "salmon fillets",
  "king prawns",
  "firm tofu",
  "chickpeas",
  "red lentils",
  "black beans",
  "basmati rice",
  "arborio rice",
  "spaghetti",
  "penne",
  "egg noodles",
  "rice noodles",
  "potatoes",
  "sweet potatoes",
  "carrots",
  "celery",
  "leeks",
  "courgette",
  "aubergine",
  "red pepper",
  "green beans",
  "peas",
  "spinach",
  "kale",
  "mushrooms",
  "cherry tomatoes",
  "chopped tomatoes",
  "tomato puree",
  "coconut milk",
  "vegetable stock",
  "chicken stock",
  "soy sauce",
  "fish sauce",
  "rice vinegar",
  "sesame oil",
  "lemon juice",
  "lime",
  "white wine",
  "red wine",
  "dijon mustard",
  "mayonnaise",
  "breadcrumbs",
  "baking powder",
  "vanilla extract",
  "dark chocolate",
  "cocoa powder",
  "ground almonds",
  "walnuts",
  "pine nuts",
  "spring onions",
  "avocado",
  "sweetcorn",
  "cabbage",
] as const;
const UNITS = ["g", "ml", "tbsp", "tsp", "cups", ""] as const;
const STEP_TEMPLATES = [
  "Preheat the oven to {n}0C.",
  "Heat the {i} in a large pan over a medium heat.",
  "Add the {i} and cook for {n} minutes, stirring often.",
  "Stir in the {i} and season well.",
  "Simmer gently for {n}0 minutes until thickened.",
  "Whisk the {i} with the {j} in a bowl.",
  "Transfer to a baking dish and bake for {n}5 minutes.",
  "Serve hot, scattered with {i}.",
  "Leave to rest for {n} minutes before slicing.",
  "Fold through the {i} and taste for seasoning.",
] as const;
const COMMENTS = [
  "Made this tonight, so good!",
  "My kids loved it.",
  "Added extra garlic, perfect.",
  "Saving this for the weekend.",
  "How long does it keep in the fridge?",
  "Great weeknight dinner.",
  "Turned out a bit dry, will try less time.",
  "Best version I've tried.",
  "Doubled the recipe for a party.",
  "Swapped in tofu and it worked well.",
  "Can I freeze this?",
  "Delicious, thanks for sharing!",
] as const;

// ---------------------------------------------------------------------------------------------
// Generation

/** Fixed clock so runs are identical: the data "ends" on this day. */
const END_DAY = Date.UTC(2026, 10, 1);
const DAY_MS = 86_400_000;
const dayOf = (daysAgo: number) => new Date(END_DAY - daysAgo * DAY_MS).toISOString().slice(0, 10);
const isoOf = (daysAgo: number) => new Date(END_DAY - daysAgo * DAY_MS).toISOString();

function recipeName(random: Random): string {
  const words: string[] = [random.pick(ADJECTIVES), random.pick(MAINS), random.pick(DISHES)];
  if (random.chance(0.0025)) words.splice(1, 0, random.pick(RARE_WORDS));
  return words.join(" ");
}

function ingredientLine(random: Random): string {
  const unit = random.pick(UNITS);
  const amount = unit === "g" || unit === "ml" ? random.between(1, 40) * 25 : random.between(1, 4);
  return `${random.pick(INGREDIENTS)} (${amount}${unit ? ` ${unit}` : ""})`;
}

function step(random: Random): string {
  return random
    .pick(STEP_TEMPLATES)
    .replace("{n}", String(random.between(1, 9)))
    .replace("{i}", random.pick(INGREDIENTS))
    .replace("{j}", random.pick(INGREDIENTS));
}

function uniqueUsername(first: string, last: string, index: number, taken: Set<string>): string {
  const base = `${first}${last}`.toLowerCase().replace(/[^a-z0-9]/g, "");
  let username = `${base}${index}`;
  for (let n = 2; taken.has(username); n++) username = `${base}${index}_${n}`;
  taken.add(username);
  return username;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** A progress bar fed with running totals, redrawn once per CHUNK rows rather than per row. */
function phase(label: string, total: number, sink: ProgressSink) {
  const progress = createProgress(label, total, sink);
  let shown = 0;
  return {
    at(done: number) {
      if (done - shown >= CHUNK) {
        progress.advance(done - shown);
        shown = done;
      }
    },
    finish() {
      progress.advance(total - shown);
      progress.finish();
    },
  };
}
const CHUNK = 1000;

/**
 * Adds the scale data to the SQLite file at `file` (already migrated: the server build and the
 * tests migrate on open). Running it again on the same database changes nothing.
 */
export async function scaleSeed(file: string, options: ScaleOptions = {}): Promise<ScaleReport> {
  const started = performance.now();
  const userCount = Math.max(1, Math.floor(options.users ?? SCALE_DEFAULT_USERS));
  const log = options.log ?? console.log;
  const sink: ProgressSink = options.sink ?? (process.stderr.isTTY ? { tty: process.stderr } : { log });
  const random = createRandom(options.seed ?? 0x5eed_2026);

  // Hashed once, outside the transaction: every scale user signs in with SCALE_PASSWORD.
  const passwordHash = await hashPassword(SCALE_PASSWORD);

  const sqlite = new SQLite(file);
  try {
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("busy_timeout = 5000");
    sqlite.pragma("foreign_keys = OFF");
    sqlite.pragma("cache_size = -65536");
    sqlite.pragma("temp_store = MEMORY");

    const heavyFollowerName = () =>
      (sqlite.prepare("SELECT username FROM users WHERE id = 'scale-u0'").pluck().get() as string | undefined) ?? "";
    const already = sqlite.prepare("SELECT detail FROM seed_runs WHERE name = ?").pluck().get(SCALE_RUN);
    if (already !== undefined) {
      log(`Scale data is already in this database (${String(already)}); nothing added.`);
      return {
        skipped: true,
        users: 0,
        recipes: 0,
        posts: 0,
        follows: 0,
        likes: 0,
        comments: 0,
        ms: performance.now() - started,
        heavyFollower: heavyFollowerName(),
      };
    }

    // The page cache hears of this as one change to everything, not one per row: marked as a
    // writer that names its scopes, it names `*` (migrations/20261125T0000-cache-scopes.ts).
    const report = sqlite.transaction(() => {
      sqlite.prepare("INSERT INTO cache_scoping (id) VALUES (1) ON CONFLICT DO NOTHING").run();
      const written = writeScaleData(sqlite, userCount, passwordHash, random, sink);
      sqlite.prepare("DELETE FROM cache_scoping").run();
      sqlite
        .prepare(
          "INSERT INTO cache_versions (scope, version) VALUES ('*', (SELECT coalesce(max(version), 0) + 1 FROM cache_versions)) ON CONFLICT (scope) DO UPDATE SET version = excluded.version",
        )
        .run();
      return written;
    })();
    report.heavyFollower = heavyFollowerName();
    sqlite.pragma("wal_checkpoint(TRUNCATE)");
    report.ms = performance.now() - started;
    return report;
  } finally {
    sqlite.close();
  }
}

function writeScaleData(
  sqlite: SQLite.Database,
  userCount: number,
  passwordHash: string,
  random: Random,
  sink: ProgressSink,
): ScaleReport {
  const maxSeq = (table: string) => Number(sqlite.prepare(`SELECT coalesce(max(seq), 0) FROM ${table}`).pluck().get());
  const userSeq0 = maxSeq("users");
  const recipeSeq0 = maxSeq("recipes");
  const postSeq0 = maxSeq("posts");
  const commentSeq0 = maxSeq("comments");
  const taken = new Set(sqlite.prepare("SELECT lower(username) FROM users").pluck().all() as string[]);

  const insertUser = sqlite.prepare(
    "INSERT INTO users (id, username, name, password_hash, role, bio, profile, created_at, seq) VALUES (?, ?, ?, ?, 'USER', ?, '/images/profile.png', ?, ?)",
  );
  const insertUserTag = sqlite.prepare("INSERT INTO user_tags (user_id, position, tag) VALUES (?, ?, ?)");
  const insertRecipe = sqlite.prepare(
    "INSERT INTO recipes (id, user_created, name, description, total_time, serves, photo, created_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insertRecipeTag = sqlite.prepare("INSERT INTO recipe_tags (recipe_id, position, tag) VALUES (?, ?, ?)");
  const insertSection = sqlite.prepare(
    "INSERT INTO ingredient_sections (id, recipe_id, position, title) VALUES (?, ?, ?, ?)",
  );
  const insertLine = sqlite.prepare("INSERT INTO ingredient_lines (section_id, position, text) VALUES (?, ?, ?)");
  const insertStep = sqlite.prepare("INSERT INTO steps (recipe_id, position, text) VALUES (?, ?, ?)");
  const insertPost = sqlite.prepare(
    "INSERT INTO posts (id, recipe_id, created_by, title, caption, photo, created_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insertFollow = sqlite.prepare("INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)");
  const insertLike = sqlite.prepare("INSERT INTO likes (post_id, user_id, created_at) VALUES (?, ?, ?)");
  const insertComment = sqlite.prepare(
    "INSERT INTO comments (id, post_id, user_id, text, created_at, seq) VALUES (?, ?, ?, ?, ?, ?)",
  );

  const userId = (i: number) => `scale-u${i}`;
  const recipeId = (j: number) => `scale-r${j}`;
  const postId = (j: number) => `scale-p${j}`;

  // Users
  let progress = phase("scale users", userCount, sink);
  for (let i = 0; i < userCount; i++) {
    const first = random.pick(FIRST_NAMES);
    const last = random.pick(LAST_NAMES);
    const username = uniqueUsername(first, last, i, taken);
    const bio = random.chance(0.5)
      ? `${random.pick(CUISINES)} food fan and ${random.pick(["home cook", "baker", "student", "chef"])}.`
      : "";
    insertUser.run(
      userId(i),
      username,
      `${first} ${last}`,
      passwordHash,
      bio,
      isoOf(800 - (i * 700) / userCount),
      userSeq0 + i + 1,
    );
    for (const [position, tag] of random.sample(PROFILE_TAGS, random.int(4)).entries()) {
      insertUserTag.run(userId(i), position, tag);
    }
    progress.at(i + 1);
  }
  progress.finish();

  // Recipes and posts: two per user, the rest to authors drawn by a power law (a few prolific ones).
  const recipeCount = userCount * PER_USER.recipes;
  const authorOf = (j: number) => (j < userCount * 2 ? j % userCount : random.skewed(userCount, 2));
  progress = phase("scale recipes", recipeCount, sink);
  for (let j = 0; j < recipeCount; j++) {
    const rid = recipeId(j);
    const author = userId(authorOf(j));
    const name = recipeName(random);
    const category = random.pick(CATEGORIES);
    const description = random.chance(0.6)
      ? `${category} | ${random.pick(CUISINES)}`
      : `${category} | ${random.pick(CUISINES)}. ${random.pick(ADJECTIVES)} and ready in no time.`;
    const photo = "/images/noodleDish.png";
    const daysAgo = 730 - Math.floor((j * 730) / recipeCount);

    // The parts as the app's writer lays them out (recipePartRows: one section-id policy), drawn in
    // a fixed order so the data stay the same for a seed.
    const tags = random.sample(RECIPE_TAGS, random.int(4));
    const sectionCount = random.chance(0.3) ? 2 : 1;
    const sections: { id: string; title: string; ingredients: string[] }[] = [];
    for (let s = 0; s < sectionCount; s++) {
      const ingredients = Array.from({ length: random.between(3, 8) }, () => ingredientLine(random));
      sections.push({ id: `${rid}I${s + 1}`, title: s === 0 ? "Main Ingredients" : random.pick(["Sauce", "Topping", "Dressing", "Marinade"]), ingredients });
    }
    const steps = Array.from({ length: random.between(3, 7) }, () => step(random));
    const parts = { tags, sections, steps };
    const rows = recipePartRows(rid, parts, planSectionIds({ wanted: sections.map((section) => section.id), own: [], takenElsewhere: new Set() }));
    // Children first (see the note at the top): their triggers find no recipe and do nothing.
    for (const row of rows.tags) insertRecipeTag.run(row.recipe_id, row.position, row.tag);
    for (const row of rows.lines) insertLine.run(row.section_id, row.position, row.text);
    for (const row of rows.sections) insertSection.run(row.id, row.recipe_id, row.position, row.title);
    for (const row of rows.steps) insertStep.run(row.recipe_id, row.position, row.text);
    insertRecipe.run(
      rid,
      author,
      name,
      description,
      random.chance(0.9) ? `${random.between(2, 24) * 5}min` : "",
      random.between(1, 8),
      photo,
      isoOf(daysAgo),
      recipeSeq0 + j + 1,
    );
    insertPost.run(postId(j), rid, author, name, description, photo, dayOf(daysAgo), postSeq0 + j + 1);
    progress.at(j + 1);
  }
  progress.finish();

  // Follows: followers uniform, followees by a power law (a few users followed by many).
  // The first scale user follows exactly SCALE_HEAVY_FOLLOWING people.
  const followTarget = userCount * PER_USER.follows;
  const follows = new Set<number>();
  const addFollow = (follower: number, followee: number) => {
    if (follower === followee) return false;
    const key = follower * userCount + followee;
    if (follows.has(key)) return false;
    follows.add(key);
    insertFollow.run(userId(follower), userId(followee), isoOf(random.int(700)));
    return true;
  };
  progress = phase("scale follows", followTarget, sink);
  const heavy = Math.min(SCALE_HEAVY_FOLLOWING, userCount - 1);
  for (let tries = 0; follows.size < heavy && tries < heavy * 50; tries++) {
    addFollow(0, random.skewed(userCount, 2));
  }
  for (let tries = 0; follows.size < followTarget && tries < followTarget * 5; tries++) {
    const follower = 1 + random.int(Math.max(1, userCount - 1));
    if (follower >= userCount) break;
    if (addFollow(follower, random.skewed(userCount))) progress.at(follows.size);
  }
  progress.finish();

  // Likes: posts by a power law (a few viral posts), likers uniform.
  const likeTarget = userCount * PER_USER.likes;
  const likes = new Set<number>();
  progress = phase("scale likes", likeTarget, sink);
  for (let tries = 0; likes.size < likeTarget && tries < likeTarget * 5; tries++) {
    const post = random.skewed(recipeCount, 2);
    const user = random.int(userCount);
    const key = post * userCount + user;
    if (likes.has(key)) continue;
    likes.add(key);
    insertLike.run(postId(post), userId(user), isoOf(random.int(700)));
    progress.at(likes.size);
  }
  progress.finish();

  // Comments
  const commentCount = userCount * PER_USER.comments;
  progress = phase("scale comments", commentCount, sink);
  for (let k = 0; k < commentCount; k++) {
    const daysAgo = random.int(700);
    insertComment.run(
      `scale-c${k}`,
      postId(random.skewed(recipeCount, 2)),
      userId(random.int(userCount)),
      random.pick(COMMENTS),
      isoOf(daysAgo),
      commentSeq0 + k + 1,
    );
    progress.at(k + 1);
  }
  progress.finish();

  const problems = sqlite.pragma("foreign_key_check") as unknown[];
  if (problems.length > 0)
    throw new Error(`Scale seed would break ${problems.length} foreign key(s); nothing written.`);

  const report: ScaleReport = {
    skipped: false,
    users: userCount,
    recipes: recipeCount,
    posts: recipeCount,
    follows: follows.size,
    likes: likes.size,
    comments: commentCount,
    ms: 0,
    heavyFollower: "",
  };
  sqlite
    .prepare("INSERT INTO seed_runs (name, ran_at, detail) VALUES (?, ?, ?)")
    .run(
      SCALE_RUN,
      new Date().toISOString(),
      `users=${userCount} recipes=${recipeCount} follows=${follows.size} likes=${likes.size} comments=${commentCount}`,
    );
  return report;
}
