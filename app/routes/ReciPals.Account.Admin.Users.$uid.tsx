// A person in the admin area (/ReciPals/Account/Admin/Users/{id}): the address's contract and the
// component tree; what it shows and what its buttons do is app/server/pages/admin-users-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { useState } from "react";

import { AdminDetailNotFound } from "~/components/admin-list";
import { Avatar } from "~/components/avatar";
import { ConfirmButton, ConfirmStep } from "~/components/confirm";
import { Link } from "~/components/link";
import { TagChips } from "~/components/tag-chips";
import { useHydrated } from "~/lib/hooks";
import { paths } from "~/lib/paths";
import { adminUserPageAction, loadAdminUserPage } from "~/server/pages/admin-users-page.server";

const DELETE_USER_MESSAGE = "Are you sure you want to delete this user?";

export const loader = ({ request, params, context }: LoaderFunctionArgs) => loadAdminUserPage(request, params.uid ?? "", context);

export const action = ({ request, params, context }: ActionFunctionArgs) => adminUserPageAction(request, params.uid ?? "", context);

export default function AdminUserDetail() {
  const { user, postIds, suspended, emailConfirmed } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <aside className="admin-detail" aria-label={`User ${user.username}`}>
      <header className="admin-detail__header">
        <Avatar src={user.profile} size={64} />
        <div>
          <h2>{user.name}</h2>
          <p className="muted">@{user.username}</p>
        </div>
      </header>
      {suspended ? (
        <p className="notice" role="status">
          Suspended: they cannot sign in, and what they made is hidden from everyone but admins.
        </p>
      ) : null}
      {user.bio ? <p>{user.bio}</p> : null}
      {user.tags.length > 0 ? <TagChips tags={user.tags} /> : <p className="muted">No tags</p>}
      <h3>Posts</h3>
      {postIds.length === 0 ? <p className="muted">No posts yet</p> : <PostIdList ids={postIds} />}
      {result && "error" in result ? (
        <p className="form-alert" role="alert">
          {result.error}
        </p>
      ) : null}
      {result && "confirm" in result ? (
        <ConfirmStep
          intent="delete"
          message={DELETE_USER_MESSAGE}
          label="Delete"
          cancel={
            <Link to={paths.adminUser(user.id)} className="button button--ghost">
              Cancel
            </Link>
          }
        />
      ) : null}
      <Form method="post" className="stack" id="admin-user-form">
        <div className="field">
          <label htmlFor="admin-role">Role</label>
          <select id="admin-role" name="role" defaultValue={user.role}>
            <option value="USER">User</option>
            <option value="ADMIN">Admin</option>
          </select>
        </div>
      </Form>
      <Form method="post" className="stack">
        <div className="field">
          <label htmlFor="admin-why">Why (for the moderation log, optional)</label>
          <input id="admin-why" type="text" name="why" maxLength={500} />
        </div>
        <button type="submit" name="intent" value={suspended ? "unsuspend" : "suspend"} className="button button--ghost">
          {suspended ? "Unsuspend" : "Suspend"}
        </button>
      </Form>
      <Form method="post" className="stack">
        {/* docs/rules.md#account-email: only to a confirmed address; logged in the moderation log. */}
        <button type="submit" name="intent" value="password-reset" className="button button--ghost" disabled={!emailConfirmed}>
          Send password reset
        </button>
        {emailConfirmed ? null : <p className="field__hint">This account has no confirmed email address.</p>}
      </Form>
      <div className="actions">
        <ConfirmButton intent="delete" message={DELETE_USER_MESSAGE} label="Delete" />
        <Link to={paths.adminUsers()} className="button button--ghost">
          Cancel
        </Link>
        <button type="submit" form="admin-user-form" name="intent" value="save" className="button">
          Save
        </button>
      </div>
    </aside>
  );
}

function PostIdList({ ids }: { ids: string[] }) {
  const hydrated = useHydrated();
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <ul className="post-id-list">
      {ids.map((id) => (
        <li key={id}>
          <input readOnly value={id} aria-label={`Post ID ${id}`} onFocus={(e) => e.currentTarget.select()} />
          {hydrated ? (
            <button
              type="button"
              className="button button--ghost"
              onClick={() => {
                void navigator.clipboard?.writeText(id).then(() => setCopied(id));
              }}
            >
              Copy ID
            </button>
          ) : null}
          {copied === id ? <span role="status">Copied</span> : null}
        </li>
      ))}
    </ul>
  );
}

export function ErrorBoundary() {
  return <AdminDetailNotFound message="User not found." closeTo={paths.adminUsers()} />;
}
