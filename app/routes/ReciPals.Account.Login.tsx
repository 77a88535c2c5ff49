import { data, type ActionFunctionArgs, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useRef } from "react";
import { Form, useActionData, useNavigation, useSearchParams } from "@remix-run/react";

import { FormAlert, TextField, fieldError, useFocusInvalid, useResultKey } from "~/components/forms";
import { USER_LIMITS } from "~/lib/limits";
import { paths, safeRedirect } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { readForm } from "~/server/http/body.server";
import { authenticateForm, LoginError, throttledSignIn } from "~/server/auth/sign-in.server";
import { keptFields, type FormFailure } from "~/server/http/forms.server";
import { createUserSession, requireAnonymous } from "~/server/auth/session.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { clientAddress } from "~/server/http/ip.server";
import { LimitReachedError } from "~/server/auth/limits.server";
import { Link } from "~/components/link";

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

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  // Nothing from the database: no write changes this page.
  scopeSharedCache(context);
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
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
        <button type="submit" className="button" disabled={busy}>
          Sign in
        </button>
      </Form>
      <p>
        New to ReciPals? <Link to={paths.signup()}>Sign up</Link>
      </p>
    </section>
  );
}
