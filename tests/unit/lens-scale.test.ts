import crypto from "node:crypto";

import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";

import { loader as postViewerLoader } from "~/routes/ReciPals.Account.Profile.$uid.Posts.$pid";
import { loader as profileLoader } from "~/routes/ReciPals.Account.Profile.$uid";
import { loader as homeLoader } from "~/routes/ReciPals.Home";
import { loader as notificationsLoader } from "~/routes/ReciPals.Notifications";
import { loader as recipeLoader } from "~/routes/ReciPals.Recipes.$rid";
import { loader as savedLoader } from "~/routes/ReciPals.Saved";
import { loader as searchLoader } from "~/routes/ReciPals.Search";
import { loader as shoppingLoader } from "~/routes/ReciPals.ShoppingList";
import * as postsRoute from "~/routes/api.posts";
import * as userRoute from "~/routes/api.users.$id";
import * as usersRoute from "~/routes/api.users";
import { db, engineOf } from "~/server/db/connection.server";
import { nowIso } from "~/server/queries/seq.server";
import { isHidden, LENS_INLINE_MAX, readLens, shownPerson } from "~/server/queries/visibility.server";
import { setBlock } from "~/server/services/people-service.server";

import { call } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { getRequest, makeUser, routeArgs, signedInCookie } from "../support/app";

// A lens that has grown (docs/rules.md#blocking-and-muting): 5,000 throwaway accounts blocking one
// person and 5,000 suspended spammers. No page may fail (a query past SQLite's or PostgreSQL's
// parameter limit) or slow down by reading them all: the lens never holds more than a few hundred
// ids, and the queries ask the tables about the rows they read, through their keys.

const WAVE = 5_000;

let victim: { id: string; cookie: string };
let adminCookie: string;
let blockerRecipe: string;
let spammerRecipe: string;
let ownRecipe: { recipeId: string; postId: string };

async function insertPeople(count: number, suspended: boolean): Promise<string[]> {
  const now = nowIso();
  const top = Number((await db.selectFrom("users").select((eb) => eb.fn.max("seq").as("top")).executeTakeFirstOrThrow()).top ?? 0);
  const rows = Array.from({ length: count }, (_, i) => ({
    id: crypto.randomUUID(),
    username: `wave_${suspended ? "s" : "b"}_${i}_${crypto.randomUUID().slice(0, 6)}`,
    name: "Wave",
    password_hash: "!",
    role: "USER" as const,
    bio: "",
    profile: "/images/profile.png",
    created_at: now,
    seq: top + 1 + i,
    suspended_at: suspended ? now : null,
  }));
  for (let at = 0; at < rows.length; at += 500) await db.insertInto("users").values(rows.slice(at, at + 500)).execute();
  return rows.map((row) => row.id);
}

beforeAll(async () => {
  const person = await makeUser({ name: "Vic Victim" });
  victim = { id: person.id, cookie: await signedInCookie(person.id) };
  const admin = await makeUser({ role: "ADMIN" });
  adminCookie = await signedInCookie(admin.id);
  const blockers = await insertPeople(WAVE, false);
  for (let at = 0; at < blockers.length; at += 500) {
    await db
      .insertInto("blocks")
      .values(blockers.slice(at, at + 500).map((id) => ({ blocker_id: id, blocked_id: person.id, created_at: nowIso() })))
      .execute();
  }
  const spammers = await insertPeople(WAVE, true);
  blockerRecipe = (await makeRecipeWithPost({ userId: blockers[17]!, name: "Wavestew by a blocker" })).recipeId;
  spammerRecipe = (await makeRecipeWithPost({ userId: spammers[17]!, name: "Wavestew by a spammer" })).recipeId;
  const made = await makeRecipeWithPost({ userId: person.id, name: "Wavestew of my own" });
  ownRecipe = { recipeId: made.recipeId, postId: made.postId! };
}, 120_000);

