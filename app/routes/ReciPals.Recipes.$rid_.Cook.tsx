import { redirect, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse, useLoaderData, useNavigate, useRouteError } from "@remix-run/react";
import { useCallback, useEffect, useRef, type MouseEvent, type ReactNode, type TouchEvent } from "react";

import { CookTimerPanel, useCookTimers } from "~/components/cook-timers";
import { KeepScreenOn } from "~/components/cook-wake-lock";
import { ErrorPage } from "~/components/error-page";
import type { StepDuration } from "~/lib/cook-mode";
import { useHydrated } from "~/lib/hooks";
import { paths } from "~/lib/paths";
import { getLens } from "~/server/auth/session.server";
import { CacheScope } from "~/server/cache/scopes.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { invariantResponse } from "~/server/http/responses.server";
import { unitsOf } from "~/server/http/units.server";
import {
  contentVersion,
  convertStepTemperatures,
  cookAmounts,
  cookPath,
  findDurations,
  ingredientsInStep,
  presentIngredientLine,
  readStep,
  recipePathWith,
  scaleLabel,
} from "~/server/http/cook.server";
import { getRecipeDetail } from "~/server/queries/recipes.server";
import { isHidden, UNAVAILABLE_RECIPE } from "~/server/queries/visibility.server";
import { stylesheetLinks, type StyledRoute } from "~/root";
import cookStyles from "~/styles/cook.css";

// Cook mode (docs/rules.md#cook-mode): /ReciPals/Recipes/{rid}/Cook?step=N, a page of its own (the
// trailing _ keeps it out of the recipe page's layout). Every step is a server-rendered page with
// plain links, so it works without JavaScript; with it, arrow keys and swipes move between steps,
// steps' durations become timers, and the screen can be kept on.

export const handle: StyledRoute = { styles: [cookStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: "Recipe not found · ReciPals" }];
  // One page per step of a recipe page that is indexed already: search engines need none of them.
  return [{ title: `Cook: ${data.recipe.name}` }, { name: "robots", content: "noindex" }];
};

/** The reader's unit system (docs/rules.md#units), from the `recipals_units` cookie; anything else is no choice. */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const recipe = await getRecipeDetail(params.rid ?? "");
  invariantResponse(recipe, "Recipe not found.", 404);
  // What the recipe page shows and names (app/server/cache/scopes.server.ts).
  scopeSharedCache(context, [CacheScope.recipe(recipe.recipe_id)]);
  // The recipe page's rule (docs/rules.md#blocking-and-muting, #suspension): refused before the
  // step is read, so a refused viewer learns nothing, not even how many steps there are.
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, recipe.user_created)), UNAVAILABLE_RECIPE, 404);

  const { searchParams } = new URL(request.url);
  const amounts = cookAmounts(recipe.serves, searchParams);
  const total = recipe.steps.length;
  const { step, redirect: elsewhere } = readStep(searchParams.getAll("step"), total);
  if (elsewhere) throw redirect(cookPath(recipe.recipe_id, amounts, step));

  const system = unitsOf(request.headers.get("Cookie"));
  const rawText = step > 0 ? recipe.steps[step - 1]! : "";
  const text = system === null ? rawText : convertStepTemperatures(rawText, system);
  const lines = recipe.ingredients_sec.flatMap((section) => section.ingredients);
  const shown = (line: string) => presentIngredientLine(line, amounts.factor, system);
  const servesShown = recipe.serves === null ? null : (amounts.serves ?? recipe.serves);
  return {
    recipe: { id: recipe.recipe_id, name: recipe.name },
    step,
    total,
    text,
    durations: findDurations(text),
    // Matched on the lines as written (scaling does not change what they name), shown as the page shows them.
    mentioned: step > 0 ? ingredientsInStep(rawText, lines).map((index) => shown(lines[index]!)) : [],
    sections: recipe.ingredients_sec.map((section) => ({ id: section._id, title: section.title, lines: section.ingredients.map(shown) })),
    amountsNote:
      servesShown !== null ? `For ${servesShown} ${servesShown === 1 ? "serving" : "servings"}` : amounts.factor !== 1 ? `At ${scaleLabel(amounts.factor)}` : null,
    links: {
      previous: step > 1 ? cookPath(recipe.recipe_id, amounts, step - 1) : null,
      next: step > 0 && step < total ? cookPath(recipe.recipe_id, amounts, step + 1) : null,
      back: recipePathWith(recipe.recipe_id, amounts),
    },
    // For the service worker's offline copies of these pages (public/sw.js, app/lib/service-worker.ts).
    offline: {
      recipe: paths.recipe(recipe.recipe_id),
      steps: total,
      version: contentVersion([recipe.name, recipe.serves, recipe.steps, recipe.ingredients_sec.map((section) => [section.title, section.ingredients])]),
    },
  };
}

/**
 * Goes to another step. Offline (a saved recipe's pages kept by the service worker), a whole-page
 * load: a client navigation would ask the server for data, which the worker does not keep.
 */
function useGo(): (to: string) => void {
  const navigate = useNavigate();
  return useCallback(
    (to: string) => {
      if (navigator.onLine === false) window.location.assign(to);
      else navigate(to);
    },
    [navigate],
  );
}

/** A plain link (no JavaScript needed); with JavaScript, followed by `go` when a plain click. */
function CookLink({ to, go, className, rel, children }: { to: string; go: (to: string) => void; className?: string; rel?: string; children: ReactNode }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
    // Offline the browser loads the page itself, and the service worker answers it.
    if (navigator.onLine === false) return;
    event.preventDefault();
    go(to);
  };
  return (
    <a href={to} className={className} rel={rel} onClick={onClick}>
      {children}
    </a>
  );
}

