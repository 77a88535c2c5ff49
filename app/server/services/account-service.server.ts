import { Readable } from "node:stream";

import { ZipFile } from "yazl";

import { recipeJsonLd } from "~/lib/structured-data";
import { paths } from "~/lib/paths";

import { beginSignInAttempt, forgetSignInAttempt, LimitReachedError } from "../auth/limits.server";
import { CacheScope, changing } from "../cache/scopes.server";
import { db, engineOf, type DB } from "../db/connection.server";
import { readStoredFile, storedNameOf } from "../media/storage.server";
import { deleteImageIfUnreferenced } from "../media/uploads.server";
import { deleteUserRow } from "../queries/admin.server";
import { countComments } from "../queries/comments.server";
import { accountDeletionNotice } from "../federation/remote-actions.server";
import { countLikes } from "../queries/likes.server";
import { readRecipesFull } from "../queries/recipes.server";
import { forgetPersonInModeration } from "../queries/reports.server";
import { deleteRecipe as deleteRecipeRows } from "../queries/recipe-writes.server";
import { getUserProfile, isCurrentPassword, isLastAdmin } from "../queries/users.server";
import { emailStateOf } from "./account-mail-service.server";
import { done, refusal, refusing, RefusedError, type Actor, type Outcome } from "./outcome-service.server";

// One's own account (docs/rules.md#own-account): everything one made, as a zip to take away, and
// deleting the account with all of it.

export const ACCOUNT_MESSAGES = {
  password: "That is not your password. Nothing was deleted.",
  confirm: "Please tick the box to confirm that you want your account and everything in it deleted.",
  lastAdmin: "You are the last administrator: make someone else an administrator first. Nothing was deleted.",
  missing: "User not found.",
} as const;

/** Rows per read while the export streams: what it holds in memory at once besides one photo. */
const BATCH = 50;

const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);

/** A JSON array written batch by batch: `read(after, limit)` gives the next rows after the last key. */
function jsonArrayStream<Row>(read: (after: number, limit: number) => Promise<Row[]>, keyOf: (row: Row) => number, shape: (row: Row) => unknown): Readable {
  return Readable.from(
    (async function* () {
      let after = Number.MIN_SAFE_INTEGER;
      let first = true;
      yield "[";
      for (;;) {
        const rows = await read(after, BATCH);
        for (const row of rows) {
          yield `${first ? "\n" : ",\n"}${JSON.stringify(shape(row))}`;
          first = false;
        }
        if (rows.length < BATCH) break;
        after = keyOf(rows.at(-1)!);
      }
      yield first ? "]\n" : "\n]\n";
    })(),
  );
}

/** One recipe as the recipe page publishes it (schema.org Recipe JSON-LD), with its post's counts. */
async function recipeEntry(id: string, { origin, username }: { origin: string; username: string }): Promise<Buffer> {
  const [recipe] = await readRecipesFull({ ids: [id] });
  if (!recipe) return json(null);
  const [likes, comments] = recipe.post_id ? await Promise.all([countLikes(recipe.post_id), countComments(recipe.post_id)]) : [0, 0];
  return json(recipeJsonLd({ ...recipe, creator: { username } }, { origin, url: `${origin}${paths.recipe(id)}`, likes, comments }));
}

/**
 * The person's data as a zip, streamed: profile.json, recipes/<id>.json (schema.org Recipe JSON-LD),
 * photos/<file> (their recipes', their "I made this" entries' and their own picture), comments.json,
 * saved.json, cooked.json (their "I made this" entries), followers.json, following.json. Each entry is read only when the zip reaches it, so a person with 1,000 recipes
 * is never held in memory: one recipe or one photo at a time.
 */
