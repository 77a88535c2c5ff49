import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { useId } from "react";

import { Link } from "~/components/link";
import { THEME_CHOICES, THEME_MESSAGES, themeReturnTo } from "~/lib/theme";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { readForm } from "~/server/http/body.server";
import { themeCookie, ThemeFormSchema, themeOf } from "~/server/http/cookies.server";

// The theme choice (docs/rules.md#theme), for visitors and people signed in alike:
// /ReciPals/Theme?returnTo=/ReciPals/… A plain form posted as a whole page, with JavaScript or
// without: the next page comes from the server already in the new theme.

export const meta: MetaFunction = () => [{ title: "Theme · ReciPals" }];

export function loader({ request, context }: LoaderFunctionArgs) {
  // Nothing from the database: no write changes this page. A visitor's copy (no theme cookie,
  // so System) may be shared; a chosen theme makes the request personal (cookies.server.ts).
  scopeSharedCache(context);
  return {
    theme: themeOf(request.headers.get("Cookie")),
    returnTo: themeReturnTo(new URL(request.url).searchParams.get("returnTo")),
    // The texts travel as data: app/lib/theme.ts sits in the JavaScript of every page (the top
    // bar's link), and only this page needs them.
    choices: THEME_CHOICES,
    intro: THEME_MESSAGES.intro,
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request);
  const parsed = ThemeFormSchema.safeParse({ theme: form.get("theme") ?? undefined });
  // Anything but the three choices: the page again with the message, and the cookie as it was.
  if (!parsed.success) return data({ message: THEME_MESSAGES.invalid }, { status: 400 });
  // 303: the browser follows with a GET of the page it came from.
  return redirect(themeReturnTo(form.get("returnTo")), { status: 303, headers: { "Set-Cookie": themeCookie(parsed.data.theme) } });
}

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
