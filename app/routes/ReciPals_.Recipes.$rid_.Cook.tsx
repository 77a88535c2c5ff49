// Cook mode (docs/rules.md#cook-mode): /ReciPals/Recipes/{rid}/Cook?step=N, a page of its own that
// fills the screen: `ReciPals_` keeps it out of the site's layout (no navigation around it), the
// trailing `$rid_` out of the recipe page's. Every step is a server-rendered page with
// plain links, so it works without JavaScript; with it, arrow keys and swipes move between steps,
// steps' durations become timers, and the screen can be kept on. What a step shows is
// app/server/pages/cook-page.server.ts.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse, useLoaderData, useRouteError } from "@remix-run/react";

import { CookLink, StepText, useArrowKeys, useGo, useSwipe } from "~/components/cook-navigation";
import { CookTimerPanel, StepTimerButtons, useCookTimers } from "~/components/cook-timers";
import { KeepScreenOn } from "~/components/cook-wake-lock";
import { ErrorPage } from "~/components/error-page";
import { useHydrated } from "~/lib/hooks";
import { stylesheetLinks, type StyledRoute } from "~/root";
import { loadCookPage } from "~/server/pages/cook-page.server";
import cookStyles from "~/styles/cook.css";

export const handle: StyledRoute = { styles: [cookStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: "Recipe not found · ReciPals" }];
  // One page per step of a recipe page that is indexed already: search engines need none of them.
  return [{ title: `Cook: ${data.recipe.name}` }, { name: "robots", content: "noindex" }];
};

export const loader = ({ request, params, context }: LoaderFunctionArgs) => loadCookPage(request, params.rid ?? "", context);

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
    <main className="shell__main shell__main--full" id="main" tabIndex={-1}>
      <article className="cook" data-cook-steps={offline.steps} data-cook-version={offline.version} {...swipe}>
        <header className="cook__header">
          <CookLink to={links.back} go={go} className="cook__back">
            Back to recipe
          </CookLink>
          <p className="cook__eyebrow">Cook mode</p>
          <h1 className="cook__name">{recipe.name}</h1>
          <KeepScreenOn />
        </header>

        {/* Running timers stay in view at the top while the step is read (sticky). */}
        <CookTimerPanel timers={timers} />

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
              {hydrated && offered.length > 0 ? <StepTimerButtons durations={offered} step={step} timers={timers} /> : null}
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
    </main>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  // The loader's own words: 'Recipe not found.', or 'This recipe is not available.' across a block.
  if (isRouteErrorResponse(error) && error.status === 404) return <ErrorPage status={404} message={typeof error.data === "string" && error.data ? error.data : "Recipe not found."} />;
  throw error;
}
