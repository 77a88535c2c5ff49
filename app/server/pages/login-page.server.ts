// Sign in (/ReciPals/Account/Login) and sign out (/ReciPals/Account/Logout): who may open each
// page, and what their forms do. The rules (the throttle, the session) are auth's.
import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { paths, safeRedirect } from "~/lib/paths";
import { LimitReachedError } from "~/server/auth/limits.server";
import { createUserSession, getUserId, logout, requireAnonymous } from "~/server/auth/session.server";
import { authenticateForm, LoginError, throttledSignIn } from "~/server/auth/sign-in.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { readForm } from "~/server/http/body.server";
import { keptFields, type FormFailure } from "~/server/http/forms.server";
import { clientAddress } from "~/server/http/ip.server";

/** The sign-in page, for visitors only (someone signed in goes home). */
export async function loadLoginPage(request: Request, context: AppLoadContext) {
  await requireAnonymous(request);
  // Nothing from the database: no write changes this page.
  scopeSharedCache(context);
  return null;
}

/** A sign-in: a session and on to `redirectTo`, or the form again with why (429 with Retry-After when throttled). */
export async function loginPageAction(request: Request, context: AppLoadContext) {
  // Read once, within the form limit; remix-auth's form strategy then reads this copy.
  const formData = await readForm(request);
  const redirectTo = safeRedirect(formData.get("redirectTo"), paths.home());
  const username = formData.get("username");
  const subject = { username: typeof username === "string" ? username : "", address: clientAddress(context) };
  try {
    const user = await throttledSignIn(subject, () => authenticateForm(request, formData));
    return await createUserSession({ request, userId: user.id, redirectTo });
  } catch (error) {
    if (error instanceof LimitReachedError) {
      const failure: FormFailure<"username" | "password"> = {
        formError: error.message,
        fieldErrors: {},
        fields: keptFields(formData, ["username"]),
      };
      return data(failure, { status: 429, headers: { "Retry-After": String(error.retryAfterSeconds) } });
    }
    if (!(error instanceof LoginError)) throw error;
    const failure: FormFailure<"username" | "password"> = {
      formError: error.message,
      fieldErrors: error.field ? { [error.field]: error.message } : {},
      fields: keptFields(formData, ["username"]),
    };
    return data(failure, { status: error.status });
  }
}

// Signing out changes state, so it is a POST only. A GET of this address sends a visitor home;
// someone signed in gets a page with the button — where a sign-out the server refused before
// its action ran (app/lib/refusal.ts) says why.
/** The sign-out page: a visitor is sent home, someone signed in gets the button. */
export async function loadLogoutPage(request: Request) {
  if (!(await getUserId(request))) throw redirect(paths.home());
  return null;
}

/** A sign-out: this session ends, or every session of the account ("Sign out everywhere"). */
export async function logoutPageAction(request: Request) {
  const formData = await readForm(request);
  // "Sign out everywhere" (one's own profile editor) ends every session of the account.
  return logout(request, { everywhere: formData.get("intent") === "everywhere" });
}
