// "Confirm your email" (/ReciPals/Account/Verify/{token}, docs/rules.md#account-email), opened from
// the mail: a button, so a mail scanner following the link confirms nothing. What the post does is
// app/server/pages/account-recovery-page.server.ts.
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";

import { Link } from "~/components/link";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { loadVerifyPage, verifyPageAction } from "~/server/pages/account-recovery-page.server";

export const meta: MetaFunction = () => [{ title: "Confirm your email · ReciPals" }, { name: "robots", content: "noindex" }, { name: "referrer", content: "same-origin" }];

// The token is in the address: the page is never stored or shared (and its meta sends no Referer to another site).
export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

export const loader = ({ params }: LoaderFunctionArgs) => loadVerifyPage(params.token ?? "");

export const action = ({ request, params }: ActionFunctionArgs) => verifyPageAction(request, params.token ?? "");

export default function VerifyRoute() {
  const { email, linkInvalid } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const refused = earlyRefusalMessage(answer) ?? (isEarlyRefusal(answer) ? null : answer?.formError) ?? null;
  const busy = useNavigation().state === "submitting";
  return (
    <section className="auth-card">
      <h1>Confirm your email</h1>
      {email && !refused ? (
        <Form method="post" className="stack">
          <p>
            Confirm <strong>{email}</strong> as the email address of your account.
          </p>
          <button type="submit" className="button" disabled={busy}>
            Confirm email
          </button>
        </Form>
      ) : (
        <>
          <p className="form-alert" role="alert">
            {refused ?? linkInvalid}
          </p>
          <p>
            <Link to={paths.home()}>Go to Home</Link>
          </p>
        </>
      )}
    </section>
  );
}
