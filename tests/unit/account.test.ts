import crypto from "node:crypto";
import v8 from "node:v8";
import vm from "node:vm";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yauzl from "yauzl";

import { action as deleteAction } from "~/routes/ReciPals.Account.Delete";
import { loader as exportLoader } from "~/routes/ReciPals.Account.Export";
import { checkCredentials } from "~/server/auth/sign-in.server";
import { db } from "~/server/db/connection.server";
import { readStoredFile, storedFileExists, urlOf, writeStoredFile } from "~/server/media/storage.server";
import { setFollowing } from "~/server/services/follows-service.server";
import { addComment, setLike, setSaved } from "~/server/services/interactions-service.server";
import { saveCook } from "~/server/services/cooks-service.server";
import { ACCOUNT_MESSAGES } from "~/server/services/account-service.server";
import type { Outcome } from "~/server/services/outcome-service.server";

import { useTempUploads } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { dataOf, expectRedirect, formRequest, getRequest, makeUser, routeArgs, signedInCookie } from "../support/app";

// One's own account (docs/rules.md#own-account): the data export as a real zip, read back with an
// unzip library, and deleting the account with everything in it.

useTempUploads({ beforeAll, afterAll });

function ok<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`refused ${outcome.status}: ${outcome.message}`);
  return outcome.value;
}