export async function exportAccount({ actor, origin }: { actor: Actor; origin: string }): Promise<Outcome<{ stream: Readable; filename: string }>> {
  const profile = await getUserProfile(actor.id);
  if (!profile) return refusal(404, ACCOUNT_MESSAGES.missing);
  const zip = new ZipFile();
  const { email, emailConfirmed } = await emailStateOf(profile.id);
  zip.addBuffer(json({ id: profile.id, username: profile.username, name: profile.name, role: profile.role, bio: profile.bio, tags: profile.tags, picture: profile.profile, email, emailConfirmed }), "profile.json");

  const recipes = await db.selectFrom("recipes").select(["id", "photo"]).where("user_created", "=", actor.id).orderBy("seq").execute();
  const photos = new Set<string>();
  for (const { id, photo } of recipes) {
    zip.addReadStreamLazy(`recipes/${id}.json`, (done) => {
      recipeEntry(id, { origin, username: profile.username })
        .then((bytes) => done(null, Readable.from([bytes])))
        .catch((error: Error) => done(error, Readable.from([])));
    });
    const name = storedNameOf(photo);
    if (name) photos.add(name);
  }
  const picture = storedNameOf(profile.profile);
  if (picture) photos.add(picture);
  // The photos of their "I made this" entries too.
  for (const { photo } of await db.selectFrom("cooks").select("photo").where("user_id", "=", actor.id).where("photo", "is not", null).execute()) {
    const name = storedNameOf(photo);
    if (name) photos.add(name);
  }
  for (const name of photos) {
    zip.addReadStreamLazy(`photos/${name}`, (done) => {
      readStoredFile(name)
        .then((bytes) => done(null, Readable.from(bytes ? [bytes] : [])))
        .catch((error: Error) => done(error, Readable.from([])));
    });
  }

  const lazy = (path: string, stream: () => Readable) => zip.addReadStreamLazy(path, (done) => done(null, stream()));
  lazy("comments.json", () =>
    jsonArrayStream(
      (after, limit) =>
        db.selectFrom("comments").select(["seq", "id", "post_id", "text", "created_at"]).where("user_id", "=", actor.id).where("seq", ">", after).orderBy("seq").limit(limit).execute(),
      (row) => row.seq,
      (row) => ({ comment_id: row.id, post_id: row.post_id, text: row.text, created_at: row.created_at }),
    ),
  );
  lazy("saved.json", () =>
    jsonArrayStream(
      (after, limit) => db.selectFrom("saved_recipes").select(["seq", "recipe_id"]).where("user_id", "=", actor.id).where("seq", ">", after).orderBy("seq").limit(limit).execute(),
      (row) => row.seq,
      (row) => row.recipe_id,
    ),
  );
  lazy("cooked.json", () =>
    jsonArrayStream(
      (after, limit) =>
        db
          .selectFrom("cooks")
          .select(["seq", "recipe_id", "rating", "note", "servings", "photo", "created_at", "updated_at"])
          .where("user_id", "=", actor.id)
          .where("seq", ">", after)
          .orderBy("seq")
          .limit(limit)
          .execute(),
      (row) => row.seq,
      ({ seq: _seq, ...entry }) => entry,
    ),
  );
  const people = (column: "follower_id" | "followee_id", other: "follower_id" | "followee_id") => () =>
    jsonArrayStream(
      (after, limit) =>
        db
          .selectFrom("follows as f")
          .innerJoin("users as u", "u.id", `f.${other}`)
          .select(["u.seq", "u.id", "u.username"])
          .where(`f.${column}`, "=", actor.id)
          .where("u.seq", ">", after)
          .orderBy("u.seq")
          .limit(limit)
          .execute(),
      (row) => row.seq,
      (row) => ({ id: row.id, username: row.username }),
    );
  lazy("followers.json", people("followee_id", "follower_id"));
  lazy("following.json", people("follower_id", "followee_id"));
  zip.end();
  return done({ stream: zip.outputStream as Readable, filename: `recipals-${profile.username}.zip` });
}

/**
 * The account's row itself, in the caller's transaction: one's own deletion and an ADMIN's share it.
 * What goes with the row (their "I made this" entries, their pending uploads, their sessions,
 * likes, saves, follows…) goes by the schema; before that, the moderation log and the reports keep
 * their rows but none of the person's words. Answers the stored photos only they used (their
 * entries' photos, the photos their unsaved forms carried): the caller removes them from the image
 * store once the transaction has landed, at once rather than at the next sweep.
 */
