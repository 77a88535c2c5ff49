// The Search page (/ReciPals/Search): the address's contract and the component tree; what the
// loader finds is app/server/pages/search-page.server.ts.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  isRouteErrorResponse,
  useLoaderData,
  useLocation,
  useNavigation,
  useSearchParams,
  type ClientLoaderFunctionArgs,
} from "@remix-run/react";
import { useRef } from "react";

import { EmptyState } from "~/components/empty-state";
import { Link } from "~/components/link";
import { SearchForm } from "~/components/search-form";
import { RemotePersonCard } from "~/components/remote-person-card";
import { PersonCard, RecipeResult, useMoreRecipes } from "~/components/search-results";
import { useChangeEffect, useDelayedFlag, useHydrated } from "~/lib/hooks";
import { paths } from "~/lib/paths";
import { SEARCH_MESSAGES } from "~/lib/search-navigation";
import { stylesheetLinks, type StyledRoute } from "~/root";
import { loadSearchPage, type ShownRecipe } from "~/server/pages/search-page.server";
import type { RecipePage, UserCard } from "~/server/queries/search.server";
import searchStyles from "~/styles/search.css";

export const handle: StyledRoute = { styles: [searchStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const meta: MetaFunction = () => [{ title: "Search · ReciPals" }];

const PEOPLE_LOADING_DELAY_MS = 300;

export { shuffledCopies } from "~/server/pages/search-page.server";

export const loader = ({ request, context }: LoaderFunctionArgs) => loadSearchPage(request, context);

export type SearchData = Awaited<ReturnType<typeof clientLoader>>;

/**
 * In the browser every search goes through here: a dropped connection or a failed answer becomes
 * the message (docs/rules.md#search-screen) on the page instead of an error page.
 */
export async function clientLoader({ request, serverLoader }: ClientLoaderFunctionArgs) {
  try {
    return await serverLoader<typeof loader>();
  } catch (error) {
    const params = new URL(request.url).searchParams;
    const q = (params.get("q") ?? "").trim();
    const answered = error instanceof Response || isRouteErrorResponse(error);
    return {
      q,
      page: 1,
      seed: Number(params.get("seed")) || 1,
      recipes: { items: [], page: 1, hasMore: false } as RecipePage<ShownRecipe>,
      people: [] as UserCard[],
      remote: null,
      handle: false,
      error: !answered ? SEARCH_MESSAGES.failed : q ? SEARCH_MESSAGES.recipes : SEARCH_MESSAGES.list,
    };
  }
}

export default function SearchRoute() {
  const data = useLoaderData<typeof clientLoader>();
  const navigation = useNavigation();
  const location = useLocation();
  const hydrated = useHydrated();
  const input = useRef<HTMLInputElement>(null);

  // The address is the only state: typing submits the GET form (debounced), each search a
  // navigation that replaces the previous one in history after the first, so Back returns to
  // where the visit began. A newer search cancels an older one still loading.
  // Results for a query the box did not send (Back, Forward, a link) put that query in the box;
  // the first render keeps what may have been typed before hydration, and results for what the
  // box sent leave it alone (the person may have typed on).
  const sent = useRef<string | null>(null);
  useChangeEffect(data, () => {
    if (sent.current !== data.q && input.current) input.current.value = data.q;
    sent.current = null;
  });

  // Searching: this page is loading another query.
  const pendingQuery =
    navigation.state === "loading" && navigation.location.pathname === location.pathname
      ? (new URLSearchParams(navigation.location.search).get("q") ?? "").trim()
      : null;
  // An empty query searches no people: nothing to wait for there.
  const slowPeople = useDelayedFlag(Boolean(pendingQuery), PEOPLE_LOADING_DELAY_MS, pendingQuery ?? undefined);

  const more = useMoreRecipes(data);

  return (
    <section className="search-page">
      <h1 className="visually-hidden">Search</h1>
      <SearchForm q={data.q} inputRef={input} live={hydrated} onSent={(query) => (sent.current = query)} />
      {data.error ? (
        <p className="form-alert" role="alert">
          {data.error}
        </p>
      ) : null}

      <section className="search-section" aria-labelledby="search-people">
        <h2 id="search-people">People</h2>
        {slowPeople ? (
          <p className="search-status" role="status">
            Loading users...
          </p>
        ) : data.q === "" ? (
          <p className="search-empty">Search for a username or a name to find people.</p>
        ) : data.people.length === 0 && !data.remote ? (
          data.error ? null : <p className="search-empty">No users found matching &quot;{data.q}&quot;</p>
        ) : (
          <>
            {/* Someone on another server, found by their handle (docs/federation.md). */}
            {data.remote ? <RemotePersonCard person={data.remote} /> : null}
            {data.people.length > 0 ? (
              <ul className="person-list">
                {data.people.map((person) => (
                  <li key={person.id}>
                    <PersonCard person={person} />
                  </li>
                ))}
              </ul>
            ) : null}
          </>
        )}
      </section>

      {/* A handle (`@name@host`) searches people only. */}
      {data.handle ? null : (
        <section
          className="search-section"
          aria-labelledby="search-recipes"
          aria-busy={pendingQuery !== null ? true : undefined}
        >
          <h2 id="search-recipes">Recipes</h2>
          {more.items.length === 0 ? (
            data.error ? null : (
              data.q ? (
                <EmptyState
                  title={`No recipes found matching "${data.q}"`}
                  text="Check the spelling, try fewer words, or search for an ingredient or a cuisine instead."
                  action={{ to: paths.home(), label: "Browse the feed" }}
                />
              ) : (
                <EmptyState title="No recipes yet." text="Be the first to share one." action={{ to: paths.create(), label: "Create a recipe" }} />
              )
            )
          ) : (
            <ul className="recipe-grid">
              {more.items.map((recipe) => (
                <li key={recipe.recipe_id}>
                  <RecipeResult recipe={recipe} />
                </li>
              ))}
            </ul>
          )}
          {more.error ? (
            <p className="form-alert" role="alert">
              {more.error}
            </p>
          ) : null}
          {more.hasMore ? (
            <p className="search-more">
              <Link
                to={more.href}
                className="button button--ghost"
                preventScrollReset
                aria-busy={more.loading || undefined}
                onClick={(event) => {
                  // With JavaScript the next page is appended in place (even while the page still hydrates); without it, the link opens it.
                  event.preventDefault();
                  more.load();
                }}
              >
                {more.loading ? "Loading…" : "Load more"}
              </Link>
            </p>
          ) : null}
        </section>
      )}
    </section>
  );
}

/** Anything the loader did not catch (a dropped connection, a server error): the form and an alert. */
export function ErrorBoundary() {
  const [searchParams] = useSearchParams();
  return (
    <section className="search-page">
      <h1 className="visually-hidden">Search</h1>
      <SearchForm q={searchParams.get("q") ?? ""} />
      <p className="form-alert" role="alert">
        {SEARCH_MESSAGES.failed}
      </p>
    </section>
  );
}
