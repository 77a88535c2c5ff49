// A recipe page (/ReciPals/Recipes/{id}): the address's contract and the component tree. What the
// page shows and what its forms do is app/server/pages/recipe-page.server.ts.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import type { ShouldRevalidateFunctionArgs } from "@remix-run/react";
import { isRouteErrorResponse, useLoaderData, useLocation, useMatches, useOutlet, useRouteError } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";

import { CookedIt } from "~/components/cooked-it";
import { ErrorPage } from "~/components/error-page";
import { Link } from "~/components/link";
import { ScaleControl, ServesControl, UnitsControl, useScaler } from "~/components/recipe-page/recipe-amount-controls";
import { RecipeComments } from "~/components/recipe-page/recipe-comments";
import { RecipeHero } from "~/components/recipe-page/recipe-hero";
import { AddToShoppingList } from "~/components/recipe-page/recipe-shopping-button";
import { useChangeEffect } from "~/lib/hooks";
import { paths } from "~/lib/paths";
import { amountsFactor, MAX_SERVES, parseServes } from "~/lib/servings";
import { stylesheetLinks, type StyledRoute } from "~/root";
import { loadRecipePage, recipePageAction } from "~/server/pages/recipe-page.server";
import recipeStyles from "~/styles/recipe.css";

const LIKES_ROUTE_ID = "routes/ReciPals.Recipes.$rid.Likes";

export const handle: StyledRoute = { styles: [recipeStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: "Recipe not found · ReciPals" }];
  const { recipe, share } = data;
  return [
    { title: `${recipe.name} · ReciPals` },
    { name: "description", content: recipe.description },
    ...share.tags,
    { "script:ld+json": share.jsonLd },
  ];
};

export const loader = ({ request, params, context }: LoaderFunctionArgs) => loadRecipePage(request, params.rid ?? "", context);

export const action = ({ request, params }: ActionFunctionArgs) => recipePageAction(request, params.rid ?? "");

