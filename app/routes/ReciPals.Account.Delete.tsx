// "Delete my account" (/ReciPals/Account/Delete, docs/rules.md#own-account): the password and a
// ticked box, then the account and everything in it go, every session ends, and this browser is
// signed out. The address's contract and the form; what they do is app/server/pages/account-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";

import { Link } from "~/components/link";
import { ACCOUNT_DELETED } from "~/lib/account";
import { paths } from "~/lib/paths";
import { deleteAccountPageAction, loadDeleteAccountPage } from "~/server/pages/account-page.server";

export const meta: MetaFunction = () => [{ title: "Delete my account · ReciPals" }];

export const loader = ({ request }: LoaderFunctionArgs) => loadDeleteAccountPage(request);

export const action = ({ request, context }: ActionFunctionArgs) => deleteAccountPageAction(request, context);

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
