import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  Form,
  isRouteErrorResponse,
  useFetcher,
  useLoaderData,
  useLocation,
  useNavigation,
  useSearchParams,
  useSubmit,
  type ClientLoaderFunctionArgs,
} from "@remix-run/react";
import { useEffect, useRef, useState, type ChangeEvent, type RefObject } from "react";

import { useChangeEffect, useHydrated } from "~/lib/hooks";
import { MAX_QUERY_LENGTH } from "~/lib/limits";
import { paths } from "~/lib/paths";
import type { RecipeCard, RecipePage, UserCard } from "~/server/queries/search.server";
import { cookSummary, cookSummaryLabel } from "~/lib/cooks";
import { searchRecipes, searchUsers } from "~/server/queries/search.server";
import { CacheScope } from "~/server/cache/scopes.server";
import { getLens } from "~/server/auth/session.server";
import { scopeSharedCache, SHUFFLED_COPIES, withholdFromSharedCache } from "~/server/cache/shared-cache.server";
import { parseSearchParams } from "~/server/validation/search.server";
import { stylesheetLinks, type StyledRoute } from "~/root";
import searchStyles from "~/styles/search.css";
import { PersonLink } from "~/components/person-link";
import { EmptyState } from "~/components/empty-state";
import { Link } from "~/components/link";
import { Photo } from "~/components/photo";
import { withPlaceholders } from "~/server/http/photos.server";

export const handle: StyledRoute = { styles: [searchStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const meta: MetaFunction = () => [{ title: "Search · ReciPals" }];

/** The messages (docs/rules.md#search-screen) for the search screen's alert box. */
const MESSAGES = {
  failed: "Search failed",
  list: "Failed to fetch recipes",
  recipes: "Failed to search recipes",
} as const;

const PLACEHOLDER = "Search recipes, ingredients, users...";
const TYPING_DELAY_MS = 250;
const PEOPLE_LOADING_DELAY_MS = 300;

// An empty search shows recipes in a fresh shuffle unless the address fixes it (`seed`): the shared
// cache keeps several orders of it (app/server/http/route-rules.server.ts).
export const shuffledCopies = (search: URLSearchParams) => (search.has("seed") || (search.get("q") ?? "").trim() !== "" ? 1 : SHUFFLED_COPIES);

/** A result card with its photo's inline placeholder (app/server/media/placeholders.server.ts). */
type ShownRecipe = RecipeCard & { placeholder: string | null };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { q, page, seed } = parseSearchParams(new URL(request.url).searchParams);
  const { hidden } = await getLens(request);
  let recipes: RecipePage<ShownRecipe> = { items: [], page, hasMore: false };
  let people: UserCard[] = [];
  let error: string | null = null;
  // A failing half is reported on the page, not as an error page: the other half still shows.
  try {
    const found = await searchRecipes({ q, page, seed, without: hidden });
    recipes = { ...found, items: await withPlaceholders(found.items, (recipe) => recipe.photo) };
  } catch (cause) {
    console.error(cause);
    error = q ? MESSAGES.recipes : MESSAGES.list;
  }
  if (q) {
    try {
      people = await searchUsers({ q, without: hidden });
    } catch (cause) {
      console.error(cause);
      error ??= MESSAGES.failed;
    }
  }
  // A failure is this moment's, not the page's: never kept for the next visitors.
  if (error) withholdFromSharedCache(context);
  scopeSharedCache(context, [CacheScope.search, q ? CacheScope.people : null]);
  return { q, page, seed, recipes, people, error };
}

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
      error: !answered ? MESSAGES.failed : q ? MESSAGES.recipes : MESSAGES.list,
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
        ) : data.error && data.people.length === 0 ? null : data.people.length === 0 ? (
          <p className="search-empty">No users found matching &quot;{data.q}&quot;</p>
        ) : (
          <ul className="person-list">
            {data.people.map((person) => (
              <li key={person.id}>
                <PersonCard person={person} />
              </li>
            ))}
          </ul>
        )}
      </section>

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
    </section>
  );
}

/**
 * The GET form: without JavaScript it submits on Enter or `Search`. With JavaScript (`live`) it
 * also submits as you type, debounced; every search after the first replaces its history entry.
 */
function SearchForm({
  q,
  inputRef,
  live = false,
  onSent,
}: {
  q: string;
  inputRef?: RefObject<HTMLInputElement>;
  live?: boolean;
  /** Told each query the box sends (its results then leave the box alone). */
  onSent?: (query: string) => void;
}) {
  const submit = useSubmit();
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  const search = (form: HTMLFormElement) => {
    clearTimeout(timer.current);
    const query = [...String(new FormData(form).get("q") ?? "").trim()].slice(0, MAX_QUERY_LENGTH).join("");
    onSent?.(query);
    submit(query ? { q: query } : {}, {
      method: "get",
      action: paths.search(),
      replace: new URLSearchParams(window.location.search).has("q"),
      preventScrollReset: true,
    });
  };

  return (
    <Form
      method="get"
      action={paths.search()}
      role="search"
      className="search-form"
      onSubmit={(event) => {
        if (!live) return;
        event.preventDefault();
        search(event.currentTarget);
      }}
    >
      <label htmlFor="search-q" className="visually-hidden">
        Search recipes, ingredients and users
      </label>
      <input
        ref={inputRef}
        id="search-q"
        type="search"
        name="q"
        placeholder={PLACEHOLDER}
        defaultValue={q}
        maxLength={MAX_QUERY_LENGTH}
        autoComplete="off"
        enterKeyHint="search"
        onChange={(event: ChangeEvent<HTMLInputElement>) => {
          if (!live) return;
          const form = event.currentTarget.form;
          clearTimeout(timer.current);
          if (form) timer.current = setTimeout(() => search(form), TYPING_DELAY_MS);
        }}
      />
      <button type="submit" className="button">
        Search
      </button>
    </Form>
  );
}

function RecipeResult({ recipe }: { recipe: ShownRecipe }) {
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

function PersonCard({ person }: { person: UserCard }) {
  return (
    <PersonLink person={person} size={48} className="person-card" />
  );
}

/** True once `active` has stayed true for `delayMs` (restarting whenever `restartKey` changes). */
function useDelayedFlag(active: boolean, delayMs: number, restartKey?: string): boolean {
  const [flag, setFlag] = useState(false);
  useEffect(() => {
    setFlag(false);
    if (!active) return;
    const timer = setTimeout(() => setFlag(true), delayMs);
    return () => clearTimeout(timer);
  }, [active, delayMs, restartKey]);
  return active && flag;
}

/**
 * The recipe list with the pages `Load more` appended (JavaScript) after the shown page.
 * New results (another query or seed) start over.
 */
function useMoreRecipes(data: SearchData) {
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

/** Anything the loader did not catch (a dropped connection, a server error): the form and an alert. */
export function ErrorBoundary() {
  const [searchParams] = useSearchParams();
  return (
    <section className="search-page">
      <h1 className="visually-hidden">Search</h1>
      <SearchForm q={searchParams.get("q") ?? ""} />
      <p className="form-alert" role="alert">
        {MESSAGES.failed}
      </p>
    </section>
  );
}
