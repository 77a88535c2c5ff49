import { beforeEach, describe, expect, it } from "vitest";

import { REPORT_MESSAGES } from "~/lib/reports";
import { loader as postViewerLoader } from "~/routes/ReciPals.Account.Profile.$uid.Posts.$pid";
import { loader as recipeLoader } from "~/routes/ReciPals.Recipes.$rid";
import { action as reportAction, loader as reportLoader } from "~/routes/ReciPals.Report";
import { loader as shoppingLoader } from "~/routes/ReciPals.ShoppingList";
import * as userRoute from "~/routes/api.users.$id";
import * as reportsRoute from "~/routes/api.reports";
import { db } from "~/server/db/connection.server";
import { saveCook } from "~/server/services/cooks-service.server";
import { addComment, setSaved } from "~/server/services/interactions-service.server";
import { getModerationQueue, moderate, suspend } from "~/server/services/moderation-service.server";
import type { Outcome } from "~/server/services/outcome-service.server";
import { setBlock, setMute } from "~/server/services/people-service.server";
import { addRecipeToList } from "~/server/services/shopping-service.server";

import { call } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { formRequest, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

// What someone who blocks another can still do (docs/rules.md#blocking-and-muting,
// #reports-and-moderation): a block hides the other person both ways, but never at the cost of the
// blocker's own recipes — abusive comments left there before the block stay theirs to see
// (collapsed), delete and report — nor of reporting the person they blocked.

type Person = Awaited<ReturnType<typeof makeUser>> & { cookie: string };

function ok<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`refused ${outcome.status}: ${outcome.message}`);
  return outcome.value;
}

async function person(name: string): Promise<Person> {
  const user = await makeUser({ name });
  return { ...user, cookie: await signedInCookie(user.id) };
}