/** Every entry of a zip: its path and its bytes. */
function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const entries = new Map<string, Buffer>();
      zip.on("entry", (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("end", () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on("end", () => resolve(entries));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

/** V8's full garbage collection, switched on for this test (no command-line flag needed). */
function collector(): () => void {
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as () => void;
}

/** A photo in the image store, as the pipeline would have stored it. */
async function storedPhoto(): Promise<{ url: string; name: string; bytes: Buffer }> {
  const bytes = crypto.randomBytes(2048);
  const name = `${crypto.createHash("sha256").update(bytes).digest("hex")}.webp`;
  await writeStoredFile(name, bytes);
  return { url: urlOf(name), name, bytes };
}

/** A person with two recipes (one with a stored photo), a comment, a like, a save and follows both ways. */
async function someone() {
  const me = await makeUser();
  const friend = await makeUser();
  const mine = await makeRecipeWithPost({ userId: me.id, name: "My Soup" });
  const other = await makeRecipeWithPost({ userId: me.id, name: "My Bread" });
  const photo = await storedPhoto();
  await db.updateTable("recipes").set({ photo: photo.url }).where("id", "=", mine.recipeId).execute();
  const theirs = await makeRecipeWithPost({ userId: friend.id, name: "Friend's Pie" });
  ok(await addComment({ actor: me, postId: theirs.postId!, text: "Lovely pie" }));
  ok(await setLike({ actor: me, postId: theirs.postId!, liked: true }));
  ok(await setSaved({ actor: me, recipeId: theirs.recipeId, saved: true }));
  ok(await setFollowing({ actor: me, targetId: friend.id, following: true }));
  ok(await setFollowing({ actor: friend, targetId: me.id, following: true }));
  ok(await setLike({ actor: friend, postId: mine.postId!, liked: true }));
  const cookPhoto = await storedPhoto();
  ok(await saveCook({ actor: me, recipeId: theirs.recipeId, fields: { rating: 5, note: "Made it for Sunday" }, photo: { kind: "set", url: cookPhoto.url }, mode: "add" }));
  return { me, friend, mine, other, theirs, photo, cookPhoto, cookie: await signedInCookie(me.id) };
}

describe("Download my data", () => {
  it("is a zip of the profile, recipes as schema.org JSON-LD with their photos, comments, saves, followers and following", async () => {
    const s = await someone();
    const response = await exportLoader(routeArgs(getRequest("/ReciPals/Account/Export", s.cookie)));
    expect(response.headers.get("Content-Type")).toBe("application/zip");
    expect(response.headers.get("Content-Disposition")).toBe(`attachment; filename="recipals-${s.me.username}.zip"`);
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    const entries = await unzip(Buffer.from(await response.arrayBuffer()));
    const read = (path: string) => JSON.parse(entries.get(path)!.toString("utf8"));
    expect([...entries.keys()].sort()).toEqual(
      [
        "comments.json",
        "cooked.json",
        "followers.json",
        "following.json",
        "profile.json",
        `photos/${s.photo.name}`,
        `photos/${s.cookPhoto.name}`,
        `recipes/${s.mine.recipeId}.json`,
        `recipes/${s.other.recipeId}.json`,
        "saved.json",
      ].sort(),
    );
    expect(read("cooked.json")).toEqual([expect.objectContaining({ recipe_id: s.theirs.recipeId, rating: 5, note: "Made it for Sunday", photo: s.cookPhoto.url })]);
    expect(entries.get(`photos/${s.cookPhoto.name}`)).toEqual(s.cookPhoto.bytes);
    expect(read("profile.json")).toMatchObject({ id: s.me.id, username: s.me.username });
    expect(JSON.stringify(read("profile.json"))).not.toMatch(/password|scrypt/i);
    expect(read(`recipes/${s.mine.recipeId}.json`)).toMatchObject({ "@context": "https://schema.org", "@type": "Recipe", name: "My Soup", commentCount: 0 });
    // The friend's like of My Soup is counted as the recipe page counts it.
    expect(read(`recipes/${s.mine.recipeId}.json`).interactionStatistic[0]).toMatchObject({ userInteractionCount: 1 });
    expect(entries.get(`photos/${s.photo.name}`)).toEqual(s.photo.bytes);
    expect(read("comments.json")).toEqual([expect.objectContaining({ post_id: s.theirs.postId, text: "Lovely pie" })]);
    expect(read("saved.json")).toEqual([s.theirs.recipeId]);
    expect(read("followers.json")).toEqual([{ id: s.friend.id, username: s.friend.username }]);
    expect(read("following.json")).toEqual([{ id: s.friend.id, username: s.friend.username }]);
  });

  it("streams a person with 1,000 recipes without holding their photos in memory", async () => {
    const me = await makeUser();
    // 1,000 recipes, the first 60 with a 1 MB photo of their own (60 MB of photos in all).
    const photos = await Promise.all(
      Array.from({ length: 60 }, async () => {
        const bytes = crypto.randomBytes(1024 * 1024);
        const name = `${crypto.createHash("sha256").update(bytes).digest("hex")}.webp`;
        await writeStoredFile(name, bytes);
        return urlOf(name);
      }),
    );
    const top = Number((await db.selectFrom("recipes").select((eb) => eb.fn.max("seq").as("m")).executeTakeFirstOrThrow()).m ?? 0);
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      id: `bulk-${me.id}-${i}`,
      user_created: me.id,
      name: `Bulk recipe ${i}`,
      photo: photos[i] ?? "",
      created_at: new Date().toISOString(),
      seq: top + 1 + i,
    }));
    for (let i = 0; i < rows.length; i += 100) await db.insertInto("recipes").values(rows.slice(i, i + 100)).execute();

    const cookie = await signedInCookie(me.id);
    // Measured after a full collection, so the photos made above (now garbage) do not count.
    const gc = collector();
    gc();
    const before = process.memoryUsage().arrayBuffers;
    const response = await exportLoader(routeArgs(getRequest("/ReciPals/Account/Export", cookie)));
    const reader = response.body!.getReader();
    // Take the first megabyte, then stop reading a moment: what the zip holds now is what it has read ahead.
    let taken = 0;
    const chunks: Uint8Array[] = [];
    while (taken < 1024 * 1024) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      taken += value.byteLength;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    gc();
    const held = process.memoryUsage().arrayBuffers - before;
    expect(held, `bytes held after the first megabyte: ${held}`).toBeLessThan(20 * 1024 * 1024);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const entries = await unzip(Buffer.concat(chunks));
    expect([...entries.keys()].filter((name) => name.startsWith("recipes/"))).toHaveLength(1000);
    expect([...entries.keys()].filter((name) => name.startsWith("photos/"))).toHaveLength(60);
  }, 60_000);

  it("is for the signed-in person only", async () => {
    const response = await exportLoader(routeArgs(getRequest("/ReciPals/Account/Export"))).catch((thrown: unknown) => thrown as Response);
    expect(response.status).toBe(302);
  });
});

