// "Choose a new password" (/ReciPals/Account/Reset/{token}, docs/rules.md#account-email), opened
// from the mail. What the post does is app/server/pages/account-recovery-page.server.ts.
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";

import { FormAlert, TextField } from "~/components/forms";
import { Link } from "~/components/link";
import { USER_LIMITS } from "~/lib/limits";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { loadResetPage, resetPageAction } from "~/server/pages/account-recovery-page.server";

export const meta: MetaFunction = () => [{ title: "Choose a new password · ReciPals" }, { name: "robots", content: "noindex" }, { name: "referrer", content: "same-origin" }];

// The token is in the address: the page is never stored or shared (and its meta sends no Referer to another site).
export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

export const loader = ({ params }: LoaderFunctionArgs) => loadResetPage(params.token ?? "");

export const action = ({ request, params }: ActionFunctionArgs) => resetPageAction(request, params.token ?? "");

export default function ResetRoute() {
  const { usable, linkInvalid } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const result = isEarlyRefusal(answer) ? undefined : answer;
  const busy = useNavigation().state === "submitting";
  const stillUsable = result ? result.usable : usable;
  return (
    <section className="auth-card">
      <h1>Choose a new password</h1>
      {stillUsable ? (
        <Form method="post" noValidate className="stack">
          <FormAlert message={earlyRefusalMessage(answer) ?? result?.formError ?? null} />
          <TextField label="New password" name="password" type="password" autoComplete="new-password" maxLength={USER_LIMITS.password} error={result?.fieldErrors.password} />
          <TextField label="Verify Password" name="verifyPassword" type="password" autoComplete="new-password" maxLength={USER_LIMITS.password} error={result?.fieldErrors.verifyPassword} />
          <button type="submit" className="button" disabled={busy} aria-busy={busy || undefined}>
            {busy ? "Saving..." : "Save password"}
          </button>
        </Form>
      ) : (
        <>
          <p className="form-alert" role="alert">
            {result?.formError ?? linkInvalid}
          </p>
          <p>
            <Link to={paths.forgotPassword()} className="button">
              Ask for a new link
            </Link>
          </p>
        </>
      )}
    </section>
  );
}
