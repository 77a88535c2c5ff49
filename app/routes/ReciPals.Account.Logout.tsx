// Sign out (/ReciPals/Account/Logout): the address's contract and its one button. Who gets the
// page and what a sign-out does is app/server/pages/login-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData } from "@remix-run/react";

import { FormAlert } from "~/components/forms";
import { earlyRefusalMessage } from "~/lib/refusal";
import { loadLogoutPage, logoutPageAction } from "~/server/pages/login-page.server";

export const meta: MetaFunction = () => [{ title: "Sign out · ReciPals" }];

export const loader = ({ request }: LoaderFunctionArgs) => loadLogoutPage(request);

export const action = ({ request }: ActionFunctionArgs) => logoutPageAction(request);

export default function LogoutRoute() {
  const refusal = earlyRefusalMessage(useActionData<typeof action>());
  return (
    <section className="auth-card">
      <h1>Sign out</h1>
      <Form method="post" className="stack" reloadDocument>
        <FormAlert message={refusal} />
        <div className="actions">
          <button type="submit" className="button">
            Sign out
          </button>
        </div>
      </Form>
    </section>
  );
}
