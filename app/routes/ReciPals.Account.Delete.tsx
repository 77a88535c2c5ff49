import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";

import { Link } from "~/components/link";
import { ACCOUNT_DELETED, DELETE_ACCOUNT_PATH } from "~/lib/account";
import { paths } from "~/lib/paths";
import { endSession, getUser, requireUser, SIGNED_OUT_HEADERS } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { clientAddress } from "~/server/http/ip.server";
import { deleteOwnAccount } from "~/server/services/account.server";

// "Delete my account" (docs/rules.md#own-account): the password and a ticked box, then the account
// and everything in it go, every session ends, and this browser is signed out.

export const meta: MetaFunction = () => [{ title: "Delete my account · ReciPals" }];

export async function loader({ request }: LoaderFunctionArgs) {
  // After the deletion this browser is signed out: the page says it is done.
  if (new URL(request.url).searchParams.has("done") && !(await getUser(request))) return { deleted: true as const };
  const user = await requireUser(request);
  return { deleted: false as const, userId: user.id, username: user.username };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const form = await readForm(request);
  const outcome = await deleteOwnAccount({ actor: user, password: form.get("password"), confirm: form.get("confirm"), address: clientAddress(context) });
  if (!outcome.ok) {
    const headers: Record<string, string> = outcome.retryAfterSeconds ? { "Retry-After": String(outcome.retryAfterSeconds) } : {};
    return data({ message: outcome.message, errors: outcome.errors ?? {} }, { status: outcome.status, headers });
  }
  return redirect(`${DELETE_ACCOUNT_PATH}?done=1`, { headers: { ...SIGNED_OUT_HEADERS, "Set-Cookie": await endSession(request) } });
}

export default function DeleteAccountPage() {
  const loaded = useLoaderData<typeof loader>();
  const failed = useActionData<typeof action>();
  if (loaded.deleted) {
    return (
      <section className="auth-card" aria-labelledby="delete-account-heading">
        <h1 id="delete-account-heading">Account deleted</h1>
        <p role="status">{ACCOUNT_DELETED}</p>
        <Link to={paths.home()} className="button">
          Home
        </Link>
      </section>
    );
  }
  const { userId, username } = loaded;
  return (
    <section className="auth-card" aria-labelledby="delete-account-heading">
      <h1 id="delete-account-heading">Delete my account</h1>
      <p>
        This deletes <strong>{username}</strong> with every recipe, post, photo, comment, like, save, follow, notification and shopping
        list item. It cannot be undone.
      </p>
      {failed ? (
        <p className="form-alert" role="alert">
          {failed.message}
        </p>
      ) : null}
      <Form method="post" className="stack">
        <div className="field">
          <label htmlFor="delete-password">Password</label>
          <input id="delete-password" type="password" name="password" autoComplete="current-password" required />
        </div>
        <label className="radio">
          <input type="checkbox" name="confirm" value="yes" required /> I understand my account and everything in it will be deleted.
        </label>
        <div className="actions">
          <Link to={paths.profileEdit(userId)} className="button button--ghost">
            Cancel
          </Link>
          <button type="submit" className="button button--danger">
            Delete my account
          </button>
        </div>
      </Form>
    </section>
  );
}
