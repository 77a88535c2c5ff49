import { redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useFetcher, useLoaderData, useSearchParams } from "@remix-run/react";
import clsx from "clsx";

import { EmptyState } from "~/components/empty-state";
import { FormAlert } from "~/components/forms";
import { FetcherForm, fetcherError, InlineError } from "~/components/fetcher-form";
import { InteractionFields } from "~/components/interaction-fields";
import { Link } from "~/components/link";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage } from "~/lib/refusal";
import { scaleLabel } from "~/lib/scale";
import { readForm } from "~/server/http/body.server";
import { db } from "~/server/db/connection.server";
import { readIntent } from "~/server/http/responses.server";
import { isFetcherSubmission, redirectBack, refuseInteraction } from "~/server/http/interaction.server";
import {
  addRecipeToList,
  clearChecked,
  clearList,
  getShoppingList,
  removeRecipeFromList,
  setItemsChecked,
} from "~/server/services/shopping.server";
import { getLens, requireUser } from "~/server/auth/session.server";
import { stylesheetLinks, type StyledRoute } from "~/root";
import shoppingStyles from "~/styles/shopping.css";

// The shopping list (docs/rules.md#shopping-list): every recipe put on it, by recipe or merged by
// item; check items off, clear the checked ones, remove a recipe, clear the list. Each control is
// a form post that comes back here (or to the recipe it was added from); with JavaScript the
// check marks answer at once.

export const meta: MetaFunction = () => [{ title: "Shopping List · ReciPals" }];
export const handle: StyledRoute = { styles: [shoppingStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  // Merged only for the view that shows it: the page's data carries each line once.
  const byItem = new URL(request.url).searchParams.get("view") === "item";
  const { hidden } = await getLens(request);
  return { ...(await getShoppingList(user.id, db, { merge: byItem, without: hidden })), byItem };
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readForm(request);
  const back = formData.get("redirectTo");
  const user = await requireUser(request, { redirectTo: typeof back === "string" ? back : paths.shoppingList() });
  const intent = readIntent(formData);
  const recipeId = String(formData.get("recipeId") ?? "");
  let outcome;
  if (intent === "add") outcome = await addRecipeToList({ actor: user, recipeId, serves: formData.get("serves") ?? undefined, scale: formData.get("scale") ?? undefined });
  else if (intent === "check" || intent === "uncheck") outcome = await setItemsChecked({ actor: user, itemIds: formData.getAll("id"), checked: intent === "check" });
  else if (intent === "clear-checked") outcome = await clearChecked({ actor: user });
  else if (intent === "remove-recipe") outcome = await removeRecipeFromList({ actor: user, recipeId });
  else if (intent === "clear" && formData.get("confirm") === "yes") outcome = await clearList({ actor: user });
  // Clearing without the confirmation's answer asks for it first (docs/rules.md#confirmations).
  else if (intent === "clear") return redirect(`${paths.shoppingList()}?confirm=clear`);
  else return refuseInteraction(formData, "Unknown action.", 400);
  if (!outcome.ok) return refuseInteraction(formData, outcome.message, outcome.status);
  if (isFetcherSubmission(formData)) return { ok: true as const, intent };
  return redirectBack(formData, paths.shoppingList());
}

/** One line to buy: a check mark that is a form post (several ids when it merges several lines). */
function ItemToggle({ ids, text, checked, returnTo }: { ids: string[]; text: string; checked: boolean; returnTo: string }) {
  const fetcher = useFetcher<{ ok: true } | { error: string }>();
  const pending = fetcher.formData?.get("intent");
  const shown = pending ? pending === "check" : checked;
  const error = fetcherError(fetcher);
  return (
    <li className={clsx("shopping-item", shown && "is-checked")}>
      <FetcherForm fetcher={fetcher} action={paths.shoppingList()} preventScrollReset>
        <InteractionFields redirectTo={returnTo} />
        {ids.map((id) => (
          <input key={id} type="hidden" name="id" value={id} />
        ))}
        <button type="submit" name="intent" value={shown ? "uncheck" : "check"} className="shopping-item__toggle" aria-pressed={shown}>
          <span className="shopping-item__box" aria-hidden="true" />
          <span className="shopping-item__text">{text}</span>
        </button>
      </FetcherForm>
      <InlineError message={error} />
    </li>
  );
}

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
