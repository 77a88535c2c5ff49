// "Forgot password?" (/ReciPals/Account/Forgot), "Choose a new password" (/ReciPals/Account/Reset/{token})
// and "Confirm your email" (/ReciPals/Account/Verify/{token}) (docs/rules.md#account-email). The
// rules are the account mail service's.
import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { withNotice } from "~/lib/notices";
import { paths } from "~/lib/paths";
import { createUserSession, getUserId } from "~/server/auth/session.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { readForm } from "~/server/http/body.server";
import { clientAddress } from "~/server/http/ip.server";
import {
  ACCOUNT_MAIL_MESSAGES,
  confirmEmail,
  requestPasswordReset,
  resetPassword,
  resetTokenIsUsable,
  verifyTokenAddress,
} from "~/server/services/account-mail-service.server";

/** The form asking for a username or an address. */
export function loadForgotPage(context: AppLoadContext) {
  scopeSharedCache(context);
  return null;
}

/** Always the same answer (or why the form was refused), never waiting for the mail. */
export async function forgotPageAction(request: Request, context: AppLoadContext) {
  const formData = await readForm(request);
  const login = formData.get("login");
  const outcome = await requestPasswordReset({ login, from: clientAddress(context) });
  if (!outcome.ok) {
    return data({ sent: null, formError: outcome.message, login: typeof login === "string" ? login : "" }, { status: outcome.status, ...(outcome.status === 429 ? { headers: { "Retry-After": "600" } } : {}) });
  }
  return data({ sent: outcome.value.message, formError: null, login: "" });
}

/** "Choose a new password", or why the link no longer works. Never cached: the token is in the address. */
export async function loadResetPage(token: string) {
  // `linkInvalid`: the words the page shows when the link does not work (the service's own).
  return data({ usable: await resetTokenIsUsable(token), linkInvalid: ACCOUNT_MAIL_MESSAGES.linkInvalid }, { headers: { "Cache-Control": "private, no-store" } });
}

/** Sets the new password, ends every session, signs this browser in and goes to the profile. */
export async function resetPageAction(request: Request, token: string) {
  const formData = await readForm(request);
  const outcome = await resetPassword({ token, password: formData.get("password"), verifyPassword: formData.get("verifyPassword") });
  if (!outcome.ok) {
    const linkGone = outcome.message === ACCOUNT_MAIL_MESSAGES.linkInvalid;
    return data({ formError: linkGone ? outcome.message : null, fieldErrors: outcome.errors ?? {}, usable: !linkGone }, { status: outcome.status });
  }
  return createUserSession({ request, userId: outcome.value.userId, redirectTo: withNotice(paths.profile(outcome.value.userId), "password-changed") });
}

/** "Confirm {address}", or why the link no longer works: a button, so a mail scanner's visit confirms nothing. */
export async function loadVerifyPage(token: string) {
  return data({ email: await verifyTokenAddress(token), linkInvalid: ACCOUNT_MAIL_MESSAGES.linkInvalid }, { headers: { "Cache-Control": "private, no-store" } });
}

/** Confirms the address: on to the profile editor when signed in, else to sign in, with the news. */
export async function verifyPageAction(request: Request, token: string) {
  await readForm(request);
  const outcome = await confirmEmail(token);
  if (!outcome.ok) return data({ formError: outcome.message }, { status: outcome.status });
  const signedIn = await getUserId(request);
  return redirect(withNotice(signedIn === outcome.value.userId ? paths.profileEdit(signedIn) : paths.login(), "email-confirmed"));
}
