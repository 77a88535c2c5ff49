import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";

import { ConfirmButton, ConfirmStep } from "~/components/confirm";
import { paths } from "~/lib/paths";
import { readForm } from "~/server/http/body.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { listComments } from "~/server/queries/comments.server";
import { getPostForRecipe } from "~/server/queries/posts.server";
import { removeComment } from "~/server/services/interactions.server";
import { requireAdmin } from "~/server/auth/session.server";
import { Link } from "~/components/link";

const REMOVE_COMMENT_MESSAGE = "Are you sure you want to delete this comment?";

async function loadPost(recipeId: string) {
  const post = await getPostForRecipe(recipeId);
  invariantResponse(post, "Post not found.", 404);
  return post;
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  await requireAdmin({ request, context });
  const post = await loadPost(params.rid ?? "");
  return { post, comments: await listComments(post.id), tabHref: paths.adminRecipePost(params.rid ?? "") };
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const admin = await requireAdmin({ request, context });
  const formData = await readForm(request);
  if (readIntent(formData) !== "remove-comment") return data({ error: "Unknown action." }, { status: 400 });
  const post = await loadPost(params.rid ?? "");
  const commentId = String(formData.get("commentId") ?? "");
  if (formData.get("confirm") !== "yes") return { confirm: commentId };
  const outcome = await removeComment({ actor: admin, postId: post.id, commentId });
  if (!outcome.ok) return data({ error: outcome.message }, { status: outcome.status });
  return redirect(paths.adminRecipePost(params.rid ?? ""));
}

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