describe("a lens of 5,000 blocks and 5,000 suspended accounts", () => {
  it("is read without its long parts, and written into queries with a handful of parameters", async () => {
    for (const lens of [await readLens(victim.id), await readLens(null)]) {
      for (const list of [lens.hidden, lens.quiet]) {
        expect(list.length).toBeLessThanOrEqual(3 * LENS_INLINE_MAX);
        expect(shownPerson("p.created_by", list).compile(db).parameters.length).toBeLessThanOrEqual(10);
      }
    }
    // Asked about one person, it still knows them all.
    const lens = await readLens(victim.id);
    const [aBlocker] = await db.selectFrom("blocks").select("blocker_id").where("blocked_id", "=", victim.id).limit(1).execute();
    expect(await isHidden(lens, aBlocker!.blocker_id)).toBe(true);
    const [aSpammer] = await db.selectFrom("users").select("id").where("suspended_at", "is not", null).limit(1).execute();
    expect(await isHidden(lens, aSpammer!.id)).toBe(true);
    expect(await isHidden(lens, crypto.randomUUID())).toBe(false);
    expect(await isHidden(await readLens(null, { admin: true }), aSpammer!.id)).toBe(false);
  });

  it("every page answers, and hides what it must, for the blocked person, a visitor and an admin", async () => {
    const as = (cookie?: string) => (path: string, params: Record<string, string> = {}) => routeArgs(getRequest(path, cookie), params);
    const victimAt = as(victim.cookie);
    const names = (items: { name?: string; title?: string }[]) => items.map((item) => item.name ?? item.title);

    const home = (await homeLoader(victimAt("/ReciPals/Home"))) as { posts: { recipe_id: string }[] };
    expect(home.posts.map((post) => post.recipe_id)).not.toContain(blockerRecipe);
    type Found = { recipes: { items: { name: string }[] } };
    const found = (await searchLoader(victimAt("/ReciPals/Search?q=Wavestew"))) as Found;
    expect(names(found.recipes.items)).toEqual(["Wavestew of my own"]);
    const visitorFound = (await searchLoader(as()("/ReciPals/Search?q=Wavestew"))) as Found;
    expect(names(visitorFound.recipes.items).sort()).toEqual(["Wavestew by a blocker", "Wavestew of my own"]);
    const adminFound = (await searchLoader(as(adminCookie)("/ReciPals/Search?q=Wavestew"))) as Found;
    expect(names(adminFound.recipes.items)).toHaveLength(3);
    // Browsing without words walks the shuffle, skipping what the lens hides.
    expect((await searchLoader(victimAt("/ReciPals/Search"))) as object).toBeTruthy();

    await expect(recipeLoader(victimAt(`/x`, { rid: blockerRecipe }))).rejects.toMatchObject({ status: 404 });
    await expect(recipeLoader(as()(`/x`, { rid: spammerRecipe }))).rejects.toMatchObject({ status: 404 });
    expect(await recipeLoader(as(adminCookie)(`/x`, { rid: spammerRecipe }))).toBeTruthy();
    expect(await recipeLoader(victimAt(`/x`, { rid: ownRecipe.recipeId }))).toBeTruthy();
    expect(await profileLoader(victimAt(`/x`, { uid: victim.id }))).toBeTruthy();
    expect(await postViewerLoader(victimAt(`/x`, { uid: victim.id, pid: ownRecipe.postId }))).toBeTruthy();
    expect(await savedLoader(victimAt("/ReciPals/Saved"))).toBeTruthy();
    expect(await shoppingLoader(victimAt("/ReciPals/ShoppingList"))).toBeTruthy();
    expect(await notificationsLoader(victimAt("/ReciPals/Notifications"))).toBeTruthy();
    // The API's lists, and an entity, stream through the same filters.
    const users = await call<{ _id: string }[]>(usersRoute, "GET", "/api/users", { cookie: victim.cookie });
    expect(users.status).toBe(200);
    expect(users.body.length).toBeLessThan(100);
    expect((await call(postsRoute, "GET", "/api/posts", { cookie: victim.cookie })).status).toBe(200);
    expect((await call(userRoute, "GET", `/api/users/${victim.id}`, { cookie: victim.cookie, params: { id: victim.id } })).status).toBe(200);
    // Blocking someone else, one more block, still works.
    const other = await makeUser();
    expect(await setBlock({ actor: { id: victim.id, role: "USER" } as never, targetId: other.id, blocked: true })).toMatchObject({ ok: true });
  });

  it.skipIf(engineOf(db).name !== "sqlite")("the feed's query walks indexes: no scan of blocks, mutes or users", async () => {
    const lens = await readLens(victim.id);
    const query = db.selectFrom("posts as p").select("p.id").where(shownPerson("p.created_by", lens.quiet)).orderBy("p.seq", "desc").limit(12).compile();
    // The query with its parameters written in, as SQLite plans it.
    let at = 0;
    const literal = query.sql.replace(/\?/g, () => {
      const value = query.parameters[at++];
      return typeof value === "number" ? String(value) : `'${String(value).replace(/'/g, "''")}'`;
    });
    const plan = (await sql.raw<{ detail: string }>(`explain query plan ${literal}`).execute(db)).rows.map((row) => row.detail);
    expect(plan.join("\n")).toMatch(/lens_b/);
    expect(plan.filter((detail) => /\bSCAN (lens_|blocks|mutes|users)/.test(detail))).toEqual([]);
  });
});