describe("Delete my account", () => {
  it("needs the password and the ticked box; nothing changes otherwise", async () => {
    const s = await someone();
    const wrong = dataOf<{ message: string }>(await deleteAction(routeArgs(formRequest("/x", { password: "not it", confirm: "yes" }, s.cookie))));
    expect(wrong).toMatchObject({ status: 400, data: { message: ACCOUNT_MESSAGES.password } });
    const unticked = dataOf<{ message: string }>(await deleteAction(routeArgs(formRequest("/x", { password: s.me.password }, s.cookie))));
    expect(unticked).toMatchObject({ status: 400, data: { message: ACCOUNT_MESSAGES.confirm } });
    expect(await db.selectFrom("users").select("id").where("id", "=", s.me.id).execute()).toHaveLength(1);
    expect(await db.selectFrom("recipes").select("id").where("user_created", "=", s.me.id).execute()).toHaveLength(2);
  });

  it("removes the person with their recipes, posts, photos, comments, likes, saves, follows, notifications and sessions, and signs out", async () => {
    const s = await someone();
    const response = await deleteAction(routeArgs(formRequest("/x", { password: s.me.password, confirm: "yes" }, s.cookie)));
    expectRedirect(response, "/ReciPals/Account/Delete?done=1");
    expect((response as Response).headers.get("Set-Cookie")).toMatch(/Max-Age=0/i);
    for (const [table, column] of [
      ["users", "id"],
      ["recipes", "user_created"],
      ["posts", "created_by"],
      ["comments", "user_id"],
      ["likes", "user_id"],
      ["saved_recipes", "user_id"],
      ["follows", "follower_id"],
      ["follows", "followee_id"],
      ["notifications", "actor_id"],
      ["notifications", "user_id"],
      ["sessions", "user_id"],
    ] as const) {
      expect(await db.selectFrom(table).select(column as never).where(column as never, "=", s.me.id as never).execute(), `${table}.${column}`).toEqual([]);
    }
    // The friend's like of a deleted recipe went with it; the friend and their pie stay.
    expect(await db.selectFrom("recipes").select("id").where("id", "=", s.theirs.recipeId).execute()).toHaveLength(1);
    expect(await storedFileExists(s.photo.name)).toBe(false);
    expect(await readStoredFile(s.photo.name)).toBeNull();
    await expect(checkCredentials({ username: s.me.username, password: s.me.password })).rejects.toMatchObject({ status: 404 });
  });

  it("refuses the last ADMIN", async () => {
    const admins = await db.selectFrom("users").select("id").where("role", "=", "ADMIN").execute();
    // Make this admin the only one for the test, then give the others back their role.
    const admin = await makeUser({ role: "ADMIN" });
    await db.updateTable("users").set({ role: "USER" }).where("id", "in", admins.map((a) => a.id).length > 0 ? admins.map((a) => a.id) : [""]).execute();
    try {
      const refused = dataOf<{ message: string }>(await deleteAction(routeArgs(formRequest("/x", { password: admin.password, confirm: "yes" }, await signedInCookie(admin.id)))));
      expect(refused).toMatchObject({ status: 409, data: { message: ACCOUNT_MESSAGES.lastAdmin } });
      expect(await db.selectFrom("users").select("id").where("id", "=", admin.id).execute()).toHaveLength(1);
    } finally {
      if (admins.length > 0) await db.updateTable("users").set({ role: "ADMIN" }).where("id", "in", admins.map((a) => a.id)).execute();
    }
  });
});
