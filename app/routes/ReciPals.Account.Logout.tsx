import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData } from "@remix-run/react";

import { FormAlert } from "~/components/forms";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage } from "~/lib/refusal";
import { readForm } from "~/server/http/body.server";
import { getUserId, logout } from "~/server/auth/session.server";

export const meta: MetaFunction = () => [{ title: "Sign out · ReciPals" }];

// Signing out changes state, so it is a POST only. A GET of this address sends a visitor home;
// someone signed in gets a page with the button — where a sign-out the server refused before
// its action ran (app/lib/refusal.ts) says why.
export async function loader({ request }: LoaderFunctionArgs) {
  if (!(await getUserId(request))) throw redirect(paths.home());
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readForm(request);
  // "Sign out everywhere" (one's own profile editor) ends every session of the account.
  return logout(request, { everywhere: formData.get("intent") === "everywhere" });
}

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
