import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";

import { EmptyState } from "~/components/empty-state";
import { FormAlert } from "~/components/forms";
import { Link } from "~/components/link";
import { ItemToggle } from "~/components/shopping-item-toggle";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage } from "~/lib/refusal";
import { scaleLabel } from "~/lib/scale";
import { stylesheetLinks, type StyledRoute } from "~/root";
import { loadShoppingListPage, shoppingListPageAction } from "~/server/pages/shopping-list-page.server";
import shoppingStyles from "~/styles/shopping.css";

// The shopping list (docs/rules.md#shopping-list): every recipe put on it, by recipe or merged by
// item; check items off, clear the checked ones, remove a recipe, clear the list. Each control is
// a form post that comes back here (or to the recipe it was added from); with JavaScript the
// check marks answer at once. What it shows and does is app/server/pages/shopping-list-page.server.ts.

export const meta: MetaFunction = () => [{ title: "Shopping List · ReciPals" }];
export const handle: StyledRoute = { styles: [shoppingStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const loader = ({ request }: LoaderFunctionArgs) => loadShoppingListPage(request);

export const action = ({ request }: ActionFunctionArgs) => shoppingListPageAction(request);


export default function ShoppingListRoute() {
  const { recipes, merged, byItem, itemCount, checkedCount } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  const confirmingClear = searchParams.get("confirm") === "clear";
  const returnTo = byItem ? `${paths.shoppingList()}?view=item` : paths.shoppingList();
  // A page form's post refused before the action ran (app/lib/refusal.ts).
  const refusal = earlyRefusalMessage(useActionData<typeof action>());
  if (recipes.length === 0) {
    return (
      <section className="shopping-page">
        <h1 className="page-title">Shopping List</h1>
        <EmptyState
          title="Your shopping list is empty"
          text="Open a recipe and choose Add to shopping list: its ingredients land here, at the servings you picked."
          action={{ to: paths.search(), label: "Find recipes" }}
        />
      </section>
    );
  }
  return (
    <section className="shopping-page">
      <div className="shopping-page__head">
        <h1 className="page-title">Shopping List</h1>
        <p className="shopping-page__count">
          {itemCount} {itemCount === 1 ? "item" : "items"} from {recipes.length} {recipes.length === 1 ? "recipe" : "recipes"}
          {checkedCount > 0 ? `, ${checkedCount} checked` : ""}
        </p>
      </div>
      <FormAlert message={refusal} />
      <nav className="segmented" aria-label="Show the list">
        <Link to={paths.shoppingList()} aria-current={byItem ? undefined : "page"} replace>
          By recipe
        </Link>
        <Link to={`${paths.shoppingList()}?view=item`} aria-current={byItem ? "page" : undefined} replace>
          By item
        </Link>
      </nav>
      <div className="shopping-page__actions">
        {checkedCount > 0 ? (
          <Form method="post" action={paths.shoppingList()}>
            <input type="hidden" name="redirectTo" value={returnTo} />
            <button type="submit" name="intent" value="clear-checked" className="button button--ghost button--small">
              Clear checked
            </button>
          </Form>
        ) : null}
        {confirmingClear ? (
          <Form method="post" action={paths.shoppingList()} className="shopping-page__confirm" role="alertdialog" aria-label="Clear the shopping list">
            <p>Clear your whole shopping list?</p>
            <input type="hidden" name="confirm" value="yes" />
            <input type="hidden" name="redirectTo" value={paths.shoppingList()} />
            <button type="submit" name="intent" value="clear" className="button button--danger button--small">
              Clear list
            </button>
            <Link to={returnTo} className="button button--ghost button--small">
              Cancel
            </Link>
          </Form>
        ) : (
          <Link to={`${paths.shoppingList()}?confirm=clear`} className="button button--ghost button--small">
            Clear list
          </Link>
        )}
      </div>
      {merged ? (
        <>
          <ul className="shopping-items" aria-label="Items">
            {merged.byItem.map((item) => (
              <ItemToggle key={`${item.key} ${item.unit}`} ids={item.itemIds} text={item.text} checked={item.checked} returnTo={returnTo} />
            ))}
          </ul>
          {merged.unmerged.length > 0 ? (
            <section aria-labelledby="as-written" className="shopping-unmerged">
              <h2 id="as-written">As written</h2>
              {merged.unmerged.map((group) => (
                <div key={group.recipeId}>
                  <h3>{group.recipeName}</h3>
                  <ul className="shopping-items">
                    {group.items.map((item) => (
                      <ItemToggle key={item.id} ids={[item.id]} text={item.text} checked={item.checked} returnTo={returnTo} />
                    ))}
                  </ul>
                </div>
              ))}
            </section>
          ) : null}
        </>
      ) : (
        recipes.map((recipe) => (
          <section key={recipe.recipe_id} className="shopping-recipe" aria-labelledby={`shop-${recipe.recipe_id}`}>
            <div className="shopping-recipe__head">
              <h2 id={`shop-${recipe.recipe_id}`}>
                <Link to={paths.recipe(recipe.recipe_id)}>{recipe.name}</Link>
                {recipe.serves !== null ? <span className="shopping-recipe__serves"> · serves {recipe.serves}</span> : null}
                {recipe.scale !== null ? <span className="shopping-recipe__serves"> · {scaleLabel(recipe.scale)}</span> : null}
              </h2>
              <Form method="post" action={paths.shoppingList()}>
                <input type="hidden" name="redirectTo" value={returnTo} />
                <input type="hidden" name="recipeId" value={recipe.recipe_id} />
                <button type="submit" name="intent" value="remove-recipe" className="button button--ghost button--small" aria-label={`Remove ${recipe.name}`}>
                  Remove
                </button>
              </Form>
            </div>
            <ul className="shopping-items">
              {recipe.items.map((item) => (
                <ItemToggle key={item.id} ids={[item.id]} text={item.text} checked={item.checked} returnTo={returnTo} />
              ))}
            </ul>
          </section>
        ))
      )}
    </section>
  );
}
