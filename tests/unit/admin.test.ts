import { beforeAll, describe, expect, it } from "vitest";

import { loader as adminLoader } from "~/routes/ReciPals.Account.Admin";
import { loader as adminIndexLoader } from "~/routes/ReciPals.Account.Admin._index";
import { action as recipesPostAction, loader as recipePostLoader } from "~/routes/ReciPals.Account.Admin.Recipes.$rid.Post";
import { action as recipeTabAction, loader as recipeTabLoader } from "~/routes/ReciPals.Account.Admin.Recipes.$rid._index";
import { action as recipeAction, loader as recipeLoader } from "~/routes/ReciPals.Account.Admin.Recipes.$rid";
import { loader as recipesLoader } from "~/routes/ReciPals.Account.Admin.Recipes";
import { action as userAction, loader as userLoader } from "~/routes/ReciPals.Account.Admin.Users.$uid";
import { action as usersAction, loader as usersLoader } from "~/routes/ReciPals.Account.Admin.Users";
import { db } from "~/server/db/connection.server";
import { verifyLogin } from "~/server/queries/users.server";

import { makeRecipeWithPost } from "../support/factories";
import { dataOf, expectRedirect, formRequest, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

type U = Awaited<ReturnType<typeof makeUser>>;
let admin: U, user: U, adminCookie: string, userCookie: string;
let recipe: Awaited<ReturnType<typeof makeRecipeWithPost>>;

beforeAll(async () => {
  admin = await makeUser({ role: "ADMIN", name: "Ada Admin" });
  user = await makeUser({ name: "Uma User" });
  adminCookie = await signedInCookie(admin.id);
  userCookie = await signedInCookie(user.id);
  recipe = await makeRecipeWithPost({ userId: user.id, name: "Pancakes" });
});

const snapshot = async () =>
  JSON.stringify(
    await Promise.all(
      (["users", "recipes", "posts", "comments", "ingredient_sections", "ingredient_lines", "steps"] as const).map((t) =>
        db.selectFrom(t).selectAll().execute(),
      ),
    ),
  );

type Probe = readonly [string, () => Promise<unknown>];

describe("admin guard", () => {
  const loaders = (): Probe[] => [
    ["layout", () => adminLoader(routeArgs(getRequest("/a", cookieNow)))],
    ["index", () => adminIndexLoader(routeArgs(getRequest("/a", cookieNow)))],
    ["users", () => usersLoader(routeArgs(getRequest("/a", cookieNow)))],
    ["user", () => userLoader(routeArgs(getRequest("/a", cookieNow), { uid: user.id }))],
    ["recipes", () => recipesLoader(routeArgs(getRequest("/a", cookieNow)))],
    ["recipe", () => recipeLoader(routeArgs(getRequest("/a", cookieNow), { rid: recipe.recipeId }))],
    ["recipe tab", () => recipeTabLoader(routeArgs(getRequest("/a", cookieNow), { rid: recipe.recipeId }))],
    ["post tab", () => recipePostLoader(routeArgs(getRequest("/a", cookieNow), { rid: recipe.recipeId }))],
  ];
  const actions = (): Probe[] => [
    ["add user", () => usersAction(routeArgs(formRequest("/a", { intent: "add-user" }, cookieNow)))],
    ["role", () => userAction(routeArgs(formRequest("/a", { intent: "save", role: "ADMIN" }, cookieNow), { uid: user.id }))],
    ["delete user", () => userAction(routeArgs(formRequest("/a", { intent: "delete", confirm: "yes" }, cookieNow), { uid: user.id }))],
    ["delete recipe", () => recipeAction(routeArgs(formRequest("/a", { intent: "delete", confirm: "yes" }, cookieNow), { rid: recipe.recipeId }))],
    ["ingredients", () => recipeTabAction(routeArgs(formRequest("/a", { intent: "save-ingredients", text: "X:\ny" }, cookieNow), { rid: recipe.recipeId }))],
    ["remove comment", () => recipesPostAction(routeArgs(formRequest("/a", { intent: "remove-comment", commentId: "c", confirm: "yes" }, cookieNow), { rid: recipe.recipeId }))],
  ];
  let cookieNow: string | undefined;

  it("sends visitors to Login from every admin page and action, changing nothing", async () => {
    cookieNow = undefined;
    const before = await snapshot();
    for (const [name, run] of [...loaders(), ...actions()]) {
      const result = await settle(run);
      expect(result, name).toBeInstanceOf(Response);
      expect((result as Response).headers.get("Location"), name).toMatch(/^\/ReciPals\/Account\/Login/);
    }
    expect(await snapshot()).toBe(before);
  });

  it("sends a USER Home from pages and answers 403 to every action, changing nothing", async () => {
    cookieNow = userCookie;
    const before = await snapshot();
    for (const [, run] of loaders()) expectRedirect(await settle(run), "/ReciPals/Home");
    for (const [name, run] of actions()) {
      const result = (await settle(run)) as Response;
      expect(result.status, name).toBe(403);
    }
    expect(await snapshot()).toBe(before);
  });

  it("lets an ADMIN in; the admin root goes to Users", async () => {
    cookieNow = adminCookie;
    expect(await adminLoader(routeArgs(getRequest("/a", adminCookie)))).toBeNull();
    expectRedirect(await settle(() => adminIndexLoader(routeArgs(getRequest("/a", adminCookie)))), "/ReciPals/Account/Admin/Users");
  });
});

describe("admin users", () => {
  it("lists users with counts and finds them by name, username or id", async () => {
    const all = await usersLoader(routeArgs(getRequest("/a", adminCookie)));
    const row = all.users.find((u) => u.id === user.id)!;
    expect(row).toMatchObject({ name: "Uma User", username: user.username, role: "USER", posts: 1, followers: 0, following: 0 });
    for (const q of ["Uma", user.username.slice(2, 8), user.id]) {
      const found = await usersLoader(routeArgs(getRequest(`/a?q=${encodeURIComponent(q)}`, adminCookie)));
      expect(found.users.map((u) => u.id), q).toContain(user.id);
    }
    const none = await usersLoader(routeArgs(getRequest(`/a?q=${encodeURIComponent("%_")}`, adminCookie)));
    expect(none.users).toEqual([]);
    expect(JSON.stringify(all)).not.toMatch(/password|scrypt/);
  });

  it("adds the User{n+1} placeholder with a random password shown once, skipping a taken number", async () => {
    const count = Number((await db.selectFrom("users").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
    await makeUser({ username: `user${count + 2}` }); // n is now count+1, so user{n+1} is taken
    const { status, data } = dataOf<{ created: { id: string; username: string; password: string } }>(
      await usersAction(routeArgs(formRequest("/a", { intent: "add-user" }, adminCookie))),
    );
    expect(status).toBe(201);
    expect(data.created.username).toBe(`user${count + 3}`);
    expect(data.created.password.length).toBeGreaterThanOrEqual(12);
    const stored = await db.selectFrom("users").select(["name", "role", "profile"]).where("id", "=", data.created.id).executeTakeFirstOrThrow();
    expect(stored).toEqual({ name: `User${count + 3}`, role: "USER", profile: "/images/profile.png" });
    expect((await verifyLogin({ username: data.created.username, password: data.created.password })).ok).toBe(true);
    const second = dataOf<{ created: { password: string } }>(await usersAction(routeArgs(formRequest("/a", { intent: "add-user" }, adminCookie))));
    expect(second.data.created.password).not.toBe(data.created.password);
  });

  it("adds placeholders side by side when admins press Add User at the same moment", async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => usersAction(routeArgs(formRequest("/a", { intent: "add-user" }, adminCookie)))));
    const created = answers.map((answer) => dataOf<{ created: { username: string } }>(answer));
    expect(created.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(created.map((answer) => answer.data.created.username)).size).toBe(4);
  });

  it("shows a user's detail with post ids, or 'No tags'", async () => {
    const detail = await userLoader(routeArgs(getRequest("/a", adminCookie), { uid: user.id }));
    expect(detail.postIds).toEqual([recipe.postId]);
    expect(detail.user.tags).toEqual([]);
    const missing = (await settle(() => userLoader(routeArgs(getRequest("/a", adminCookie), { uid: "ghost" })))) as Response;
    expect(missing.status).toBe(404);
  });

  it("changes roles freely but never demotes or deletes the last ADMIN", async () => {
    const other = await makeUser();
    expectRedirect(await userAction(routeArgs(formRequest("/a", { intent: "save", role: "ADMIN" }, adminCookie), { uid: other.id })), "/ReciPals/Account/Admin/Users");
    expect((await db.selectFrom("users").select("role").where("id", "=", other.id).executeTakeFirstOrThrow()).role).toBe("ADMIN");
    expectRedirect(await userAction(routeArgs(formRequest("/a", { intent: "save", role: "USER" }, adminCookie), { uid: other.id })), /Users$/);

    const demote = dataOf<{ error: string }>(await userAction(routeArgs(formRequest("/a", { intent: "save", role: "USER" }, adminCookie), { uid: admin.id })));
    expect(demote.status).toBe(409); // as the API answers it: one rule, one status
    expect(demote.data.error).toBe("You cannot remove the last admin's role.");
    const remove = dataOf<{ error: string }>(
      await userAction(routeArgs(formRequest("/a", { intent: "delete", confirm: "yes" }, adminCookie), { uid: admin.id })),
    );
    expect(remove.status).toBe(409);
    expect(remove.data.error).toBe("You cannot delete the last admin.");
    expect((await db.selectFrom("users").select("role").where("id", "=", admin.id).executeTakeFirstOrThrow()).role).toBe("ADMIN");
  });

  it("asks for confirmation without JavaScript, then deletes the user but keeps their content", async () => {
    const doomed = await makeUser();
    const theirs = await makeRecipeWithPost({ userId: doomed.id });
    const ask = await userAction(routeArgs(formRequest("/a", { intent: "delete" }, adminCookie), { uid: doomed.id }));
    expect(ask).toEqual({ confirm: true });
    expect(await db.selectFrom("users").select("id").where("id", "=", doomed.id).executeTakeFirst()).toBeDefined();
    expectRedirect(await userAction(routeArgs(formRequest("/a", { intent: "delete", confirm: "yes" }, adminCookie), { uid: doomed.id })), /Users$/);
    expect(await db.selectFrom("users").select("id").where("id", "=", doomed.id).executeTakeFirst()).toBeUndefined();
    const kept = await db.selectFrom("recipes").select("user_created").where("id", "=", theirs.recipeId).executeTakeFirstOrThrow();
    expect(kept.user_created).toBeNull();
  });
});

