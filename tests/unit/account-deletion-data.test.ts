import crypto from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { db } from "~/server/db/connection.server";
import { storedFileExists, urlOf, writeStoredFile } from "~/server/media/storage.server";
import { rememberPendingUpload } from "~/server/media/uploads.server";
import { deleteOwnAccount } from "~/server/services/account-service.server";
import { removeCook, saveCook } from "~/server/services/cooks-service.server";
import { addComment } from "~/server/services/interactions-service.server";
import { fileReport, moderate, suspend, unsuspend } from "~/server/services/moderation-service.server";
import type { Outcome } from "~/server/services/outcome-service.server";
import { deleteUser } from "~/server/services/users-service.server";

import { useTempUploads } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { makeUser } from "../support/app";

// What a deleted account leaves behind (docs/rules.md#own-account, docs/rules.md#deleting-a-user,
// docs/rules.md#reports-and-moderation), for one's own deletion and an ADMIN's alike: the photos of
// their "I made this" entries leave the image store at once; the moderation log keeps its rows
// (who acted, what, when) but none of their words; reports about them or their content keep their
// rows but none of their words either.

useTempUploads({ beforeAll, afterAll });

function ok<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`refused ${outcome.status}: ${outcome.message}`);
  return outcome.value;
}

/** A photo in the image store, as the pipeline would have stored it. */
async function storedPhoto(): Promise<{ url: string; name: string }> {
  const bytes = crypto.randomBytes(2048);
  const name = `${crypto.createHash("sha256").update(bytes).digest("hex")}.webp`;
  await writeStoredFile(name, bytes);
  return { url: urlOf(name), name };
}

/**
 * Someone with a recipe, a comment, two "I made this" entries (one with a photo, one an ADMIN
 * removed) and a photo chosen in a form they never saved; reported (the reports quoting them),
 * their reports dismissed, suspended and let back, all written to the moderation log.
 */
async function scene() {
  const mark = crypto.randomBytes(4).toString("hex");
  const gone = await makeUser({ name: `Gone Person ${mark}` });
  const friend = await makeUser();
  const reporter = await makeUser();
  const admin = await makeUser({ role: "ADMIN" });
  const words = {
    recipe: `Secret stew ${mark}`,
    comment: `my own comment ${mark}`,
    note: `my cooking note ${mark}`,
    removedNote: `my removed note ${mark}`,
  };
  const own = await makeRecipeWithPost({ userId: gone.id, name: words.recipe });
  const pie = await makeRecipeWithPost({ userId: friend.id });
  const cake = await makeRecipeWithPost({ userId: friend.id });
  const comment = ok(await addComment({ actor: gone, postId: pie.postId!, text: words.comment }));
  const cookPhoto = await storedPhoto();
  ok(await saveCook({ actor: gone, recipeId: pie.recipeId, fields: { rating: 4, note: words.note }, photo: { kind: "set", url: cookPhoto.url }, mode: "add" }));
  ok(await saveCook({ actor: gone, recipeId: cake.recipeId, fields: { rating: 1, note: words.removedNote }, photo: null, mode: "add" }));
  ok(await removeCook({ actor: admin, recipeId: cake.recipeId, userId: gone.id }));
  const pending = await storedPhoto();
  await rememberPendingUpload(gone.id, pending.url);

  ok(await fileReport({ actor: reporter, kind: "comment", targetId: comment.comment_id, reason: "harassment", text: `${gone.username} wrote "${words.comment}"` }));
  ok(await fileReport({ actor: reporter, kind: "post", targetId: own.postId!, reason: "spam", text: `"${words.recipe}" is spam` }));
  ok(await moderate({ actor: admin, kind: "comment", targetId: comment.comment_id, action: "dismiss", why: `"${words.comment}" is rude but allowed` }));
  ok(await moderate({ actor: admin, kind: "post", targetId: own.postId!, action: "dismiss", why: `${gone.username}'s stew is fine` }));
  ok(await fileReport({ actor: reporter, kind: "user", targetId: gone.id, reason: "other", text: `@${gone.username} again` }));
  ok(await suspend({ actor: admin, userId: gone.id, why: `${gone.username} kept at it`, about: { kind: "user", targetId: gone.id } }));
  ok(await unsuspend({ actor: admin, userId: gone.id, why: `@${gone.username} apologised` }));
  // Open again, as the deletion finds them.
  ok(await fileReport({ actor: reporter, kind: "comment", targetId: comment.comment_id, reason: "spam", text: `still "${words.comment}"` }));
  ok(await fileReport({ actor: reporter, kind: "user", targetId: gone.id, reason: "spam", text: `${gone.username} is back` }));

  const logIds = (await db.selectFrom("moderation_log").select("id").where("target_user_id", "=", gone.id).execute()).map((row) => row.id);
  const reportIds = (await db.selectFrom("reports").select("id").where("reporter_id", "=", reporter.id).execute()).map((row) => row.id);
  return { gone, admin, reporter, words, cookPhoto, pending, logIds, reportIds, theirWords: [gone.username, gone.name, ...Object.values(words)] };
}

