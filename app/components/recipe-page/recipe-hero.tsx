// The top of a recipe page: its photo, name, creator and Follow; Like with the likes count, Save,
// Share and Edit; description, facts and tags.
import { FollowButton } from "~/components/follow-button";
import { LikeControls } from "~/components/like-button";
import { Link } from "~/components/link";
import { SaveButton } from "~/components/save-button";
import { ShareControl } from "~/components/share-control";
import { TagChips } from "~/components/tag-chips";
import { paths, RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";
import type { RecipePageData } from "~/server/pages/recipe-page.server";
import type { RecipeDetail } from "~/server/queries/recipes.server";

export function RecipeHero({
  recipe,
  photo,
  serves,
  saved,
  signedIn,
  canEdit,
  social,
}: {
  recipe: Pick<RecipeDetail, "recipe_id" | "name" | "photo" | "creator" | "description" | "total_time" | "serves" | "tags">;
  photo: RecipePageData["photo"];
  /** The servings shown (they follow the −/+ steps). */
  serves: number;
  saved: boolean;
  signedIn: boolean;
  canEdit: boolean;
  social: RecipePageData["social"];
}) {
  const returnTo = paths.recipe(recipe.recipe_id);
  return (
    <div className="recipe__hero">
      {/* As app/components/photo.tsx draws a photo, written out here: the page's script has no room for ~/lib/photos. */}
      <span className="photo-frame recipe__photo-frame">
        {photo.placeholder ? <img className="photo-frame__blur" src={photo.placeholder} alt="" aria-hidden="true" width={800} height={600} /> : null}
        <picture>
          {photo.avifSrcSet ? <source type="image/avif" srcSet={photo.avifSrcSet} sizes={photo.sizes} /> : null}
          <img
            className="recipe__photo"
            src={recipe.photo || RECIPE_PLACEHOLDER_IMAGE}
            srcSet={photo.srcSet}
            sizes={photo.sizes}
            alt={recipe.name}
            width={800}
            height={600}
            data-initial={recipe.name.trim().charAt(0).toUpperCase() || undefined}
            // The page's largest paint: fetched first.
            {...{ fetchpriority: "high" }}
          />
        </picture>
      </span>
      <div className="recipe__intro">
        <header className="recipe__header">
          <h1 className="recipe__name">{recipe.name}</h1>
          <div className="recipe__creator">
            <span>
              Created by {recipe.creator ? <Link to={paths.profile(recipe.creator.id)}>{recipe.creator.username}</Link> : "Unknown User"}
            </span>
            {social.followable ? (
              <FollowButton userId={social.followable} following={social.following} variant="row" />
            ) : !signedIn && recipe.creator ? (
              <Link to={paths.login(returnTo)} className="button button--ghost button--small">
                Follow
              </Link>
            ) : null}
          </div>
        </header>
        <div className="recipe__actions">
          {social.postId ? (
            <LikeControls
              postId={social.postId}
              liked={social.liked}
              likes={social.likes}
              signedIn={signedIn}
              returnTo={returnTo}
              likesHref={paths.recipeLikes(recipe.recipe_id)}
            />
          ) : null}
          {signedIn ? <SaveButton recipeId={recipe.recipe_id} saved={saved} returnTo={returnTo} look="button" /> : null}
          <ShareControl url={social.url} title={recipe.name} />
          {canEdit ? (
            <Link to={paths.editor(recipe.recipe_id)} className="button button--ghost">
              Edit Recipe
            </Link>
          ) : null}
        </div>
        {recipe.description ? <p className="recipe__description">{recipe.description}</p> : null}
        {/* Facts the recipe does not have are left out, never shown as made-up values. */}
        {recipe.total_time || recipe.serves !== null ? (
          <dl className="recipe__facts">
            {recipe.total_time ? (
              <div>
                <dt>Total Time</dt>
                <dd>{recipe.total_time}</dd>
              </div>
            ) : null}
            {recipe.serves !== null ? (
              <div>
                <dt>Serves</dt>
                <dd>{serves}</dd>
              </div>
            ) : null}
          </dl>
        ) : null}
        <TagChips tags={recipe.tags} />
      </div>
    </div>
  );
}
