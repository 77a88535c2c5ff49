// Saved Recipes (/ReciPals/Saved): the viewer's saved recipes, each with Unsave; what it lists is
// app/server/pages/saved-page.server.ts.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useFetchers, useLoaderData } from "@remix-run/react";

import { EmptyState } from "~/components/empty-state";
import { Link } from "~/components/link";
import { Photo } from "~/components/photo";
import { SaveButton } from "~/components/save-button";
import { paths, RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";
import { stylesheetLinks, type StyledRoute } from "~/root";
import { loadSavedPage } from "~/server/pages/saved-page.server";
import feedStyles from "~/styles/feed.css";

export const meta: MetaFunction = () => [{ title: "Saved Recipes · ReciPals" }];
export const handle: StyledRoute = { styles: [feedStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const loader = ({ request }: LoaderFunctionArgs) => loadSavedPage(request);

export default function SavedRoute() {
  const { recipes } = useLoaderData<typeof loader>();
  // Cards being unsaved leave at once (optimistic); a failed request brings them back.
  const leaving = new Set(
    useFetchers()
      .filter((f) => f.formData?.get("intent") === "unsave")
      .map((f) => String(f.formData?.get("recipeId"))),
  );
  const shown = recipes.filter((recipe) => !leaving.has(recipe.recipe_id));
  return (
    <section>
      <h1 className="page-title">Saved Recipes</h1>
      {shown.length === 0 ? (
        <EmptyState
          title="No saved recipes yet"
          text="Start exploring recipes and save your favorites! Tap Save on any recipe and it waits for you here, even offline."
          action={{ to: paths.search(), label: "Find recipes" }}
        />
      ) : (
        <ul className="card-grid" aria-label="Saved recipes">
          {shown.map((recipe) => (
            <li key={recipe.recipe_id} className="recipe-card">
              <Link to={paths.recipe(recipe.recipe_id)} className="recipe-card__link">
                <Photo src={recipe.photo || RECIPE_PLACEHOLDER_IMAGE} placeholder={recipe.placeholder} slot="card" alt="" name={recipe.name} width={400} height={300} />
                <span className="recipe-card__name">{recipe.name}</span>
              </Link>
              <p className="recipe-card__description">{recipe.description}</p>
              <SaveButton recipeId={recipe.recipe_id} saved returnTo={paths.saved()} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