// Changing the serves or the multiplier only rescales on the client: no need to read the recipe again.
export function shouldRevalidate({ currentUrl, nextUrl, formMethod, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (!formMethod && currentUrl.pathname === nextUrl.pathname) {
    const a = new URLSearchParams(currentUrl.search);
    const b = new URLSearchParams(nextUrl.search);
    for (const name of ["serves", "scale"]) {
      a.delete(name);
      b.delete(name);
    }
    if (a.toString() === b.toString()) return false;
  }
  return defaultShouldRevalidate;
}

export default function RecipeRoute() {
  const { recipe, photo, comments, commentMax, saved, signedIn, canEdit, deletable, onShoppingList, serves: servesFromUrl, scale: scaleFromUrl, scaleAsked, shown, cooked, units, social } =
    useLoaderData<typeof loader>();
  // A nested route is either the "I made this" form, in its section, or the Likes dialog.
  const outlet = useOutlet();
  const likesOpen = useMatches().some((match) => match.id === LIKES_ROUTE_ID);
  // The amounts follow the address, not only the loader: a step or a multiplier clicked while the
  // page was still waking up may have reached the address as a client navigation, which does not
  // read the recipe again (shouldRevalidate below) — the page must still show what it names.
  const query = new URLSearchParams(useLocation().search);
  const servesInAddress = parseServes(query.get("serves")) ?? recipe.serves ?? 1;
  const scaleInAddress = recipe.serves === null ? query.get("scale") : null;
  const [serves, setServes] = useState(servesInAddress);
  useChangeEffect(servesInAddress, setServes);
  // The servings shown, as the steps below count from them (ahead of a render still to come).
  const servesNow = useRef(serves);
  servesNow.current = serves;
  // Without stated servings there is nothing to count people from: a multiplier scales instead.
  const [scaleText, setScaleText] = useState(scaleInAddress);
  useChangeEffect(scaleInAddress, setScaleText);
  const scaler = useScaler();
  // Amounts other than those the server scaled need the quantity reader, however they were asked for.
  const changed = serves !== servesFromUrl || scaleText !== scaleFromUrl;
  // After every commit, not on a change of dependencies (see useChangeEffect: React may skip those).
  useEffect(() => {
    if (changed && !scaler.tools) void scaler.load();
  });
  // A multiplier typed in the page is read once the reader has loaded (rescale waits for it).
  const asked = scaleText === scaleFromUrl ? scaleAsked : (scaler.tools?.parseScale(scaleText) ?? scaleAsked);
  const scale = typeof asked === "number" ? asked : 1;
  const factor = amountsFactor(recipe.serves, serves, asked);
  // Amounts changed in the page wait for the quantity reader (loaded on the first change).
  const rescale = (change: () => void) => void scaler.load().then(change);
  return (
    <article className="recipe">
      <RecipeHero recipe={recipe} photo={photo} serves={serves} saved={saved} signedIn={signedIn} canEdit={canEdit} social={social} />
      <div className="recipe__body">
        <section className="recipe__section recipe__ingredients-block" aria-labelledby="ingredients-heading">
          <div className="recipe__ingredients-head">
            <h2 id="ingredients-heading">Ingredients</h2>
            {recipe.serves !== null ? (
              <ServesControl
                recipeId={recipe.recipe_id}
                serves={serves}
                onStep={(step) =>
                  // A step counts from the servings shown when it lands: clicks made while the
                  // quantity reader loads each add one, none is lost. The address follows (a
                  // reload or a shared link shows the same), keeping its #fragment.
                  rescale(() => {
                    const next = Math.min(MAX_SERVES, Math.max(1, servesNow.current + step));
                    servesNow.current = next;
                    setServes(next);
                    window.history.replaceState(window.history.state, "", `${paths.recipe(recipe.recipe_id)}?serves=${next}${window.location.hash}`);
                  })
                }
              />
            ) : (
              <ScaleControl
                recipeId={recipe.recipe_id}
                scale={scale}
                text={scaleText}
                invalid={asked === "invalid"}
                onChange={(text) => rescale(() => setScaleText(text))}
              />
            )}
            <UnitsControl recipeId={recipe.recipe_id} units={units} serves={recipe.serves === null ? null : serves} scale={recipe.serves === null && scale !== 1 ? scaleText : null} />
          </div>
          {recipe.ingredients_sec.map((section, sectionIndex) => (
            <div key={section._id} className="recipe__ingredients">
              <h3>For the {section.title}</h3>
              <ul>
                {section.ingredients.map((line, index) => (
                  <li key={index}>
                    {factor === shown.factor ? shown.sections[sectionIndex]![index] : (scaler.tools?.present(line, factor, units) ?? line)}
                  </li>
                ))}
              </ul>
            </div>
          ))}
          {signedIn ? (
            <AddToShoppingList
              recipeId={recipe.recipe_id}
              serves={recipe.serves === null ? null : serves}
              scale={recipe.serves === null && scale !== 1 ? scale : null}
              onList={onShoppingList}
            />
          ) : null}
        </section>
        <section className="recipe__section recipe__steps-block" aria-labelledby="steps-heading">
          <div className="recipe__steps-head">
            <h2 id="steps-heading">Instructions</h2>
            {recipe.steps.length > 0 ? (
              <Link
                to={`${paths.recipe(recipe.recipe_id)}/Cook${recipe.serves !== null ? `?serves=${serves}` : scale !== 1 && scaleText ? `?scale=${encodeURIComponent(scaleText)}` : ""}`}
                className="button button--ghost"
              >
                Cook mode
              </Link>
            ) : null}
          </div>
          <ol className="recipe__steps">
            {shown.steps.map((step, index) => (
              <li key={index}>{step}</li>
            ))}
          </ol>
        </section>
      </div>
      <CookedIt recipeId={recipe.recipe_id} {...cooked} form={likesOpen ? null : outlet} />
      <RecipeComments comments={comments} deletable={deletable} signedIn={signedIn} recipeId={recipe.recipe_id} hasPost={recipe.post_id !== null} commentMax={commentMax} />
      {likesOpen ? outlet : null}
    </article>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <ErrorPage status={404} message="Recipe not found." />;
  throw error;
}
