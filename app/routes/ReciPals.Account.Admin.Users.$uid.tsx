import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { useState } from "react";

import { Avatar } from "~/components/avatar";
import { AdminDetailNotFound } from "~/components/admin-list";
import { ConfirmButton, ConfirmStep } from "~/components/confirm";
import { useHydrated } from "~/lib/hooks";
import { paths } from "~/lib/paths";
import { readForm } from "~/server/http/body.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { changeRole, deleteUser } from "~/server/services/users.server";
import { suspend, unsuspend } from "~/server/services/moderation.server";
import { isSuspendedPerson } from "~/server/queries/visibility.server";
import { listUserPosts } from "~/server/queries/posts.server";
import { getUserProfile } from "~/server/queries/users.server";
import { requireAdmin } from "~/server/auth/session.server";
import { Link } from "~/components/link";

const DELETE_USER_MESSAGE = "Are you sure you want to delete this user?";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  await requireAdmin({ request, context });
  const user = await getUserProfile(params.uid ?? "");
  invariantResponse(user, "User not found.", 404);
  const posts = await listUserPosts(user.id);
  return { user, postIds: posts.map((p) => p.post_id), suspended: await isSuspendedPerson(user.id) };
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const admin = await requireAdmin({ request, context });
  const userId = params.uid ?? "";
  const formData = await readForm(request);
  const intent = readIntent(formData);
  invariantResponse(await getUserProfile(userId), "User not found.", 404);
  if (intent === "save") {
    const role = formData.get("role");
    const outcome = await changeRole({ actor: admin, userId, role: typeof role === "string" ? role : "" });
    if (!outcome.ok) return data({ error: outcome.message }, { status: outcome.status });
    return redirect(paths.adminUsers());
  }
  if (intent === "delete") {
    if (formData.get("confirm") !== "yes") return { confirm: true as const };
    const outcome = await deleteUser({ actor: admin, userId });
    if (!outcome.ok) return data({ error: outcome.message }, { status: outcome.status });
    return redirect(paths.adminUsers());
  }
  if (intent === "suspend" || intent === "unsuspend") {
    // docs/rules.md#suspension: every session ends and what they made is hidden from all but admins, or shown again.
    const args = { actor: admin, userId, why: formData.get("why") ?? "" };
    const outcome = intent === "suspend" ? await suspend(args) : await unsuspend(args);
    if (!outcome.ok) return data({ error: outcome.message }, { status: outcome.status });
    return redirect(paths.adminUser(userId));
  }
  return data({ error: "Unknown action." }, { status: 400 });
}

export default function AdminUserDetail() {
  const { user, postIds, suspended } = useLoaderData<typeof loader>();
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
      {user.tags.length > 0 ? (
        <ul className="chips" aria-label="Tags">
          {user.tags.map((tag) => (
            <li key={tag} className="chip">
              {tag}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No tags</p>
      )}
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