export async function deleteAccountRow(userId: string, trx: DB): Promise<string[]> {
  const cooks = await trx.selectFrom("cooks").select("photo").where("user_id", "=", userId).where("photo", "is not", null).execute();
  const pending = await trx.selectFrom("pending_uploads").select("url").where("user_id", "=", userId).execute();
  await forgetPersonInModeration(userId, trx);
  await deleteUserRow(userId, trx);
  return [...cooks.map((row) => row.photo ?? ""), ...pending.map((row) => row.url)].filter(Boolean);
}

/**
 * Deletes the actor's own account with everything in it (docs/rules.md#own-account): their recipes
 * with their posts and photos, their comments, likes, saves, follows, notifications, shopping list
 * and sessions. Needs their password (a wrong one counts as a failed sign-in, under the same limits)
 * and a ticked confirmation; refused for the last ADMIN.
 */
export async function deleteOwnAccount({
  actor,
  password,
  confirm,
  address = null,
}: {
  actor: Actor;
  password: unknown;
  confirm: unknown;
  /** The client's address, for the sign-in limits. */
  address?: string | null;
}): Promise<Outcome> {
  if (confirm !== "yes") return refusal(400, ACCOUNT_MESSAGES.confirm, { errors: { confirm: ACCOUNT_MESSAGES.confirm } });
  const wrongPassword = refusal(400, ACCOUNT_MESSAGES.password, { errors: { password: ACCOUNT_MESSAGES.password } });
  if (typeof password !== "string" || password === "") return wrongPassword;
  const profile = await getUserProfile(actor.id);
  if (!profile) return refusal(404, ACCOUNT_MESSAGES.missing);
  // The password is checked as a sign-in is (docs/rules.md#sign-in-throttling): counted before the
  // slow hash, so guesses sent together all count; a wrong one stays a failed sign-in for the
  // account and the address; over the limit even the right one waits.
  let attempt: number;
  try {
    attempt = await beginSignInAttempt({ username: profile.username, address });
  } catch (error) {
    if (!(error instanceof LimitReachedError)) throw error;
    return refusal(429, error.message, { errors: { password: error.message }, retryAfterSeconds: error.retryAfterSeconds });
  }
  if (!(await isCurrentPassword(actor.id, password))) return wrongPassword;
  await forgetSignInAttempt(attempt);
  const photos: string[] = [profile.profile];
  // Servers elsewhere that know them hear the actor is gone, once it is (docs/federation.md).
  const federated = await accountDeletionNotice(actor.id);
  return refusing(async () => {
    await changing([CacheScope.everything], async (trx) => {
      if (await isLastAdmin(actor.id, trx)) throw new RefusedError(refusal(409, ACCOUNT_MESSAGES.lastAdmin));
      // What they are making in another tab right now lands first (and goes with the rest) or fails.
      await engineOf(trx).writers.forUpdate(trx.selectFrom("users").select("id").where("id", "=", actor.id), { deleting: true }).execute();
      const recipes = await trx.selectFrom("recipes as r").leftJoin("posts as p", "p.recipe_id", "r.id").select(["r.id", "p.photo"]).where("r.user_created", "=", actor.id).execute();
      for (const recipe of recipes) {
        const deleted = await deleteRecipeRows({ recipeId: recipe.id }, trx);
        photos.push(deleted?.photo ?? "", recipe.photo ?? "");
      }
      // Their comments and posts on anyone's recipes go too (the schema would only unname them).
      await trx.deleteFrom("notifications").where("actor_id", "=", actor.id).execute();
      await trx.deleteFrom("comments").where("user_id", "=", actor.id).execute();
      await trx.deleteFrom("posts").where("created_by", "=", actor.id).execute();
      // The rest (likes, saves, follows, blocks, mutes, notifications to them, shopping list, sessions) cascades.
      photos.push(...(await deleteAccountRow(actor.id, trx)));
    });
    await federated?.();
    for (const url of new Set(photos)) if (url) await deleteImageIfUnreferenced(url);
    return done();
  });
}
