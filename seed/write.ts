
import { engineOf, type DB } from "../app/server/db/connection.server";
import { hashPassword, randomPassword } from "../app/server/auth/password.server";
import { writeRecipeParts } from "../app/server/queries/recipe-writes.server";
import { nextSeq, nowIso, todayDate } from "../app/server/queries/seq.server";

import type { Progress } from "./progress";
import type { SeedData, SeedPost, SeedRecipe, SeedUser } from "./seed-data";

// Stores normalised seed data. Always called inside the import's transaction (`trx`), so a
// failure anywhere rolls the whole import back. It tolerates rows that are already there
// (the core set before a full import): existing user ids are skipped, and references to
// users that are not in the database are dropped (likes, follows, saves) or left empty
// (authors, commenters), which pages show as 'Unknown User'.

export interface WriteOptions {
  /** Made by `hashSeedPasswords` before the transaction, so scrypt never runs under the write lock. */
  passwordHashes: ReadonlyMap<string, SeedPassword>;
  log: (line: string) => void;
  /** Advanced once per recipe. */
  progress?: Progress;
  /** Told each user actually created, with the password made up for it (if one was). */
  created?: (user: SeedUser, password: SeedPassword) => void;
}

/**
 * Which passwords the seed users get (docs/rules.md#seed-sources): the data's own (published with
 * the project: development and tests only), one chosen for all (SEED_USER_PASSWORD), or a random
 * one each, shown once.
 */
export type SeedUserPasswords = "as-written" | "random" | { password: string };

export interface SeedPassword {
  hash: string;
  /** Set when the password was made up here: the only time it can be shown. */
  generated?: string;
}

/** Salted hashes of the seed users' passwords; plain text never reaches the database. */
export async function hashSeedPasswords(users: SeedUser[], policy: SeedUserPasswords = "as-written"): Promise<Map<string, SeedPassword>> {
  const hashes = new Map<string, SeedPassword>();
  // One at a time: each scrypt call takes 128 MB; there are only a handful of seed users.
  for (const user of users) {
    const chosen = typeof policy === "object" ? policy.password : policy === "as-written" ? user.password : "";
    const password = chosen || randomPassword();
    hashes.set(user._id, { hash: await hashPassword(password), ...(chosen ? {} : { generated: password }) });
  }
  return hashes;
}

export async function writeSeedData(trx: DB, data: SeedData, options: WriteOptions): Promise<void> {
  await writeUsers(trx, data.users, options);
  const userIds = await allIds(trx, "users");
  await writeFollows(trx, data.users, userIds);
  await writeRecipes(trx, data.recipes, userIds, options.progress);
  await writePosts(trx, data, userIds, options.log);
  await writeSavedRecipes(trx, data.users, userIds, await allIds(trx, "recipes"));
}

async function allIds(trx: DB, table: "users" | "recipes"): Promise<Set<string>> {
  const rows = await trx.selectFrom(table).select("id").execute();
  return new Set(rows.map((row) => row.id));
}

async function writeUsers(trx: DB, users: SeedUser[], { passwordHashes, log, created }: WriteOptions): Promise<void> {
  const createdAt = nowIso();
  for (const user of users) {
    const clashes = await trx
      .selectFrom("users")
      .select("id")
      .where((eb) => eb.or([eb("id", "=", user._id), engineOf(trx).equalsIgnoringCase("username", user.username)]))
      .execute();
    if (clashes.some((row) => row.id === user._id)) continue; // already seeded (core set)
    if (clashes.length > 0) {
      log(`Skipped seed user ${user._id}: the username "${user.username}" is already taken.`);
      continue;
    }
    const password = passwordHashes.get(user._id);
    if (!password) throw new Error(`No password hash prepared for seed user ${user._id}`);
    await trx
      .insertInto("users")
      .values({
        id: user._id,
        username: user.username,
        name: user.name,
        password_hash: password.hash,
        role: user.role,
        bio: user.bio,
        profile: user.profile,
        created_at: createdAt,
        seq: nextSeq(trx, "users"),
      })
      .execute();
    if (user.tags.length > 0) {
      await trx
        .insertInto("user_tags")
        .values(user.tags.map((tag, position) => ({ user_id: user._id, position, tag })))
        .execute();
    }
    created?.(user, password);
  }
}

