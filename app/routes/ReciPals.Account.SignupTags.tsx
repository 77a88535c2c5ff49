// Sign-up, second step (/ReciPals/Account/SignupTags): the address's contract and the tag picker.
// Who may open it and how the account is made is app/server/pages/signup-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useNavigation } from "@remix-run/react";

import { FormAlert } from "~/components/forms";
import { Link } from "~/components/link";
import { TagPicker } from "~/components/tag-picker";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { loadSignupTagsPage, signupTagsPageAction } from "~/server/pages/signup-page.server";

export const meta: MetaFunction = () => [{ title: "Choose your tags · ReciPals" }];

export const loader = ({ request }: LoaderFunctionArgs) => loadSignupTagsPage(request);

export const action = ({ request }: ActionFunctionArgs) => signupTagsPageAction(request);

export default function SignupTagsRoute() {
  const answer = useActionData<typeof action>();
  // Refused before the action ran (app/lib/refusal.ts): a message, the fields stay as typed.
  const failure = isEarlyRefusal(answer) ? undefined : answer;
  const busy = useNavigation().state === "submitting";
  return (
    <section className="auth-card auth-card--wide">
      <h1>Who Are You :D</h1>
      <p>Choose up to 3 tags to describe yourself!</p>
      <Form method="post" noValidate className="stack">
        <FormAlert message={earlyRefusalMessage(answer) ?? failure?.formError} />
        <TagPicker selected={failure?.tags ?? []} />
        <div className="actions">
          <Link to={paths.signup()} className="button button--ghost">
            Back
          </Link>
          <button type="submit" className="button" disabled={busy}>
            Sign up
          </button>
        </div>
      </Form>
    </section>
  );
}
