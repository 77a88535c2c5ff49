// "Add to shopping list" on a recipe page, at the servings or multiplier shown.
import { useFetcher, useSearchParams } from "@remix-run/react";

import { FetcherForm, fetcherError, InlineError } from "~/components/fetcher-form";
import { InteractionFields } from "~/components/interaction-fields";
import { Link } from "~/components/link";
import { withNotice } from "~/lib/notices";
import { paths } from "~/lib/paths";

/**
 * Puts the ingredients on the shopping list at the servings or multiplier shown (docs/rules.md#shopping-list);
 * a recipe already there is updated. A plain post comes back here with a notice; with JavaScript
 * the button says so in place.
 */
export function AddToShoppingList({ recipeId, serves, scale, onList }: { recipeId: string; serves: number | null; scale: number | null; onList: boolean }) {
  const fetcher = useFetcher<{ ok: true } | { error: string }>();
  const here =
    serves !== null ? `${paths.recipe(recipeId)}?serves=${serves}` : scale !== null ? `${paths.recipe(recipeId)}?scale=${scale}` : paths.recipe(recipeId);
  // A plain post comes back here (#shopping) with the notice, shown beside the button.
  const [query] = useSearchParams();
  const added = (fetcher.state === "idle" && fetcher.data && "ok" in fetcher.data) || (fetcher.state === "idle" && !fetcher.data && query.get("notice") === "shopping-added");
  const error = fetcherError(fetcher);
  return (
    <FetcherForm fetcher={fetcher} action={paths.shoppingList()} className="recipe__shopping" id="shopping" preventScrollReset>
      <InteractionFields redirectTo={withNotice(here, "shopping-added")} anchor="shopping" />
      <input type="hidden" name="recipeId" value={recipeId} />
      {serves === null ? null : <input type="hidden" name="serves" value={serves} />}
      {scale === null ? null : <input type="hidden" name="scale" value={scale} />}
      <button type="submit" name="intent" value="add" className="button button--ghost" disabled={fetcher.state !== "idle"}>
        {fetcher.state !== "idle" ? "Adding..." : onList || added ? "Update shopping list" : "Add to shopping list"}
      </button>
      {added ? (
        <p role="status" className="recipe__shopping-done">
          Added to your <Link to={paths.shoppingList()}>shopping list</Link>.
        </p>
      ) : null}
      <InlineError message={error} />
    </FetcherForm>
  );
}
