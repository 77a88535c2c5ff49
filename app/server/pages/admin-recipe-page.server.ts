// A recipe in the admin area (/ReciPals/Account/Admin/Recipes/{id}, docs/rules.md#admin-area): the
// detail with `Delete`, its Recipe tab (ingredient and step text, docs/rules.md#admin-text-format)
// and its Post tab (caption, comments to remove). Serves those three routes; the rules are the services'.
import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { formatIngredientText, formatStepsText } from "~/lib/ingredient-text";
import { paths } from "~/lib/paths";
import { requireAdmin } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { listComments } from "~/server/queries/comments.server";
import { getPostForRecipe } from "~/server/queries/posts.server";
import { getRecipeDetail } from "~/server/queries/recipes.server";
import { removeComment } from "~/server/services/interactions-service.server";
import { deleteRecipe, editRecipeText } from "~/server/services/recipes-service.server";

/** The detail around the tabs: the recipe's name, photo and creator. */
export async function loadAdminRecipePage(request: Request, recipeId: string, context: AppLoadContext) {
  await requireAdmin({ request, context });
  const recipe = await getRecipeDetail(recipeId);
  invariantResponse(recipe, "Recipe not found.", 404);
  return { recipe };
}

/** `Delete`: the recipe and its post go, after asking. */
export async function adminRecipePageAction(request: Request, recipeId: string, context: AppLoadContext) {
  const admin = await requireAdmin({ request, context });
  const formData = await readForm(request);
  if (readIntent(formData) !== "delete") return data({ error: "Unknown action." }, { status: 400 });
  invariantResponse(await getRecipeDetail(recipeId), "Recipe not found.", 404);
  if (formData.get("confirm") !== "yes") return { confirm: true as const };
  const deleted = await deleteRecipe({ actor: admin, recipeId });
  invariantResponse(deleted.ok, deleted.ok ? "" : deleted.message, deleted.ok ? 200 : deleted.status);
  return redirect(paths.adminRecipes());
}

/** The Recipe tab: the recipe with its ingredients and steps as the text the editors start from. */
export async function loadAdminRecipeTextPage(request: Request, recipeId: string, context: AppLoadContext) {
  await requireAdmin({ request, context });
  const recipe = await getRecipeDetail(recipeId);
  invariantResponse(recipe, "Recipe not found.", 404);
  return {
    recipe,
    ingredientsText: formatIngredientText(recipe.ingredients_sec),
    stepsText: formatStepsText(recipe.steps),
  };
}

/** The Recipe tab's `Save`: the ingredients or the steps replaced by the text posted. */
export async function adminRecipeTextPageAction(request: Request, recipeId: string, context: AppLoadContext) {
  const admin = await requireAdmin({ request, context });
  // The larger form limit its route declares (`requestBody`): the texts are long.
  const formData = await readForm(request, "long-text-form");
  const intent = readIntent(formData);
  invariantResponse(await getRecipeDetail(recipeId), "Recipe not found.", 404);
  const raw = formData.get("text");
  const text = typeof raw === "string" ? raw : "";
  if (intent !== "save-ingredients" && intent !== "save-instructions") return data({ editing: null, error: "Unknown action.", text: "" }, { status: 400 });
  const part = intent === "save-ingredients" ? "ingredients" : "instructions";
  const outcome = await editRecipeText({ actor: admin, recipeId, part, text });
  // The text comes back as typed (cut to a size a page can show) with the reason.
  if (!outcome.ok) return data({ editing: part, error: outcome.message, text: text.slice(0, 200_000) }, { status: outcome.status });
  return redirect(paths.adminRecipe(recipeId));
}

async function loadPost(recipeId: string) {
  const post = await getPostForRecipe(recipeId);
  invariantResponse(post, "Post not found.", 404);
  return post;
}

/** The Post tab: the recipe's post with its comments. */
export async function loadAdminRecipePostPage(request: Request, recipeId: string, context: AppLoadContext) {
  await requireAdmin({ request, context });
  const post = await loadPost(recipeId);
  return { post, comments: await listComments(post.id), tabHref: paths.adminRecipePost(recipeId) };
}

/** The Post tab's `Remove`: a comment goes, after asking. */
export async function adminRecipePostPageAction(request: Request, recipeId: string, context: AppLoadContext) {
  const admin = await requireAdmin({ request, context });
  const formData = await readForm(request);
  if (readIntent(formData) !== "remove-comment") return data({ error: "Unknown action." }, { status: 400 });
  const post = await loadPost(recipeId);
  const commentId = String(formData.get("commentId") ?? "");
  if (formData.get("confirm") !== "yes") return { confirm: commentId };
  const outcome = await removeComment({ actor: admin, postId: post.id, commentId });
  if (!outcome.ok) return data({ error: outcome.message }, { status: outcome.status });
  return redirect(paths.adminRecipePost(recipeId));
}