/** Left/Right arrow keys move between steps, unless someone is typing or a key is held with them. */
function useArrowKeys(previous: string | null, next: string | null, go: (to: string) => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || /^(?:TEXTAREA|SELECT)$/.test(target.tagName))) return;
      if (target instanceof HTMLInputElement && target.type !== "checkbox") return;
      const to = event.key === "ArrowRight" ? next : event.key === "ArrowLeft" ? previous : null;
      if (!to) return;
      event.preventDefault();
      go(to);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [previous, next, go]);
}

/** A horizontal swipe: to the left for the next step, to the right for the previous one. */
function useSwipe(previous: string | null, next: string | null, go: (to: string) => void) {
  const from = useRef<{ x: number; y: number } | null>(null);
  return {
    onTouchStart: (event: TouchEvent) => {
      const touch = event.touches[0];
      from.current = event.touches.length === 1 && touch ? { x: touch.clientX, y: touch.clientY } : null;
    },
    onTouchEnd: (event: TouchEvent) => {
      const start = from.current;
      const touch = event.changedTouches[0];
      from.current = null;
      if (!start || !touch) return;
      const dx = touch.clientX - start.x;
      const dy = touch.clientY - start.y;
      // Clearly sideways and long enough: not a scroll, not a tap.
      if (Math.abs(dx) < 60 || Math.abs(dx) < 2 * Math.abs(dy)) return;
      const to = dx < 0 ? next : previous;
      if (to) go(to);
    },
  };
}

/** The step's text, its durations marked (they are the timers offered below it). */
function StepText({ text, durations }: { text: string; durations: StepDuration[] }) {
  const parts: ReactNode[] = [];
  let at = 0;
  durations.forEach((duration, index) => {
    if (duration.start > at) parts.push(text.slice(at, duration.start));
    parts.push(
      <strong key={index} className="cook__duration">
        {text.slice(duration.start, duration.end)}
      </strong>,
    );
    at = duration.end;
  });
  if (at < text.length) parts.push(text.slice(at));
  return <p className="cook__text">{parts}</p>;
}

export default function CookRoute() {
  const { recipe, step, total, text, durations, mentioned, sections, amountsNote, links, offline } = useLoaderData<typeof loader>();
  const hydrated = useHydrated();
  const go = useGo();
  useArrowKeys(links.previous, links.next, go);
  const swipe = useSwipe(links.previous, links.next, go);
  const timers = useCookTimers(recipe.id);
  // One button per different duration: "1-2 mins each side … 1-2 mins" is one timer.
  const offered = durations.filter((duration, index) => durations.findIndex((other) => other.label === duration.label) === index);

  return (
    <article className="cook" data-cook-steps={offline.steps} data-cook-version={offline.version} {...swipe}>
      <header className="cook__header">
        <CookLink to={links.back} go={go} className="cook__back">
          Back to recipe
        </CookLink>
        <p className="cook__eyebrow">Cook mode</p>
        <h1 className="cook__name">{recipe.name}</h1>
        <KeepScreenOn />
      </header>

      {total === 0 ? (
        <p className="notice cook__empty">This recipe has no steps yet.</p>
      ) : (
        <div className="cook__main">
          <section className="cook__step" aria-labelledby="cook-step-heading">
            {/* Announced when the step changes in place (arrow keys, swipes, links with JavaScript). */}
            <div aria-live="polite">
              <h2 id="cook-step-heading" className="cook__count">
                Step {step} of {total}
              </h2>
              <StepText text={text} durations={durations} />
            </div>
            {hydrated && offered.length > 0 ? (
              <div className="cook__start-timers">
                {offered.map((duration) => (
                  <button key={duration.label} type="button" className="button" onClick={() => timers.start(duration.label, step, duration.seconds)}>
                    Start timer {duration.label}
                  </button>
                ))}
              </div>
            ) : null}
            {mentioned.length > 0 ? (
              <div className="cook__mentioned">
                <h3>In this step</h3>
                <ul>
                  {mentioned.map((line, index) => (
                    <li key={index}>{line}</li>
                  ))}
                </ul>
              </div>
            ) : null}
            <nav className="cook__pager" aria-label="Steps">
              {links.previous ? (
                <CookLink to={links.previous} go={go} rel="prev" className="button button--ghost cook__page-link">
                  Previous step
                </CookLink>
              ) : (
                <span className="button button--ghost cook__page-link is-disabled" aria-hidden="true">
                  Previous step
                </span>
              )}
              {links.next ? (
                <CookLink to={links.next} go={go} rel="next" className="button cook__page-link">
                  Next step
                </CookLink>
              ) : (
                <span className="button cook__page-link is-disabled" aria-hidden="true">
                  Next step
                </span>
              )}
            </nav>
          </section>
          <CookTimerPanel timers={timers.timers} now={timers.now} onCancel={timers.cancel} onDismiss={timers.dismiss} />
          <section className="cook__ingredients" aria-labelledby="cook-ingredients-heading">
            <h2 id="cook-ingredients-heading">Ingredients</h2>
            {amountsNote ? <p className="cook__amounts">{amountsNote}</p> : null}
            {sections.map((section) => (
              <div key={section.id} className="cook__section">
                <h3>For the {section.title}</h3>
                <ul>
                  {section.lines.map((line, index) => (
                    <li key={index}>{line}</li>
                  ))}
                </ul>
              </div>
            ))}
          </section>
        </div>
      )}
    </article>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  // The loader's own words: 'Recipe not found.', or 'This recipe is not available.' across a block.
  if (isRouteErrorResponse(error) && error.status === 404) return <ErrorPage status={404} message={typeof error.data === "string" && error.data ? error.data : "Recipe not found."} />;
  throw error;
}