/** Both sides of the relation may be listed (`following` on one user, `followers` on the other). */
async function writeFollows(trx: DB, users: SeedUser[], userIds: Set<string>): Promise<void> {
  const pairs = new Map<string, { follower_id: string; followee_id: string }>();
  for (const user of users) {
    const links = [
      ...user.following.map((followee) => [user._id, followee] as const),
      ...user.followers.map((follower) => [follower, user._id] as const),
    ];
    for (const [follower, followee] of links) {
      if (follower === followee || !userIds.has(follower) || !userIds.has(followee)) continue;
      pairs.set(`${follower}\u0000${followee}`, { follower_id: follower, followee_id: followee });
    }
  }
  if (pairs.size === 0) return;
  const createdAt = nowIso();
  await trx
    .insertInto("follows")
    .values([...pairs.values()].map((pair) => ({ ...pair, created_at: createdAt })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

async function writeRecipes(trx: DB, recipes: SeedRecipe[], userIds: Set<string>, progress?: Progress): Promise<void> {
  for (const recipe of recipes) {
    await trx
      .insertInto("recipes")
      .values({
        id: recipe.recipe_id,
        user_created: recipe.user_created && userIds.has(recipe.user_created) ? recipe.user_created : null,
        name: recipe.name,
        description: recipe.description,
        total_time: recipe.total_time,
        serves: recipe.serves,
        photo: recipe.photo,
        created_at: recipe.created_at,
        seq: nextSeq(trx, "recipes"),
      })
      .execute();
    // The app's one writer of recipe parts: the seed's section ids are kept (a repeated one gets a new id).
    await writeRecipeParts(trx, recipe.recipe_id, {
      tags: recipe.tags,
      sections: recipe.ingredients_sec.map((section, position) => ({ id: section._id ?? `${recipe.recipe_id}I${position + 1}`, title: section.title, ingredients: section.ingredients })),
      steps: recipe.steps,
    });
    progress?.advance();
  }
}

async function writePosts(trx: DB, data: SeedData, userIds: Set<string>, log: (line: string) => void): Promise<void> {
  const recipes = new Map(data.recipes.map((recipe) => [recipe.recipe_id, recipe]));
  // Comment ids in the sample repeat across posts (every post has a `c1`).
  const commentIds = new UniqueIds((await trx.selectFrom("comments").select("id").execute()).map((row) => row.id));
  const orphans: string[] = [];
  for (const post of data.posts) {
    const recipe = recipes.get(post.recipe_id);
    if (!recipe) {
      orphans.push(post.post_id);
      continue;
    }
    await writePost(trx, post, recipe, userIds, commentIds);
  }
  if (orphans.length > 0) {
    log(`Skipped ${orphans.length} seed post(s) whose recipe is not in the seed data: ${orphans.slice(0, 5).join(", ")}.`);
  }
}

async function writePost(trx: DB, post: SeedPost, recipe: SeedRecipe, userIds: Set<string>, commentIds: UniqueIds) {
  // The recipe's post_id wins: the sample lists jd-R1's post as `jd-R1`, while the recipe
  // and its author's post list say `jd-P1` (docs/rules.md#seed-quirks).
  const postId = recipe.post_id ?? post.post_id;
  const author = post.created_by ?? recipe.user_created;
  await trx
    .insertInto("posts")
    .values({
      id: postId,
      recipe_id: recipe.recipe_id,
      created_by: author && userIds.has(author) ? author : null,
      title: post.title ?? recipe.name,
      caption: post.caption,
      photo: post.photo ?? recipe.photo,
      created_at: post.created_at,
      seq: nextSeq(trx, "posts"),
    })
    .execute();

  const likers = [...new Set(post.likes)].filter((userId) => userIds.has(userId));
  if (likers.length > 0) {
    const createdAt = nowIso();
    await trx
      .insertInto("likes")
      .values(likers.map((userId) => ({ post_id: postId, user_id: userId, created_at: createdAt })))
      .execute();
  }

  for (const [index, comment] of post.comments.entries()) {
    await trx
      .insertInto("comments")
      .values({
        id: commentIds.claim(`${postId}-${comment.comment_id ?? `c${index + 1}`}`),
        post_id: postId,
        user_id: comment.user_id && userIds.has(comment.user_id) ? comment.user_id : null,
        text: comment.text,
        created_at: comment.created_at ?? post.created_at ?? todayDate(),
        seq: nextSeq(trx, "comments"),
      })
      .execute();
  }
}

async function writeSavedRecipes(trx: DB, users: SeedUser[], userIds: Set<string>, recipeIds: Set<string>) {
  const createdAt = nowIso();
  for (const user of users) {
    if (!userIds.has(user._id)) continue;
    for (const recipeId of new Set(user.saved_recipes)) {
      if (!recipeIds.has(recipeId)) continue;
      await trx
        .insertInto("saved_recipes")
        .values({ user_id: user._id, recipe_id: recipeId, created_at: createdAt, seq: nextSeq(trx, "saved_recipes") })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  }
}

/** Hands out ids that are not yet taken: the wanted one, else `wanted-2`, `wanted-3`, ... */
class UniqueIds {
  private readonly taken: Set<string>;

  constructor(existing: Iterable<string>) {
    this.taken = new Set(existing);
  }

  claim(wanted: string): string {
    let id = wanted;
    for (let n = 2; this.taken.has(id); n++) id = `${wanted}-${n}`;
    this.taken.add(id);
    return id;
  }
}
