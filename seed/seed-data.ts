import { z } from "zod";

import { DEFAULT_PROFILE_IMAGE } from "../app/lib/paths";

// The shape every seed source ends up in: the sample file as the original server shipped
// it, TheMealDB converted to it, and the built-in core. Fix-ups that need one record at a
// time happen here (docs/rules.md#seed-quirks), so the writer only ever sees clean data; fix-ups
// that need several records (post ids, unique comment ids) happen in the writer.

const id = z.union([z.string().trim().min(1), z.number()]).transform(String);
/** `following` may hold ids or `{ _id }` objects (docs/rules.md#seed-quirks). */
const idRef = z.union([id, z.object({ _id: id }).transform((ref) => ref._id)]);
const optionalId = id.nullish().transform((value) => value ?? null);
const text = z.string().nullish().transform((value) => value ?? "");
/** Bot posts carry `created_at: ""`; stored as null so the admin table shows N/A. */
const dateOrNull = z
  .string()
  .nullish()
  .transform((value) => (value?.trim() ? value.trim() : null));

function list<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullish()
    .transform((items) => items ?? []);
}

/** Tags are trimmed and blanks dropped (a sample recipe has a `""` tag). */
const tags = list(z.string()).transform((items) => items.map((tag) => tag.trim()).filter(Boolean));
/** Ingredient lines and steps keep their text as written; only empty lines go. */
const lines = list(z.string()).transform((items) => items.filter((line) => line.trim() !== ""));

const serves = z
  .union([z.number(), z.string()])
  .nullish()
  .transform((value) => {
    const count = typeof value === "string" ? Number.parseInt(value, 10) : value;
    return count != null && Number.isFinite(count) && count > 0 ? Math.round(count) : null;
  });

const UserSchema = z
  .object({
    _id: id,
    username: z.string().trim().min(1),
    name: z.string().nullish(),
    password: z.string().nullish(),
    // Only an explicit ADMIN is trusted; anything else (the bot has no role) is a USER.
    role: z
      .string()
      .nullish()
      .transform((role): "USER" | "ADMIN" => (role?.toUpperCase() === "ADMIN" ? "ADMIN" : "USER")),
    bio: text,
    profile: z
      .string()
      .nullish()
      .transform((value) => value?.trim() || DEFAULT_PROFILE_IMAGE),
    tags,
    following: list(idRef),
    followers: list(idRef),
    saved_recipes: list(idRef),
  })
  .transform((user) => ({ ...user, name: user.name?.trim() || user.username }));

const SectionSchema = z.object({
  _id: id.nullish(),
  title: text,
  ingredients: lines,
});

const RecipeSchema = z.object({
  recipe_id: id,
  post_id: id.nullish(),
  user_created: optionalId,
  // Kept as is even past today's 50-character limit: the limit applies on edit (docs/rules.md#seed-quirks).
  name: z.string(),
  description: text,
  total_time: z
    .union([z.string(), z.number()])
    .nullish()
    .transform((value) => (value == null ? "" : String(value).trim())),
  serves,
  photo: text,
  tags,
  ingredients_sec: list(SectionSchema),
  steps: lines,
  created_at: dateOrNull,
});

const CommentSchema = z.object({
  comment_id: id.nullish(),
  user_id: optionalId,
  text: z.string(),
  created_at: dateOrNull,
});

const PostSchema = z.object({
  post_id: id,
  recipe_id: id,
  created_by: optionalId,
  title: z.string().nullish(),
  caption: text,
  photo: z.string().nullish(),
  likes: list(idRef),
  comments: list(CommentSchema),
  created_at: dateOrNull,
});

export const SeedDataSchema = z.object({
  users: list(UserSchema),
  recipes: list(RecipeSchema),
  posts: list(PostSchema),
});

/** What a source produces (loose: optional fields may be missing). */
export type SeedDataInput = z.input<typeof SeedDataSchema>;
/** What the writer consumes (normalised). */
export type SeedData = z.output<typeof SeedDataSchema>;
export type SeedUser = SeedData["users"][number];
export type SeedRecipe = SeedData["recipes"][number];
export type SeedPost = SeedData["posts"][number];

/** One line naming the first problems, for a log that must stay readable. */
export function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => `${issue.path.join(".") || "(top level)"}: ${issue.message}`);
  const more = error.issues.length > shown.length ? ` (and ${error.issues.length - shown.length} more)` : "";
  return shown.join("; ") + more;
}

export function mergeSeedData(...parts: SeedData[]): SeedData {
  return {
    users: parts.flatMap((part) => part.users),
    recipes: parts.flatMap((part) => part.recipes),
    posts: parts.flatMap((part) => part.posts),
  };
}
