import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";

import { DELETE_COMMENT_MESSAGE } from "~/components/comment-item";
import { ConfirmStep } from "~/components/confirm";
import { Link } from "~/components/link";
import { paths, safeRedirect } from "~/lib/paths";
import { canDeleteComment } from "~/lib/permissions";
import { requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { invariantResponse } from "~/server/http/responses.server";
import { getCommentOwnership } from "~/server/queries/comments.server";
import { INTERACTION_MESSAGES, removeComment } from "~/server/services/interactions.server";

// Deleting a comment (docs/rules.md#deleting-a-comment). With JavaScript the comment's "Delete
// comment" button asks in a confirm dialog and posts here with confirm=yes; without it the post
// lands on this page, which asks the same question and posts again.

export const meta: MetaFunction = () => [{ title: "Delete comment · ReciPals" }];

/** Where to go back to: a same-site path the form or the address gave, else the recipe page. */
function backTo(given: FormDataEntryValue | string | null, recipeId: string): string {
  return safeRedirect(given, `${paths.recipe(recipeId)}#comments`);
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const comment = await getCommentOwnership(params.cid ?? "");
  invariantResponse(comment, INTERACTION_MESSAGES.commentMissing, 404);
  invariantResponse(canDeleteComment(user, comment), INTERACTION_MESSAGES.notYourComment, 403);
  const returnTo = backTo(new URL(request.url).searchParams.get("returnTo"), comment.recipeId);
  return { commentId: comment.commentId, text: comment.text, returnTo };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readForm(request);
  const commentId = params.cid ?? "";
  if (formData.get("confirm") !== "yes") {
    const returnTo = formData.get("returnTo");
    const query = typeof returnTo === "string" ? `?${new URLSearchParams({ returnTo })}` : "";
    return redirect(`${paths.deleteComment(commentId)}${query}`);
  }
  const outcome = await removeComment({ actor: user, commentId });
  invariantResponse(outcome.ok, outcome.ok ? "" : outcome.message, outcome.ok ? 200 : outcome.status);
  return redirect(backTo(formData.get("returnTo"), outcome.value.recipeId));
}

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
