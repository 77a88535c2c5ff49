// Sign-up, first step (/ReciPals/Account/Signup): the address's contract and the form. What the
// form keeps and what its post does is app/server/pages/signup-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useRef } from "react";

import { FormAlert, TextField, fieldError, useFocusInvalid, useResultKey } from "~/components/forms";
import { Link } from "~/components/link";
import { USER_LIMITS } from "~/lib/limits";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { loadSignupPage, signupPageAction } from "~/server/pages/signup-page.server";

export const meta: MetaFunction = () => [{ title: "Sign up · ReciPals" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadSignupPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => signupPageAction(request, context);

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
          label="Email (optional)"
          name="email"
          type="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={254}
          hint="To get back in if you forget your password. We send a link to confirm it."
          defaultValue={failure?.fields.email ?? draft.email}
          {...fieldError(failure, "email")}
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
