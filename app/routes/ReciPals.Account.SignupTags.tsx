import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, useActionData, useNavigation } from "@remix-run/react";

import { FormAlert } from "~/components/forms";
import { TagPicker } from "~/components/tag-picker";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { readForm } from "~/server/http/body.server";
import { createAccount } from "~/server/services/users.server";
import { clearSignupDraft, createUserSession, getSignupDraft, requireAnonymous } from "~/server/auth/session.server";
import { readTags } from "~/server/validation/tags.server";
import { Link } from "~/components/link";

export const meta: MetaFunction = () => [{ title: "Choose your tags · ReciPals" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  // Without held sign-up details (none, expired or tampered) there is nothing to finish.
  if (!(await getSignupDraft(request))) throw redirect(paths.signup());
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAnonymous(request);
  const draft = await getSignupDraft(request);
  if (!draft) throw redirect(paths.signup());
  const formData = await readForm(request);
  const submitted = readTags(formData);
  const created = await createAccount({ name: draft.name, username: draft.username, passwordHash: draft.passwordHash, tags: submitted });
  if (!created.ok) return data({ formError: created.message, tags: submitted }, { status: created.status });
  const user = created.value;
  const headers = new Headers({ "Set-Cookie": await clearSignupDraft(request) });
  return createUserSession({ request, userId: user.id, redirectTo: paths.profile(user.id), headers });
}

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
