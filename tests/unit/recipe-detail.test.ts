import { beforeAll, describe, expect, it } from "vitest";

import { loader as postLoader } from "~/routes/ReciPals.Account.Profile.$uid.Posts.$pid";
import { action as recipeAction, loader as recipeLoader } from "~/routes/ReciPals.Recipes.$rid";
import { action as saveAction } from "~/routes/ReciPals.Recipes.$rid.Save";
import { loader as savedLoader } from "~/routes/ReciPals.Saved";
import { db } from "~/server/db/connection.server";

import { makeRecipeWithPost } from "../support/factories";
import { dataOf, expectRedirect, formRequest, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

type U = Awaited<ReturnType<typeof makeUser>>;
let chef: U, reader: U;
let recipe: Awaited<ReturnType<typeof makeRecipeWithPost>>;

beforeAll(async () => {
  chef = await makeUser();
  reader = await makeUser();
  recipe = await makeRecipeWithPost({ userId: chef.id, name: "Lemon Tart", tags: ["Sweet", "Baking"] });
});

const loadRecipe = async (rid: string, cookie?: string) =>
  settle(() => recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${rid}`, cookie), { rid })));
const comment = (rid: string, fields: Record<string, string>, cookie?: string) =>
  settle(() => recipeAction(routeArgs(formRequest(`/ReciPals/Recipes/${rid}`, { intent: "comment", ...fields }, cookie), { rid })));
const save = (rid: string, fields: Record<string, string>, cookie?: string) =>
  settle(() => saveAction(routeArgs(formRequest(`/ReciPals/Recipes/${rid}/Save`, fields, cookie), { rid })));

describe("recipe detail", () => {
  it("shows the recipe with its sections, steps, tags and creator", async () => {
    const page = (await loadRecipe(recipe.recipeId)) as Exclude<Awaited<ReturnType<typeof recipeLoader>>, Response>;
    expect(page.recipe).toMatchObject({
      name: "Lemon Tart",
      tags: ["Sweet", "Baking"],
      creator: { id: chef.id, username: chef.username },
      ingredients_sec: [{ title: "Main Ingredients", ingredients: ["Flour (200g)", "Eggs (2)"] }],
      steps: ["Mix.", "Bake."],
      serves: 2,
      total_time: "30min",
    });
    expect(page.signedIn).toBe(false);
    expect(page.canEdit).toBe(false);
  });

  it("offers Edit Recipe to the creator only", async () => {
    const own = (await loadRecipe(recipe.recipeId, await signedInCookie(chef.id))) as { canEdit: boolean };
    const other = (await loadRecipe(recipe.recipeId, await signedInCookie(reader.id))) as { canEdit: boolean };
    expect(own.canEdit).toBe(true);
    expect(other.canEdit).toBe(false);
  });

  it("answers 404 'Recipe not found.' for an unknown id", async () => {
    const result = (await loadRecipe("nope")) as Response;
    expect(result.status).toBe(404);
    expect(await result.text()).toBe("Recipe not found.");
  });

  it("shows 'Unknown User' data (no creator) once the creator is deleted; the recipe stays", async () => {
    const gone = await makeUser();
    const orphan = await makeRecipeWithPost({ userId: gone.id, name: "Orphan Soup" });
    await db.deleteFrom("users").where("id", "=", gone.id).execute();
    const page = (await loadRecipe(orphan.recipeId)) as { recipe: { creator: unknown; user_created: unknown } };
    expect(page.recipe.creator).toBeNull();
    expect(page.recipe.user_created).toBeNull();
  });
});

describe("comments", () => {
  it("sends visitors to Login and writes nothing", async () => {
    expectRedirect(await comment(recipe.recipeId, { text: "hi" }), /^\/ReciPals\/Account\/Login\?redirectTo=/);
    expect(await db.selectFrom("comments").select("id").execute()).toHaveLength(0);
  });

  it("refuses empty, whitespace-only and over-long comments, keeping the text", async () => {
    const cookie = await signedInCookie(reader.id);
    for (const text of ["", "   \n  "]) {
      const { status, data } = dataOf<{ error: string; text: string }>(await comment(recipe.recipeId, { text }, cookie));
      expect(status).toBe(400);
      expect(data.error).toBe("Please write a comment before posting.");
      expect(data.text).toBe(text);
    }
    const long = "x".repeat(1001);
    const { status, data } = dataOf<{ error: string; text: string }>(await comment(recipe.recipeId, { text: long }, cookie));
    expect(status).toBe(400);
    expect(data.error).toBe("Comments can be at most 1,000 characters.");
    expect(data.text).toBe(long);
    expect(await db.selectFrom("comments").select("id").execute()).toHaveLength(0);
  });

  it("appends a trimmed comment as the session user, ignoring a forged user id", async () => {
    const cookie = await signedInCookie(reader.id);
    const response = expectRedirect(
      await comment(recipe.recipeId, { text: "  Lovely!  ", userId: chef.id, user_id: chef.id }, cookie),
      new RegExp(`^/ReciPals/Recipes/${recipe.recipeId}#comment-`),
    );
    const fetched = (await comment(recipe.recipeId, { text: "Second", _fetcher: "1" }, cookie)) as { comment: { text: string } };
    expect(fetched.comment.text).toBe("Second");
    const page = (await loadRecipe(recipe.recipeId)) as { comments: { text: string; author: { id: string } }[] };
    expect(page.comments.map((c) => [c.text, c.author.id])).toEqual([
      ["Lovely!", reader.id],
      ["Second", reader.id],
    ]);
    expect(response.headers.get("Location")).toContain("#comment-");
  });

  it("answers 404 for a missing recipe", async () => {
    const result = (await comment("nope", { text: "hi" }, await signedInCookie(reader.id))) as Response;
    expect(result.status).toBe(404);
  });
});

