import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";

import { DELETE_COMMENT_MESSAGE } from "~/components/comment-item";
import { ConfirmStep } from "~/components/confirm";
import { Link } from "~/components/link";
import { paths } from "~/lib/paths";
import { deleteCommentPageAction, loadDeleteCommentPage } from "~/server/pages/delete-comment-page.server";

// Deleting a comment (docs/rules.md#deleting-a-comment). With JavaScript the comment's "Delete
// comment" button asks in a confirm dialog and posts here with confirm=yes; without it the post
// lands on this page, which asks the same question and posts again. What it shows and does is
// app/server/pages/delete-comment-page.server.ts.

export const meta: MetaFunction = () => [{ title: "Delete comment · ReciPals" }];

export const loader = ({ request, params }: LoaderFunctionArgs) => loadDeleteCommentPage(request, params.cid ?? "");

export const action = ({ request, params }: ActionFunctionArgs) => deleteCommentPageAction(request, params.cid ?? "");

export default function DeleteCommentPage() {
  const { commentId, text, returnTo } = useLoaderData<typeof loader>();
  return (
    <section className="auth-card" aria-labelledby="delete-comment-heading">
      <h1 id="delete-comment-heading">Delete comment</h1>
      <blockquote className="comment__text">{text}</blockquote>
      <ConfirmStep
        action={paths.deleteComment(commentId)}
        intent="delete-comment"
        message={DELETE_COMMENT_MESSAGE}
        label="Delete comment"
        fields={{ returnTo }}
        cancel={
          <Link to={returnTo} className="button button--ghost">
            Cancel
          </Link>
        }
      />
    </section>
  );
}
