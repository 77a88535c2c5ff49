import crypto from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import * as postsRoute from "~/routes/api.posts";
import * as postRoute from "~/routes/api.posts.$post_id";
import * as recipesRoute from "~/routes/api.recipes";
import * as recipeRoute from "~/routes/api.recipes.$recipe_id";
import * as profileRoute from "~/routes/api.users.profile";
import * as userRoute from "~/routes/api.users.$id";

import { call, expectError, snapshot, useTempUploads } from "../support/api";
import { makeUser, signedInCookie } from "../support/app";

// The original ReciPals client's recipe editor, call for call, with the bodies it builds: when no
// photo is chosen it sends its own default picture as an address on its own host.

useTempUploads({ beforeAll, afterAll });

const CLIENT_DEFAULT_PHOTO = "https://recipals.netlify.app/images/default.jpg";
const today = () => new Date().toISOString().split("T")[0]!;

async function signedIn() {
  const user = await makeUser();
  return { user, cookie: await signedInCookie(user.id) };
}

/** What the editor's Save sends for a new recipe: the recipe, then its post (ids made by the client). */
function newRecipeBodies(userId: string, photo: string) {
  const recipeId = crypto.randomUUID();
  const postId = crypto.randomUUID();
  const recipe = {
    recipe_id: recipeId,
    post_id: postId,
    user_created: userId,
    name: "Weeknight Dal",
    description: "Red lentils, cumin and a squeeze of lime.",
    total_time: "35min",
    serves: 4,
    tags: ["Vegan", "Quick"],
    ingredients_sec: [{ _id: crypto.randomUUID(), title: "", ingredients: ["Red lentils (1 cup)", "Cumin (1 tsp)"] }],
    steps: ["Rinse the lentils.", "Simmer with cumin for 25 minutes."],
    photo,
  };
  const post = {
    post_id: postId,
    recipe_id: recipeId,
    created_by: userId,
    title: recipe.name,
    caption: recipe.description,
    photo,
    likes: [],
    comments: [],
    created_at: today(),
  };
  return { recipe, post };
}

describe("the original client's recipe editor against this API", () => {
  it("creates a recipe without a chosen photo (its default picture becomes our placeholder), then its post and the user's post list", async () => {
    const { user, cookie } = await signedIn();
    const { recipe, post } = newRecipeBodies(user.id, CLIENT_DEFAULT_PHOTO);
    const created = await call(recipesRoute, "POST", "/api/recipes", { cookie, body: recipe });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ recipe_id: recipe.recipe_id, photo: "/images/recipe-placeholder.png", tags: ["Vegan", "Quick"] });
    const createdPost = await call(postsRoute, "POST", "/api/posts", { cookie, body: post });
    expect([200, 201]).toContain(createdPost.status);
    expect(createdPost.body).toMatchObject({ post_id: post.post_id, recipe_id: recipe.recipe_id, photo: "/images/recipe-placeholder.png" });
    // Then: updateUser({ ...currentUser, posts: [...posts, newPost.post_id] }).
    const me = (await call(profileRoute, "GET", "/api/users/profile", { cookie })).body;
    const updated = await call(userRoute, "PUT", `/api/users/${user.id}`, { cookie, params: { id: user.id }, body: { ...me, posts: [...me.posts, post.post_id] } });
    expect(updated.status).toBe(200);
    expect(updated.body.posts).toContain(post.post_id);
  });

  it("edits it: the recipe and the post come back with the photo the server gave, or the client's default again", async () => {
    const { user, cookie } = await signedIn();
    const { recipe, post } = newRecipeBodies(user.id, CLIENT_DEFAULT_PHOTO);
    await call(recipesRoute, "POST", "/api/recipes", { cookie, body: recipe });
    await call(postsRoute, "POST", "/api/posts", { cookie, body: post });
    for (const photo of ["/images/recipe-placeholder.png", CLIENT_DEFAULT_PHOTO]) {
      const edited = { ...recipe, name: "Weeknight Dal, better", photo };
      const recipeAnswer = await call(recipeRoute, "PUT", `/api/recipes/${recipe.recipe_id}`, { cookie, params: { recipe_id: recipe.recipe_id }, body: edited });
      expect(recipeAnswer.status).toBe(200);
      expect(recipeAnswer.body).toMatchObject({ name: "Weeknight Dal, better", photo: "/images/recipe-placeholder.png" });
      const postBody = { ...post, title: edited.name, caption: edited.description, photo, created_at: post.created_at };
      const postAnswer = await call(postRoute, "PUT", `/api/posts/${post.post_id}`, { cookie, params: { post_id: post.post_id }, body: postBody });
      expect(postAnswer.status).toBe(200);
      expect(postAnswer.body).toMatchObject({ title: "Weeknight Dal, better", photo: "/images/recipe-placeholder.png" });
    }
  });

  it("keeps the address of a picture elsewhere, as the sample recipes have", async () => {
    const { user, cookie } = await signedIn();
    const photo = "https://www.themealdb.com/images/media/meals/wuxrtu1483564410.jpg";
    const { recipe } = newRecipeBodies(user.id, photo);
    const created = await call(recipesRoute, "POST", "/api/recipes", { cookie, body: recipe });
    expect(created.status).toBe(201);
    expect(created.body.photo).toBe(photo);
  });

  it.each([
    ["javascript:", "javascript:alert(document.cookie)"],
    ["another scheme", "ftp://pictures.example/dal.jpg"],
    ["file", "file:///etc/passwd"],
    ["a data URL that is not an image", "data:text/html;base64,PHNjcmlwdD4="],
    ["an over-long address", `https://pictures.example/${"d".repeat(2100)}.jpg`],
    ["plain text", "my dal photo"],
  ])("refuses %s with 400 and a clear message, storing nothing", async (_what, photo) => {
    const { user, cookie } = await signedIn();
    const { recipe } = newRecipeBodies(user.id, photo);
    const before = await snapshot();
    const answer = await call(recipesRoute, "POST", "/api/recipes", { cookie, body: recipe });
    expectError(answer, 400);
    expect(answer.body.errors.photo).toMatch(/picture|image/i);
    expect(await snapshot()).toBe(before);
  });
});