type Scene = Awaited<ReturnType<typeof scene>>;

const DELETIONS: Array<[string, (s: Scene) => Promise<Outcome>]> = [
  ["deleting one's own account", (s) => deleteOwnAccount({ actor: { id: s.gone.id, role: s.gone.role }, password: s.gone.password, confirm: "yes" })],
  ["an ADMIN deleting the user", (s) => deleteUser({ actor: { id: s.admin.id, role: s.admin.role }, userId: s.gone.id })],
];

describe.each(DELETIONS)("%s", (_, deleteAccount) => {
  it("removes the photos of their \"I made this\" entries (and their unsaved form's photo) from the image store at once", async () => {
    const s = await scene();
    expect(await storedFileExists(s.cookPhoto.name)).toBe(true);
    ok(await deleteAccount(s));
    expect(await db.selectFrom("cooks").select("id").where("user_id", "=", s.gone.id).execute()).toEqual([]);
    expect(await storedFileExists(s.cookPhoto.name)).toBe(false);
    expect(await storedFileExists(s.pending.name)).toBe(false);
  });

  it("keeps the moderation log's rows about them (who acted, what, when) without their words", async () => {
    const s = await scene();
    expect(s.logIds.length).toBeGreaterThanOrEqual(5);
    const before = await db.selectFrom("moderation_log").select(["id", "moderator_id", "action", "target_kind", "created_at"]).where("id", "in", s.logIds).orderBy("seq").execute();
    ok(await deleteAccount(s));
    const after = await db.selectFrom("moderation_log").selectAll().where("id", "in", s.logIds).orderBy("seq").execute();
    expect(after.map(({ id, moderator_id, action, target_kind, created_at }) => ({ id, moderator_id, action, target_kind, created_at }))).toEqual(before);
    for (const row of after) expect(row).toMatchObject({ moderator_id: s.admin.id, target_user_id: null, summary: "", why: "" });
    const everything = JSON.stringify(await db.selectFrom("moderation_log").selectAll().execute());
    for (const word of s.theirWords) expect(everything, word).not.toContain(word);
  });

  it("keeps the reports about them and their content without their words", async () => {
    const s = await scene();
    ok(await deleteAccount(s));
    const kept = await db.selectFrom("reports").selectAll().where("id", "in", s.reportIds).execute();
    expect(kept).toHaveLength(s.reportIds.length);
    for (const row of kept) expect(row.text).toBe("");
    const everything = JSON.stringify(await db.selectFrom("reports").selectAll().execute());
    for (const word of s.theirWords) expect(everything, word).not.toContain(word);
  });
});

describe("an ADMIN's account deleted", () => {
  it("the log keeps what they did, without their reasons; the other person's summary stays", async () => {
    const mark = crypto.randomBytes(4).toString("hex");
    const moderator = await makeUser({ role: "ADMIN" });
    const other = await makeUser({ role: "ADMIN" });
    const author = await makeUser();
    const reporter = await makeUser();
    const recipe = await makeRecipeWithPost({ userId: author.id, name: `Reported pie ${mark}` });
    ok(await fileReport({ actor: reporter, kind: "post", targetId: recipe.postId!, reason: "spam", text: "" }));
    ok(await moderate({ actor: moderator, kind: "post", targetId: recipe.postId!, action: "dismiss", why: `my own reason ${mark}` }));
    const entry = await db.selectFrom("moderation_log").select("id").where("target_id", "=", recipe.postId!).executeTakeFirstOrThrow();
    ok(await deleteUser({ actor: { id: other.id, role: other.role }, userId: moderator.id }));
    const row = await db.selectFrom("moderation_log").selectAll().where("id", "=", entry.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ action: "dismiss", target_kind: "post", target_id: recipe.postId, target_user_id: author.id, summary: `Reported pie ${mark}`, why: "" });
    expect(JSON.stringify(await db.selectFrom("moderation_log").selectAll().execute())).not.toContain(moderator.username);
  });
});