describe("admin recipes", () => {
  it("lists recipes with 'N/A' dates and finds them by name, id and creator", async () => {
    const seedLike = await makeRecipeWithPost({ userId: user.id, name: "Zzyzx Stew" });
    await db.updateTable("posts").set({ created_at: null }).where("id", "=", seedLike.postId!).execute();
    const byName = await recipesLoader(routeArgs(getRequest("/a?q=zzyzx", adminCookie)));
    expect(byName.recipes).toMatchObject([{ recipe_id: seedLike.recipeId, post_id: seedLike.postId, created_at: null, likes: 0, comments: 0 }]);
    for (const q of [seedLike.recipeId, seedLike.postId!, user.username]) {
      const found = await recipesLoader(routeArgs(getRequest(`/a?q=${encodeURIComponent(q)}`, adminCookie)));
      expect(found.recipes.map((r) => r.recipe_id), q).toContain(seedLike.recipeId);
    }
  });

  it("opens the ingredient text as stored, saves edits, and saving it unchanged changes nothing", async () => {
    const tab = await recipeTabLoader(routeArgs(getRequest("/a", adminCookie), { rid: recipe.recipeId }));
    expect(tab.ingredientsText).toBe("Main Ingredients:\nFlour (200g)\nEggs (2)");
    const sectionsBefore = await db.selectFrom("ingredient_sections").selectAll().where("recipe_id", "=", recipe.recipeId).execute();
    const before = await snapshot();
    expectRedirect(
      await recipeTabAction(routeArgs(formRequest("/a", { intent: "save-ingredients", text: tab.ingredientsText.replace(/\n/g, "\r\n") + "\r\n" }, adminCookie), { rid: recipe.recipeId })),
      `/ReciPals/Account/Admin/Recipes/${recipe.recipeId}`,
    );
    expect(await snapshot()).toBe(before);

    await recipeTabAction(
      routeArgs(formRequest("/a", { intent: "save-ingredients", text: "Main Ingredients:\nFlour (250g)\n\nGlaze:\nSugar" }, adminCookie), { rid: recipe.recipeId }),
    );
    const after = await recipeTabLoader(routeArgs(getRequest("/a", adminCookie), { rid: recipe.recipeId }));
    expect(after.recipe.ingredients_sec.map((s) => [s.title, s.ingredients])).toEqual([
      ["Main Ingredients", ["Flour (250g)"]],
      ["Glaze", ["Sugar"]],
    ]);
    expect(after.recipe.ingredients_sec[0]!._id).toBe(sectionsBefore[0]!.id);
  });

  it("refuses bad ingredient and instruction text with its message and keeps the text", async () => {
    const before = await snapshot();
    for (const [intent, text, message] of [
      ["save-ingredients", "\n\n", "Please add at least one ingredient."],
      ["save-ingredients", "Only:\n\nTitles:", "Please add at least one ingredient."],
      ["save-ingredients", "x".repeat(5000), "Line 1 is too long (500 characters at most)."],
      ["save-ingredients", Array.from({ length: 10_000 }, () => "salt").join("\n"), "Too many ingredients (200 lines at most)."],
      ["save-instructions", "  \n ", "Please add at least one instruction step."],
    ] as const) {
      const { status, data } = dataOf<{ error: string; text: string }>(
        await recipeTabAction(routeArgs(formRequest(`/ReciPals/Account/Admin/Recipes/${recipe.recipeId}?index`, { intent, text }, adminCookie), { rid: recipe.recipeId })),
      );
      expect(status).toBe(400);
      expect(data.error).toBe(message);
      expect(data.text).toBe(text);
    }
    expect(await snapshot()).toBe(before);
  });

  it("saves instructions one step per line", async () => {
    await recipeTabAction(routeArgs(formRequest("/a", { intent: "save-instructions", text: "Whisk\n\nFry\nServe" }, adminCookie), { rid: recipe.recipeId }));
    const after = await recipeTabLoader(routeArgs(getRequest("/a", adminCookie), { rid: recipe.recipeId }));
    expect(after.recipe.steps).toEqual(["Whisk", "Fry", "Serve"]);
  });

  it("removes a comment after confirmation, and says so when it is already gone", async () => {
    await db.insertInto("comments").values({ id: "c-1", post_id: recipe.postId!, user_id: user.id, text: "spam", created_at: "2026-01-01", seq: 1 }).execute();
    expect(await recipesPostAction(routeArgs(formRequest("/a", { intent: "remove-comment", commentId: "c-1" }, adminCookie), { rid: recipe.recipeId }))).toEqual({ confirm: "c-1" });
    expectRedirect(
      await recipesPostAction(routeArgs(formRequest("/a", { intent: "remove-comment", commentId: "c-1", confirm: "yes" }, adminCookie), { rid: recipe.recipeId })),
      /\/Post$/,
    );
    const again = dataOf<{ error: string }>(
      await recipesPostAction(routeArgs(formRequest("/a", { intent: "remove-comment", commentId: "c-1", confirm: "yes" }, adminCookie), { rid: recipe.recipeId })),
    );
    expect(again.status).toBe(404);
    expect(again.data.error).toBe("That comment was already removed.");
  });

  it("deletes a recipe with its post after confirmation; a second delete is a 404", async () => {
    const doomed = await makeRecipeWithPost({ userId: user.id });
    expect(await recipeAction(routeArgs(formRequest("/a", { intent: "delete" }, adminCookie), { rid: doomed.recipeId }))).toEqual({ confirm: true });
    expectRedirect(await recipeAction(routeArgs(formRequest("/a", { intent: "delete", confirm: "yes" }, adminCookie), { rid: doomed.recipeId })), "/ReciPals/Account/Admin/Recipes");
    expect(await db.selectFrom("posts").select("id").where("id", "=", doomed.postId!).executeTakeFirst()).toBeUndefined();
    const again = (await settle(() => recipeAction(routeArgs(formRequest("/a", { intent: "delete", confirm: "yes" }, adminCookie), { rid: doomed.recipeId })))) as Response;
    expect(again.status).toBe(404);
  });
});
