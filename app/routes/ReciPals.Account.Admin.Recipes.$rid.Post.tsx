// A recipe's Post tab in the admin area (/ReciPals/Account/Admin/Recipes/{id}/Post): the address's
// contract and the component tree; what it shows and what `Remove` does is
// app/server/pages/admin-recipe-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";

import { ConfirmButton, ConfirmStep } from "~/components/confirm";
import { Link } from "~/components/link";
import { adminRecipePostPageAction, loadAdminRecipePostPage } from "~/server/pages/admin-recipe-page.server";

const REMOVE_COMMENT_MESSAGE = "Are you sure you want to delete this comment?";

export const loader = ({ request, params, context }: LoaderFunctionArgs) => loadAdminRecipePostPage(request, params.rid ?? "", context);

export const action = ({ request, params, context }: ActionFunctionArgs) => adminRecipePostPageAction(request, params.rid ?? "", context);

export default function AdminPostTab() {
  const { post, comments, tabHref } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <div className="admin-post-tab">
      <h3>Caption</h3>
      <p>{post.caption || <span className="muted">No caption</span>}</p>
      <h3>Comments ({comments.length})</h3>
      {result && "error" in result ? (
        <p className="form-alert" role="alert">
          {result.error}
        </p>
      ) : null}
      {comments.length === 0 ? <p className="muted">No comments yet</p> : null}
      <ul className="admin-comments scroll-200">
        {comments.map((comment) => (
          <li key={comment.comment_id}>
            <p>
              <strong>{comment.author?.username ?? "Unknown User"}</strong> {comment.text}
            </p>
            {result && "confirm" in result && result.confirm === comment.comment_id ? (
              <ConfirmStep
                intent="remove-comment"
                message={REMOVE_COMMENT_MESSAGE}
                label="Remove"
                fields={{ commentId: comment.comment_id }}
                cancel={
                  <Link to={tabHref} className="button button--ghost">
                    Cancel
                  </Link>
                }
              />
            ) : (
              <ConfirmButton
                intent="remove-comment"
                message={REMOVE_COMMENT_MESSAGE}
                label="Remove"
                fields={{ commentId: comment.comment_id }}
                className="button button--ghost"
              />
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
