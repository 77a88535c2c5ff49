// The Search page's results: recipe cards (with `Load more` appending pages in place) and people.
import { useFetcher } from "@remix-run/react";
import { useState } from "react";

import { Link } from "~/components/link";
import { PersonLink } from "~/components/person-link";
import { Photo } from "~/components/photo";
import { cookSummary, cookSummaryLabel } from "~/lib/cooks";
import { useChangeEffect } from "~/lib/hooks";
import { paths } from "~/lib/paths";
import type { SearchData, clientLoader } from "~/routes/ReciPals.Search";
import type { ShownRecipe } from "~/server/pages/search-page.server";
import type { RecipePage, UserCard } from "~/server/queries/search.server";

export function RecipeResult({ recipe }: { recipe: ShownRecipe }) {
  return (
    <Link to={paths.recipe(recipe.recipe_id)} className="recipe-result">
      {recipe.photo ? (
        <Photo className="recipe-result__photo" src={recipe.photo} placeholder={recipe.placeholder} slot="card" alt={recipe.name} width={320} height={240} />
      ) : (
        <span className="recipe-result__photo recipe-result__photo--empty" aria-hidden="true" />
      )}
      <span className="recipe-result__body">
        <span className="recipe-result__author">{recipe.author?.username ?? "Unknown User"}</span>
        <span className="recipe-result__name">{recipe.name}</span>
        {recipe.total_time ? <span className="recipe-result__time">Total Time: {recipe.total_time}</span> : null}
        {recipe.cooks ? (
          <span className="recipe-result__cooks">
            <span aria-hidden="true">{cookSummary(recipe.cooks)}</span>
            <span className="visually-hidden">{cookSummaryLabel(recipe.cooks)}</span>
          </span>
        ) : null}
        <span className="recipe-result__description">{recipe.description}</span>
      </span>
    </Link>
  );
}

export function PersonCard({ person }: { person: UserCard }) {
  return (
    <PersonLink person={person} size={48} className="person-card" />
  );
}

/**
 * The recipe list with the pages `Load more` appended (JavaScript) after the shown page.
 * New results (another query or seed) start over.
 */
export function useMoreRecipes(data: SearchData) {
  const fetcher = useFetcher<typeof clientLoader>();
  const [appended, setAppended] = useState<{ base: SearchData; pages: RecipePage<ShownRecipe>[] }>({ base: data, pages: [] });
  const pages = appended.base === data ? appended.pages : [];
  if (appended.base !== data) setAppended({ base: data, pages: [] });

  const answer = fetcher.data;
  useChangeEffect(answer, () => {
    if (!answer || answer.error || answer.q !== data.q || answer.seed !== data.seed) return;
    setAppended((current) => {
      if (current.base !== data) return current;
      const lastPage = current.pages.at(-1)?.page ?? data.recipes.page;
      return answer.recipes.page === lastPage + 1 ? { base: data, pages: [...current.pages, answer.recipes] } : current;
    });
  });

  const last = pages.at(-1) ?? data.recipes;
  const seen = new Set<string>();
  const items = [data.recipes, ...pages]
    .flatMap((page) => page.items)
    .filter((item) => (seen.has(item.recipe_id) ? false : (seen.add(item.recipe_id), true)));
  const params = new URLSearchParams();
  if (data.q) params.set("q", data.q);
  params.set("page", String(last.page + 1));
  params.set("seed", String(data.seed));
  const href = `${paths.search()}?${params}`;
  return {
    items,
    hasMore: last.hasMore,
    href,
    loading: fetcher.state !== "idle",
    error: answer?.error && answer.q === data.q ? answer.error : null,
    load: () => {
      if (fetcher.state === "idle") fetcher.load(href);
    },
  };
}