type RecipePage = Awaited<ReturnType<typeof recipeLoader>>;
const recipePage = async (viewer: Person | null, recipeId: string) => (await recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipeId}`, viewer?.cookie), { rid: recipeId }))) as RecipePage;

let owner: Person; // A: owns the recipe, blocks the harasser
let harasser: Person; // H
let third: Person;
let admin: Person;
let dish: { recipeId: string; postId: string };
let abuse: string;

beforeEach(async () => {
  [owner, harasser, third] = [await person("Ann Owner"), await person("Hal Harasser"), await person("Tess Third")];
  const made = await makeUser({ name: "Ada Admin", role: "ADMIN" });
  admin = { ...made, cookie: await signedInCookie(made.id) };
  const recipe = await makeRecipeWithPost({ userId: owner.id, name: "Owner's stew" });
  dish = { recipeId: recipe.recipeId, postId: recipe.postId! };
  abuse = ok(await addComment({ actor: harasser, postId: dish.postId, text: "Something abusive" })).comment_id;
  ok(await addComment({ actor: third, postId: dish.postId, text: "Lovely stew" }));
});

describe("the owner of a recipe who blocks a commenter", () => {
  it("still sees their comments on the recipe page, collapsed, with Delete comment and Report; others see them as before", async () => {
    ok(await setBlock({ actor: owner, targetId: harasser.id, blocked: true }));
    const page = await recipePage(owner, dish.recipeId);
    const shown = page.comments.find((comment) => comment.comment_id === abuse);
    expect(shown).toMatchObject({ text: "Something abusive", blocked: "viewer", reportHref: `/ReciPals/Report?kind=comment&id=${abuse}` });
    expect(page.deletable).toContain(abuse);
    // The third person's comment is not collapsed, and is reportable too.
    const lovely = page.comments.find((comment) => comment.text === "Lovely stew");
    expect(lovely?.blocked).toBeUndefined();
    expect(lovely?.reportHref).toMatch(/kind=comment/);
    // Anyone else sees the comment as an ordinary one.
    const thirds = await recipePage(third, dish.recipeId);
    expect(thirds.comments.find((comment) => comment.comment_id === abuse)?.blocked).toBeUndefined();
    expect((await recipePage(null, dish.recipeId)).comments.map((comment) => comment.text)).toContain("Something abusive");
  });

  it("sees them in the post viewer too, and one who blocked the owner is told apart", async () => {
    ok(await setBlock({ actor: harasser, targetId: owner.id, blocked: true }));
    const viewer = (await postViewerLoader(routeArgs(getRequest(`/x`, owner.cookie), { uid: owner.id, pid: dish.postId }))) as { comments: { comment_id: string; blocked?: string; reportHref?: string }[]; deletable: string[] };
    expect(viewer.comments.find((comment) => comment.comment_id === abuse)).toMatchObject({ blocked: "author", reportHref: expect.stringContaining(abuse) });
    expect(viewer.deletable).toContain(abuse);
    expect((await recipePage(owner, dish.recipeId)).comments.find((comment) => comment.comment_id === abuse)?.blocked).toBe("author");
  });

  it("does not see the comments of a suspended account, nor of people they only muted", async () => {
    const muted = await person("Moe Muted");
    const remark = ok(await addComment({ actor: muted, postId: dish.postId, text: "Meh" })).comment_id;
    ok(await setMute({ actor: owner, targetId: muted.id, muted: true }));
    expect((await recipePage(owner, dish.recipeId)).comments.map((comment) => comment.comment_id)).not.toContain(remark);
    ok(await setBlock({ actor: owner, targetId: harasser.id, blocked: true }));
    ok(await suspend({ actor: admin, userId: harasser.id, why: "" }));
    expect((await recipePage(owner, dish.recipeId)).comments.map((comment) => comment.comment_id)).not.toContain(abuse);
  });

  it("can delete the comment and report it, and report the person they blocked", async () => {
    ok(await setBlock({ actor: owner, targetId: harasser.id, blocked: true }));
    // Report the person: the page answers (it was a 404), and the report is filed.
    const page = (await reportLoader(routeArgs(getRequest(`/ReciPals/Report?kind=user&id=${harasser.id}`, owner.cookie)))) as { kind: string; label: string };
    expect(page).toMatchObject({ kind: "user", label: harasser.username });
    const sent = await reportAction(routeArgs(formRequest(`/ReciPals/Report?kind=user&id=${harasser.id}`, { reason: "harassment", text: "" }, owner.cookie)));
    expect(sent).toEqual({ sent: true });
    // Report the comment through the API as well.
    const filed = await call(reportsRoute, "POST", "/api/reports", { cookie: owner.cookie, body: { kind: "comment", target_id: abuse, reason: "harassment" } });
    expect(filed.status).toBe(201);
    expect(await db.selectFrom("reports").select(["target_kind", "target_id"]).where("reporter_id", "=", owner.id).orderBy("seq").execute()).toEqual([
      { target_kind: "user", target_id: harasser.id },
      { target_kind: "comment", target_id: abuse },
    ]);
  });

  it("what a block hides and is not theirs stays out of reach: a comment on someone else's recipe by one who blocked them", async () => {
    const elsewhere = await makeRecipeWithPost({ userId: third.id });
    const remark = ok(await addComment({ actor: harasser, postId: elsewhere.postId!, text: "Elsewhere" })).comment_id;
    ok(await setBlock({ actor: harasser, targetId: owner.id, blocked: true }));
    expect((await settle(() => reportLoader(routeArgs(getRequest(`/ReciPals/Report?kind=comment&id=${remark}`, owner.cookie))))) as Response).toMatchObject({ status: 404 });
    expect((await call(reportsRoute, "POST", "/api/reports", { cookie: owner.cookie, body: { kind: "comment", target_id: remark, reason: "spam" } })).status).toBe(404);
    // A suspended person is gone for reports too.
    ok(await suspend({ actor: admin, userId: harasser.id, why: "" }));
    expect((await settle(() => reportLoader(routeArgs(getRequest(`/ReciPals/Report?kind=user&id=${harasser.id}`, third.cookie))))) as Response).toMatchObject({ status: 404 });
    expect(await db.selectFrom("reports").select("id").where("reporter_id", "in", [owner.id, third.id]).execute()).toEqual([]);
  });
});

describe('"I made this" entries in the report queue', () => {
  it("each other person's entry links to its report page; a report takes it to the queue; Remove content takes the entry only", async () => {
    ok(await saveCook({ actor: harasser, recipeId: dish.recipeId, fields: { rating: "1", note: "Vile food, vile cook", servings: "" }, photo: null, mode: "add" }));
    const page = await recipePage(owner, dish.recipeId);
    const entry = page.cooked.entries.find((item) => item.person.id === harasser.id)!;
    expect(entry.reportHref).toBe(`/ReciPals/Report?kind=cook&id=${entry.cook_id}`);
    expect((await recipePage(harasser, dish.recipeId)).cooked.entries.find((item) => item.person.id === harasser.id)?.reportHref).toBeUndefined();

    const form = (await reportLoader(routeArgs(getRequest(entry.reportHref!, owner.cookie)))) as { kind: string; label: string; owner: string };
    expect(form).toMatchObject({ kind: "cook", label: "Vile food, vile cook", owner: harasser.username });
    expect(await reportAction(routeArgs(formRequest(entry.reportHref!, { reason: "harassment", text: "" }, owner.cookie)))).toEqual({ sent: true });

    const queue = ok(await getModerationQueue({ actor: admin }));
    expect(queue.groups.filter((group) => group.kind === "cook").map((group) => [group.targetId, group.target?.label])).toEqual([[entry.cook_id, "Vile food, vile cook"]]);
    ok(await moderate({ actor: admin, kind: "cook", targetId: entry.cook_id, action: "remove", why: "" }));
    expect(await db.selectFrom("cooks").select("id").where("id", "=", entry.cook_id).execute()).toEqual([]);
    expect(await db.selectFrom("recipes").select("id").where("id", "=", dish.recipeId).execute()).toHaveLength(1);
    expect(await db.selectFrom("reports").select("resolution").where("target_id", "=", entry.cook_id).execute()).toEqual([{ resolution: "removed" }]);
  });

  it("one's own entry cannot be reported; an unknown entry is gone", async () => {
    ok(await saveCook({ actor: harasser, recipeId: dish.recipeId, fields: { rating: "4", note: "", servings: "" }, photo: null, mode: "add" }));
    const own = await db.selectFrom("cooks").select("id").where("user_id", "=", harasser.id).executeTakeFirstOrThrow();
    const refused = await call(reportsRoute, "POST", "/api/reports", { cookie: harasser.cookie, body: { kind: "cook", target_id: own.id, reason: "spam" } });
    expect(refused).toMatchObject({ status: 400, body: { message: REPORT_MESSAGES.own } });
    expect((await call(reportsRoute, "POST", "/api/reports", { cookie: owner.cookie, body: { kind: "cook", target_id: "no-such-entry", reason: "spam" } })).status).toBe(404);
  });
});

describe("blocked and suspended creators elsewhere", () => {
  it("the shopping list leaves out recipes by people one blocked, or who blocked one, or who are suspended; an unblock brings them back", async () => {
    const theirs = await makeRecipeWithPost({ userId: harasser.id, name: "Harasser's pie" });
    ok(await addRecipeToList({ actor: third, recipeId: theirs.recipeId }));
    ok(await addRecipeToList({ actor: third, recipeId: dish.recipeId }));
    const list = async () => (await shoppingLoader(routeArgs(getRequest("/ReciPals/ShoppingList", third.cookie)))) as { recipes: { recipe_id: string }[]; itemCount: number };
    expect((await list()).recipes.map((recipe) => recipe.recipe_id)).toEqual([theirs.recipeId, dish.recipeId]);
    ok(await setBlock({ actor: third, targetId: harasser.id, blocked: true }));
    expect(await list()).toMatchObject({ recipes: [{ recipe_id: dish.recipeId }], itemCount: 2 });
    ok(await setBlock({ actor: third, targetId: harasser.id, blocked: false }));
    ok(await setBlock({ actor: harasser, targetId: third.id, blocked: true }));
    expect((await list()).recipes.map((recipe) => recipe.recipe_id)).toEqual([dish.recipeId]);
    ok(await setBlock({ actor: harasser, targetId: third.id, blocked: false }));
    expect((await list()).recipes).toHaveLength(2);
    ok(await suspend({ actor: admin, userId: harasser.id, why: "" }));
    expect((await list()).recipes.map((recipe) => recipe.recipe_id)).toEqual([dish.recipeId]);
    // Still stored, for when they are shown again.
    expect(await db.selectFrom("shopping_recipes").select("recipe_id").where("user_id", "=", third.id).execute()).toHaveLength(2);
  });

  it("GET /api/users/{id} leaves recipes by hidden creators out of the saved list", async () => {
    const theirs = await makeRecipeWithPost({ userId: harasser.id });
    ok(await setSaved({ actor: third, recipeId: theirs.recipeId, saved: true }));
    ok(await setSaved({ actor: third, recipeId: dish.recipeId, saved: true }));
    const saved = async (viewer: Person) => (await call<{ saved_recipes: string[] }>(userRoute, "GET", `/api/users/${third.id}`, { cookie: viewer.cookie, params: { id: third.id } })).body.saved_recipes;
    expect(await saved(owner)).toEqual([theirs.recipeId, dish.recipeId]);
    ok(await setBlock({ actor: harasser, targetId: owner.id, blocked: true }));
    expect(await saved(owner)).toEqual([dish.recipeId]);
    ok(await suspend({ actor: admin, userId: harasser.id, why: "" }));
    expect(await saved(third)).toEqual([dish.recipeId]);
    expect(await saved(admin)).toEqual([theirs.recipeId, dish.recipeId]);
  });
});
