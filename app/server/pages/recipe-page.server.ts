// The recipe page (/ReciPals/Recipes/{id}): what its loader shows and what its form posts do. The
// route module keeps the address's contract and the component tree; the rules are the services'.
import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { isAdmin } from "~/lib/permissions";
import { imageSrcSet, PHOTO_SIZES } from "~/lib/photos";
import { parseScale } from "~/lib/scale";
import { amountsFactor, parseServes } from "~/lib/servings";
import { absoluteUrl, recipeJsonLd, shareMeta } from "~/lib/structured-data";
import { convertStepTemperatures, parseUnitSystem, presentIngredientLine, type UnitSystem } from "~/lib/units";
import { getLens, getUser, requireUser } from "~/server/auth/session.server";
import { CacheScope } from "~/server/cache/scopes.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { readForm } from "~/server/http/body.server";
import { isFetcherSubmission } from "~/server/http/interaction.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { siteOrigin } from "~/server/http/site.server";
import { UNITS_MESSAGE, unitsCookie, unitsOf } from "~/server/http/units.server";
import { placeholderFor } from "~/server/media/placeholders.server";
import { listComments, type CommentView } from "~/server/queries/comments.server";
import { COOKS_SHOWN_ON_RECIPE, getOwnCook, listRecipeCooks, recipeCookStats } from "~/server/queries/cooks.server";
import { isFollowing } from "~/server/queries/follows.server";
import { countLikes, hasLiked } from "~/server/queries/likes.server";
import { federationEnabled } from "~/server/federation/handles.server";
import { remoteCommentsOf } from "~/server/federation/remote-store.server";
import { getRecipeDetail } from "~/server/queries/recipes.server";
import { isRecipeSaved } from "~/server/queries/saved.server";
import { isOnShoppingList } from "~/server/queries/shopping-list.server";
import { isHidden, UNAVAILABLE_RECIPE } from "~/server/queries/visibility.server";
import { addComment, deletableComments, readPostForComment } from "~/server/services/interactions-service.server";
import { withReportLinks } from "~/server/services/moderation-service.server";
import { COMMENT_MAX } from "~/server/validation/comment-schema.server";

/**
 * A recipe's ingredient lines at `factor` and in `units` (null: as written), section by section:
 * the recipe page shows them as the server made them, so the browser needs the quantity reader
 * only once the amounts change (docs/rules.md#servings-scaling, docs/rules.md#units).
 */
export function scaledSections(sections: readonly { ingredients: readonly string[] }[], factor: number, units: UnitSystem | null = null): string[][] {
  return sections.map((section) => section.ingredients.map((line) => presentIngredientLine(line, factor, units)));
}

/** What a post to the recipe page answers when it does not redirect. */
export type RecipePageActionData = { unitsError: string } | { error: string; text: string } | { comment: CommentView };

export type RecipePageData = Awaited<ReturnType<typeof loadRecipePage>>;

