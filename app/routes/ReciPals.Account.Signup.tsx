import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useRef } from "react";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";

import { FormAlert, TextField, fieldError, useFocusInvalid, useResultKey } from "~/components/forms";
import { USER_LIMITS } from "~/lib/limits";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { readForm } from "~/server/http/body.server";
import { formValues, toFailure, type FormFailure } from "~/server/http/forms.server";
import { hashPassword } from "~/server/auth/password.server";
import { isUsernameTaken } from "~/server/queries/users.server";
import { takeSignupSlot } from "~/server/services/users.server";
import { commitSignupDraft, getSignupDraft, requireAnonymous } from "~/server/auth/session.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { clientAddress } from "~/server/http/ip.server";
import {
  FILL_ALL_FIELDS,
  PASSWORDS_DONT_MATCH,
  SIGNUP_FIELDS,
  SignupSchema,
  USERNAME_TAKEN,
} from "~/server/validation/auth.server";
import { Link } from "~/components/link";

export const meta: MetaFunction = () => [{ title: "Sign up · ReciPals" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  // Nothing from the database (the draft is in a cookie: such a request is never shared).
  scopeSharedCache(context);
  // Coming back from the tags step keeps name and username (never the password).
  const draft = await getSignupDraft(request);
  return { name: draft?.name ?? "", username: draft?.username ?? "" };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireAnonymous(request);
  const formData = await readForm(request);
  const parsed = SignupSchema.safeParse(formValues(formData, SIGNUP_FIELDS));
  if (!parsed.success) {
    return data(toFailure(parsed.error, formData, SIGNUP_FIELDS, [FILL_ALL_FIELDS, PASSWORDS_DONT_MATCH]), {
      status: 400,
    });
  }
  const { name, username, password } = parsed.data;
  if (await isUsernameTaken(username)) {
    const failure: FormFailure<(typeof SIGNUP_FIELDS)[number]> = {
      formError: null,
      fieldErrors: { username: USERNAME_TAKEN },
      fields: { name, username },
    };
    return data(failure, { status: 409 });
  }
  // Counted here, before the costly hash (docs/rules.md#sign-up-limit); the second step only
  // stores what this one prepared.
  const slot = await takeSignupSlot(clientAddress(context));
  if (!slot.ok) {
    const failure: FormFailure<(typeof SIGNUP_FIELDS)[number]> = { formError: slot.message, fieldErrors: {}, fields: { name, username } };
    return data(failure, { status: 429, headers: { "Retry-After": String(slot.retryAfterSeconds ?? 3600) } });
  }
  // The draft cookie is signed and carries only a hash of the password (docs/rules.md#sign-up-draft).
  const cookie = await commitSignupDraft(request, { name, username, passwordHash: await hashPassword(password) });
  return redirect(paths.signupTags(), { headers: { "Set-Cookie": cookie } });
}

export default function SignupRoute() {
  const draft = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  // Refused before the action ran (app/lib/refusal.ts): a message, the fields stay as typed.
  const failure = isEarlyRefusal(answer) ? undefined : answer;
  const formRef = useRef<HTMLFormElement>(null);
  const resultKey = useResultKey(failure);
  useFocusInvalid(formRef, failure);
  const busy = useNavigation().state === "submitting";
  return (
    <section className="auth-card">
      <h1>Sign up</h1>
      <Form method="post" noValidate className="stack" ref={formRef}>
        <FormAlert message={earlyRefusalMessage(answer) ?? failure?.formError} />
        <TextField
          label="Name"
          name="name"
          autoComplete="name"
          maxLength={USER_LIMITS.name}
          defaultValue={failure?.fields.name ?? draft.name}
          {...fieldError(failure, "name")}
        />
        <TextField
          label="Username"
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={USER_LIMITS.username}
          hint="3–30 letters, digits, _ or ."
          defaultValue={failure?.fields.username ?? draft.username}
          {...fieldError(failure, "username")}
        />
        <TextField
          label="Password"
          key={`password-${resultKey}`}
          name="password"
          type="password"
          autoComplete="new-password"
          maxLength={USER_LIMITS.password}
          {...fieldError(failure, "password")}
        />
        <TextField
          label="Verify Password"
          key={`verifyPassword-${resultKey}`}
          name="verifyPassword"
          type="password"
          autoComplete="new-password"
          maxLength={USER_LIMITS.password}
          {...fieldError(failure, "verifyPassword")}
        />
        <button type="submit" className="button" disabled={busy}>
          Next
        </button>
      </Form>
      <p>
        Already have an account? <Link to={paths.login()}>Sign in</Link>
      </p>
    </section>
  );
}
