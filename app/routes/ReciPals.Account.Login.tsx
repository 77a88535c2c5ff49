// Sign in (/ReciPals/Account/Login): the address's contract and the form. Who may open it and
// what a sign-in does is app/server/pages/login-page.server.ts.
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useNavigation, useSearchParams } from "@remix-run/react";
import { useRef } from "react";

import { FormAlert, TextField, fieldError, useFocusInvalid, useResultKey } from "~/components/forms";
import { Link } from "~/components/link";
import { USER_LIMITS } from "~/lib/limits";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { loadLoginPage, loginPageAction } from "~/server/pages/login-page.server";

export const meta: MetaFunction = () => [{ title: "Sign in · ReciPals" }];

// A document response carries only the headers this passes on (Set-Cookie aside): keep the
// throttle's Retry-After on the 429 page.
export const headers: HeadersFunction = ({ actionHeaders, parentHeaders }) => {
  const headers = new Headers(parentHeaders);
  const retryAfter = actionHeaders.get("Retry-After");
  if (retryAfter) headers.set("Retry-After", retryAfter);
  return headers;
};

// Why someone was sent here; a code, so a crafted link cannot put arbitrary text on the page.
const REASONS: Record<string, string> = {
  create: "Please log in to create a recipe.",
  "create-save": "You must be logged in to create a recipe. Please log in first.",
  expired: "Session expired. Please log in again.",
};

export const loader = ({ request, context }: LoaderFunctionArgs) => loadLoginPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => loginPageAction(request, context);

export default function LoginRoute() {
  const answer = useActionData<typeof action>();
  // Refused before the action ran (app/lib/refusal.ts): a message, the fields stay as typed.
  const failure = isEarlyRefusal(answer) ? undefined : answer;
  const formRef = useRef<HTMLFormElement>(null);
  const resultKey = useResultKey(failure);
  useFocusInvalid(formRef, failure);
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const reason = REASONS[searchParams.get("reason") ?? ""];
  const busy = navigation.state === "submitting";
  return (
    <section className="auth-card">
      <h1>Sign in</h1>
      {reason && !failure ? <p className="notice" role="status">{reason}</p> : null}
      <Form method="post" noValidate className="stack" ref={formRef}>
        <FormAlert message={earlyRefusalMessage(answer) ?? failure?.formError} />
        <input type="hidden" name="redirectTo" value={searchParams.get("redirectTo") ?? ""} />
        <TextField
          label="Username"
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={USER_LIMITS.username}
          defaultValue={failure?.fields.username ?? ""}
          {...fieldError(failure, "username")}
        />
        <TextField
          label="Password"
          key={`password-${resultKey}`}
          name="password"
          type="password"
          autoComplete="current-password"
          maxLength={USER_LIMITS.password}
          {...fieldError(failure, "password")}
        />
        {/* The password check takes a moment: say so while it runs. */}
        <button type="submit" className="button" disabled={busy} aria-busy={busy || undefined}>
          {busy ? "Signing in..." : "Sign in"}
        </button>
      </Form>
      <p>
        <Link to={paths.forgotPassword()}>Forgot password?</Link>
      </p>
      <p>
        New to ReciPals? <Link to={paths.signup()}>Sign up</Link>
      </p>
    </section>
  );
}
