// "Forgot password?" (/ReciPals/Account/Forgot, docs/rules.md#account-email): a username or an
// address, and always the same answer. What the post does is app/server/pages/account-recovery-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useNavigation } from "@remix-run/react";

import { FormAlert, TextField } from "~/components/forms";
import { Link } from "~/components/link";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { forgotPageAction, loadForgotPage } from "~/server/pages/account-recovery-page.server";

export const meta: MetaFunction = () => [{ title: "Forgot password · ReciPals" }];

export const loader = ({ context }: LoaderFunctionArgs) => loadForgotPage(context);

export const action = ({ request, context }: ActionFunctionArgs) => forgotPageAction(request, context);

export default function ForgotRoute() {
  const answer = useActionData<typeof action>();
  const result = isEarlyRefusal(answer) ? undefined : answer;
  const busy = useNavigation().state === "submitting";
  return (
    <section className="auth-card">
      <h1>Forgot password</h1>
      {result?.sent ? (
        <p className="notice" role="status">
          {result.sent}
        </p>
      ) : (
        <p>Enter your username or your email address. If the account has a confirmed email, we send it a link to choose a new password.</p>
      )}
      <Form method="post" noValidate className="stack">
        <FormAlert message={earlyRefusalMessage(answer) ?? result?.formError ?? null} />
        <TextField label="Username or email" name="login" autoComplete="username" autoCapitalize="none" spellCheck={false} maxLength={254} defaultValue={result?.login ?? ""} />
        <button type="submit" className="button" disabled={busy} aria-busy={busy || undefined}>
          {busy ? "Sending..." : "Send link"}
        </button>
      </Form>
      <p>
        Remembered it? <Link to={paths.login()}>Sign in</Link>
      </p>
    </section>
  );
}