describe("saved recipes", () => {
  it("requires sign-in for saving and for the Saved page", async () => {
    expectRedirect(await save(recipe.recipeId, { intent: "save" }), /Login/);
    expectRedirect(await settle(() => savedLoader(routeArgs(getRequest("/ReciPals/Saved")))), /Login\?redirectTo=%2FReciPals%2FSaved/);
  });

  it("saves idempotently, lists on the Saved page, and unsaves", async () => {
    const cookie = await signedInCookie(reader.id);
    const empty = (await savedLoader(routeArgs(getRequest("/ReciPals/Saved", cookie)))) as { recipes: unknown[] };
    expect(empty.recipes).toEqual([]);
    expectRedirect(await save(recipe.recipeId, { intent: "save", redirectTo: "/ReciPals/Saved" }, cookie), "/ReciPals/Saved");
    expect(await save(recipe.recipeId, { intent: "save", _fetcher: "1" }, cookie)).toEqual({ saved: true });
    const rows = await db.selectFrom("saved_recipes").select("recipe_id").where("user_id", "=", reader.id).execute();
    expect(rows).toHaveLength(1);
    const list = (await savedLoader(routeArgs(getRequest("/ReciPals/Saved", cookie)))) as { recipes: { recipe_id: string; post_id: string }[] };
    expect(list.recipes).toMatchObject([{ recipe_id: recipe.recipeId, post_id: recipe.postId }]);
    const detail = (await loadRecipe(recipe.recipeId, cookie)) as { saved: boolean };
    expect(detail.saved).toBe(true);
    expect(await save(recipe.recipeId, { intent: "unsave", _fetcher: "1" }, cookie)).toEqual({ saved: false });
    expect(await save(recipe.recipeId, { intent: "unsave", _fetcher: "1" }, cookie)).toEqual({ saved: false });
    expect(await db.selectFrom("saved_recipes").select("recipe_id").where("user_id", "=", reader.id).execute()).toHaveLength(0);
  });

  it("answers 404 for a missing recipe and 400 for an unknown intent", async () => {
    const cookie = await signedInCookie(reader.id);
    expect(dataOf(await save("nope", { intent: "save", _fetcher: "1" }, cookie))).toEqual({ status: 404, data: { error: "Recipe not found." } });
    expect(dataOf(await save(recipe.recipeId, { intent: "steal", _fetcher: "1" }, cookie)).status).toBe(400);
    expect(((await save("nope", { intent: "save" }, cookie)) as Response).status).toBe(404);
  });
});

describe("post viewer", () => {
  it("walks the author's posts newest first with ends disabled, and shows Edit Recipe to the author", async () => {
    const author = await makeUser();
    const posts = [];
    for (const name of ["First", "Second", "Third"]) posts.push(await makeRecipeWithPost({ userId: author.id, name }));
    const [first, second, third] = posts.map((p) => p.postId!);
    const view = async (pid: string, cookie: string) =>
      (await postLoader(routeArgs(getRequest(`/x`, cookie), { uid: author.id, pid }))) as {
        previous: string | null;
        next: string | null;
        isAuthor: boolean;
        post: { title: string };
      };
    const cookie = await signedInCookie(author.id);
    expect(await view(third!, cookie)).toMatchObject({ previous: null, next: second, isAuthor: true, post: { title: "Third" } });
    expect(await view(second!, cookie)).toMatchObject({ previous: third, next: first });
    expect(await view(first!, await signedInCookie(reader.id))).toMatchObject({ previous: second, next: null, isAuthor: false });
  });

  it("answers 404 with the looked-up id and the author's post ids for a missing post", async () => {
    const result = await postLoader(routeArgs(getRequest(`/x`, await signedInCookie(reader.id)), { uid: chef.id, pid: "ghost" }));
    const { status, data } = dataOf<{ postId: string; available: string[] }>(result);
    expect(status).toBe(404);
    expect(data.postId).toBe("ghost");
    expect(data.available).toEqual([recipe.postId]);
  });

  it("requires sign-in", async () => {
    expectRedirect(await settle(() => postLoader(routeArgs(getRequest(`/x`), { uid: chef.id, pid: recipe.postId! }))), /Login/);
  });
});
