// The theme choice (/ReciPals/Theme?returnTo=/ReciPals/…, docs/rules.md#theme), for visitors and
// people signed in alike: the choices, and the cookie a choice sets.
import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { THEME_CHOICES, THEME_MESSAGES, themeReturnTo } from "~/lib/theme";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { readForm } from "~/server/http/body.server";
import { themeCookie, ThemeFormSchema, themeOf } from "~/server/http/cookies.server";

/** The theme now chosen, where to go back to, and the page's texts. */
export function loadThemePage(request: Request, context: AppLoadContext) {
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

/** A choice: the theme cookie, then back to the page it came from; anything else, the page again with the message. */
export async function themePageAction(request: Request) {
  const form = await readForm(request);
  const parsed = ThemeFormSchema.safeParse({ theme: form.get("theme") ?? undefined });
  // Anything but the three choices: the page again with the message, and the cookie as it was.
  if (!parsed.success) return data({ message: THEME_MESSAGES.invalid }, { status: 400 });
  // 303: the browser follows with a GET of the page it came from.
  return redirect(themeReturnTo(form.get("returnTo")), { status: 303, headers: { "Set-Cookie": themeCookie(parsed.data.theme) } });
}
