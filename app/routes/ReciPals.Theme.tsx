// The theme choice (/ReciPals/Theme?returnTo=/ReciPals/…, docs/rules.md#theme), for visitors and
// people signed in alike. A plain form posted as a whole page, with JavaScript or without: the
// next page comes from the server already in the new theme. The address's contract and the form;
// what it shows and what a choice does is app/server/pages/theme-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { useId } from "react";

import { Link } from "~/components/link";
import { loadThemePage, themePageAction } from "~/server/pages/theme-page.server";

export const meta: MetaFunction = () => [{ title: "Theme · ReciPals" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadThemePage(request, context);

export const action = ({ request }: ActionFunctionArgs) => themePageAction(request);

export default function ThemeRoute() {
  const { theme, returnTo, choices, intro } = useLoaderData<typeof loader>();
  const failed = useActionData<typeof action>();
  const introId = useId();
  const alertId = useId();
  return (
    <section className="auth-card" aria-labelledby="theme-heading">
      <h1 id="theme-heading">Theme</h1>
      {/* A plain form, not Remix's: the whole document comes back, rendered in the new theme. */}
      <form method="post" className="stack">
        <p className="field__hint" id={introId}>
          {intro}
        </p>
        {failed ? (
          <p className="form-alert" role="alert" id={alertId}>
            {failed.message}
          </p>
        ) : null}
        <input type="hidden" name="returnTo" value={returnTo} />
        <fieldset className="field" aria-describedby={failed ? `${introId} ${alertId}` : introId}>
          <legend>Colours</legend>
          {choices.map(({ value, label }) => (
            <label key={value} className="radio">
              <input type="radio" name="theme" value={value} defaultChecked={theme === value} required /> {label}
            </label>
          ))}
        </fieldset>
        <div className="actions">
          <Link to={returnTo} className="button button--ghost">
            Cancel
          </Link>
          <button type="submit" className="button">
            Save
          </button>
        </div>
      </form>
    </section>
  );
}
