// Sign-up, both steps (docs/rules.md#sign-up-draft): the details (/ReciPals/Account/Signup), held
// in a signed draft cookie, then the tags (/ReciPals/Account/SignupTags), which create the account.
import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { hashPassword } from "~/server/auth/password.server";
import { clearSignupDraft, commitSignupDraft, createUserSession, getSignupDraft, requireAnonymous } from "~/server/auth/session.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { readForm } from "~/server/http/body.server";
import { formValues, toFailure, type FormFailure } from "~/server/http/forms.server";
import { clientAddress } from "~/server/http/ip.server";
import { isUsernameTaken } from "~/server/queries/users.server";
import { changeEmail, checkNewEmail } from "~/server/services/account-mail-service.server";
import { createAccount, takeSignupSlot } from "~/server/services/users-service.server";
import {
  FILL_ALL_FIELDS,
  PASSWORDS_DONT_MATCH,
  SIGNUP_FIELDS,
  SignupSchema,
  USERNAME_TAKEN,
} from "~/server/validation/auth-schema.server";
import { readTags } from "~/server/validation/tags-schema.server";

/** The first step's form, for visitors only, with the name and username of a draft already held. */
export async function loadSignupPage(request: Request, context: AppLoadContext) {
  await requireAnonymous(request);
  // Nothing from the database (the draft is in a cookie: such a request is never shared).
  scopeSharedCache(context);
  // Coming back from the tags step keeps name and username (never the password).
  const draft = await getSignupDraft(request);
  return { name: draft?.name ?? "", username: draft?.username ?? "", email: draft?.email ?? "" };
}

/** The first step: checked details become the draft cookie and on to the tags step, or the form again with why. */
export async function signupPageAction(request: Request, context: AppLoadContext) {
  await requireAnonymous(request);
  const formData = await readForm(request);
  const parsed = SignupSchema.safeParse(formValues(formData, SIGNUP_FIELDS));
  if (!parsed.success) {
    return data(toFailure(parsed.error, formData, SIGNUP_FIELDS, [FILL_ALL_FIELDS, PASSWORDS_DONT_MATCH]), {
      status: 400,
    });
  }
  const { name, username, password } = parsed.data;
  // The email address is optional (docs/rules.md#account-email): checked here, kept in the draft.
  const typedEmail = String(formData.get("email") ?? "");
  const refuse = (status: 400 | 409, fieldErrors: Record<string, string>) =>
    data<FormFailure<(typeof SIGNUP_FIELDS)[number]>>({ formError: null, fieldErrors, fields: { name, username, email: typedEmail } }, { status });
  if (await isUsernameTaken(username)) return refuse(409, { username: USERNAME_TAKEN });
  const email = await checkNewEmail(typedEmail, null);
  if (!email.ok) return refuse(email.status === 409 ? 409 : 400, email.errors ?? { email: email.message });
  // Counted here, before the costly hash (docs/rules.md#sign-up-limit); the second step only
  // stores what this one prepared.
  const slot = await takeSignupSlot(clientAddress(context));
  if (!slot.ok) {
    const failure: FormFailure<(typeof SIGNUP_FIELDS)[number]> = { formError: slot.message, fieldErrors: {}, fields: { name, username, email: typedEmail } };
    return data(failure, { status: 429, headers: { "Retry-After": String(slot.retryAfterSeconds ?? 3600) } });
  }
  // The draft cookie is signed and carries only a hash of the password (docs/rules.md#sign-up-draft).
  const cookie = await commitSignupDraft(request, { name, username, email: email.value ?? "", passwordHash: await hashPassword(password) });
  return redirect(paths.signupTags(), { headers: { "Set-Cookie": cookie } });
}

/** The tags step, for a visitor holding a sign-up draft (else back to the first step). */
export async function loadSignupTagsPage(request: Request) {
  await requireAnonymous(request);
  // Without held sign-up details (none, expired or tampered) there is nothing to finish.
  if (!(await getSignupDraft(request))) throw redirect(paths.signup());
  return null;
}

/** The last step: the account with its tags, signed in and on to its profile; or the tags again with why. */
export async function signupTagsPageAction(request: Request) {
  await requireAnonymous(request);
  const draft = await getSignupDraft(request);
  if (!draft) throw redirect(paths.signup());
  const formData = await readForm(request);
  const submitted = readTags(formData);
  const created = await createAccount({ name: draft.name, username: draft.username, passwordHash: draft.passwordHash, tags: submitted });
  if (!created.ok) return data({ formError: created.message, tags: submitted }, { status: created.status });
  const user = created.value;
  // The address gets its "Confirm your email" (a mail that cannot go now can be sent again from
  // the profile editor, which says the address is not confirmed yet).
  if (draft.email) await changeEmail({ userId: user.id, email: draft.email });
  const headers = new Headers({ "Set-Cookie": await clearSignupDraft(request) });
  return createUserSession({ request, userId: user.id, redirectTo: paths.profile(user.id), headers });
}