/** The recipe with its post, comments, cooks and the viewer's own marks, at the amounts the address asks for. */
export async function loadRecipePage(request: Request, recipeId: string, context: AppLoadContext) {
  const recipe = await getRecipeDetail(recipeId);
  invariantResponse(recipe, "Recipe not found.", 404);
  // The recipe with its post (comments, likes). Its creator's and commenters' names and pictures
  // change everything when they change (app/server/cache/scopes.server.ts).
  scopeSharedCache(context, [CacheScope.recipe(recipe.recipe_id)]);
  const viewer = await getUser(request);
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, recipe.user_created)), UNAVAILABLE_RECIPE, 404);
  const { searchParams } = new URL(request.url);
  // The creator, when the viewer may follow them (signed in, someone else).
  const followable = viewer && recipe.creator && recipe.creator.id !== viewer.id ? recipe.creator.id : null;
  const [comments, saved, likes, liked, following, onShoppingList, cookStats, cooks, ownCook, remoteComments] = await Promise.all([
    // The recipe's owner also sees, collapsed, the comments of people a block hides from them.
    recipe.post_id
      ? listComments(recipe.post_id, viewer?.id === recipe.user_created ? { without: lens.quiet, ownerSees: lens.hidden, blocking: lens.blocking } : { without: lens.quiet })
      : Promise.resolve([] as CommentView[]),
    viewer ? isRecipeSaved(viewer.id, recipe.recipe_id) : Promise.resolve(false),
    recipe.post_id ? countLikes(recipe.post_id) : Promise.resolve(0),
    viewer && recipe.post_id ? hasLiked(recipe.post_id, viewer.id) : Promise.resolve(false),
    viewer && followable ? isFollowing({ followerId: viewer.id, followeeId: followable }) : Promise.resolve(false),
    viewer ? isOnShoppingList(viewer.id, recipe.recipe_id) : Promise.resolve(false),
    recipeCookStats(recipe.recipe_id, { without: lens.quiet }),
    // The newest entries, or all of them when asked (`?cooked=all`).
    listRecipeCooks(recipe.recipe_id, { without: lens.quiet, limit: searchParams.get("cooked") === "all" ? undefined : COOKS_SHOWN_ON_RECIPE }),
    viewer ? getOwnCook(viewer.id, recipe.recipe_id) : Promise.resolve(undefined),
    // Replies from people on other servers (docs/federation.md).
    recipe.post_id && federationEnabled() ? remoteCommentsOf(recipe.post_id) : Promise.resolve([]),
  ]);
  const origin = siteOrigin(request);
  const serves = parseServes(searchParams.get("serves")) ?? recipe.serves ?? 1;
  const scaleText = recipe.serves === null ? searchParams.get("scale") : null;
  const scaleAsked = parseScale(scaleText);
  const factor = amountsFactor(recipe.serves, serves, scaleAsked);
  const units = unitsOf(request.headers.get("Cookie"));
  const url = `${origin}${paths.recipe(recipe.recipe_id)}`;
  return {
    recipe,
    // Its copies for the photo's srcset, named here so the page's script need not carry the rule,
    // and its inline placeholder.
    photo: { srcSet: imageSrcSet(recipe.photo), avifSrcSet: imageSrcSet(recipe.photo, "avif"), sizes: PHOTO_SIZES.recipe, placeholder: await placeholderFor(recipe.photo) },
    // Each other person's comment links to its report page; replies from other servers follow, by their handle.
    comments: [
      ...withReportLinks("comment", comments, viewer?.id ?? null, (comment) => ({ id: comment.comment_id, ownerId: comment.author?.id })),
      ...withReportLinks("remote_comment", remoteComments, viewer?.id ?? null, (reply) => ({ id: reply.id, ownerId: reply.actor_id })).map(
        (reply): CommentView & { reportHref?: string } => ({ comment_id: reply.id, text: reply.text, created_at: new Date(reply.created_at).toISOString(), author: null, remote: { handle: reply.handle, url: reply.url }, reportHref: reply.reportHref }),
      ),
    ],
    // The comment box's limit, from here: the page's script has no room for ~/lib/limits (a module more).
    commentMax: COMMENT_MAX,
    saved,
    onShoppingList,
    serves,
    // A multiplier, for a recipe without stated servings (docs/rules.md#servings-scaling).
    scale: scaleText,
    // The multiplier read here: the page reads a typed one with the number reader it loads later.
    scaleAsked,
    // The lines at the amounts the address asks for, scaled here: the page shows them without
    // the quantity reader, which it loads only once someone changes the amounts.
    shown: {
      factor,
      sections: scaledSections(recipe.ingredients_sec, factor, units),
      steps: units ? recipe.steps.map((step) => convertStepTemperatures(step, units)) : recipe.steps,
    },
    // Metric or US, or null for the amounts as written (docs/rules.md#units).
    units,
    // The share tags, made here: the page's script has no room for ~/lib/structured-data.
    share: {
      tags: shareMeta({ title: recipe.name, description: recipe.description, image: absoluteUrl(origin, recipe.photo), url, type: "article" }),
      jsonLd: recipeJsonLd(recipe, { origin, url, likes, comments: comments.length + remoteComments.length, cooks: { ...cookStats, latest: cooks.slice(0, 5) } }),
    },
    cooked: {
      stats: cookStats,
      entries: withReportLinks(
        "cook",
        cooks.map(({ cook_id, rating, note, servings, photo, created_at, person }) => ({ cook_id, rating, note, servings, photo, created_at, person })),
        viewer?.id ?? null,
        (entry) => ({ id: entry.cook_id, ownerId: entry.person.id }),
      ),
      viewer: viewer && { id: viewer.id, admin: isAdmin(viewer), mayCook: viewer.id !== recipe.user_created, hasEntry: ownCook !== undefined },
    },
    // Its post's likes and the creator's Follow, on the page people land on from search and links
    // (docs/rules.md#recipe-page); `url` is what Share gives.
    social: { postId: recipe.post_id, likes, liked, followable, following, url },
    signedIn: viewer !== null,
    // 'Edit Recipe' is shown to the creator only (docs/rules.md#who-may-do-what) (admins edit from the admin area).
    canEdit: viewer !== null && viewer.id === recipe.user_created,
    // The comments the viewer may delete (docs/rules.md#deleting-a-comment).
    deletable: deletableComments(viewer, comments, recipe.creator?.id ?? null),
  };
}

/** The page's two form posts: the units choice (anyone's, a cookie) and a comment (signed in). */
export async function recipePageAction(request: Request, recipeId: string) {
  const formData = await readForm(request);
  // The units choice is anyone's, signed in or not: a cookie, then the same page again.
  if (readIntent(formData) === "units") {
    const units = parseUnitSystem(formData.get("units"));
    if (!units) return data<RecipePageActionData>({ unitsError: UNITS_MESSAGE }, { status: 400 });
    const serves = parseServes(String(formData.get("serves") ?? ""));
    const scale = parseScale(String(formData.get("scale") ?? ""));
    const query = serves !== null ? `?serves=${serves}` : typeof scale === "number" ? `?scale=${scale}` : "";
    return redirect(`${paths.recipe(recipeId)}${query}#ingredients-heading`, { headers: { "Set-Cookie": unitsCookie(units) } });
  }
  // The post is read side by side with the session (docs/scaling.md, "Round trips").
  const post = readIntent(formData) === "comment" ? readPostForComment(recipeId) : undefined;
  const user = await requireUser(request, { redirectTo: paths.recipe(recipeId) });
  if (readIntent(formData) !== "comment") return data<RecipePageActionData>({ error: "Unknown action.", text: "" }, { status: 400 });
  const typed = formData.get("text");
  const text = typeof typed === "string" ? typed : "";
  const outcome = await addComment({ actor: user, recipeId, text, post });
  if (!outcome.ok) {
    if (outcome.status === 404) throw new Response(outcome.message, { status: 404 });
    return data<RecipePageActionData>({ error: outcome.message, text }, { status: outcome.status });
  }
  const comment = outcome.value;
  if (isFetcherSubmission(formData)) return { comment };
  return redirect(`${paths.recipe(recipeId)}#comment-${comment.comment_id}`);
}
