// Deleting a comment (/ReciPals/Comments/{id}/Delete, docs/rules.md#deleting-a-comment): the page
// that asks before a comment is deleted, and the post that deletes it. Who may delete is the
// interactions service's rule.
import { redirect } from "@remix-run/node";

import { paths, safeRedirect } from "~/lib/paths";
import { canDeleteComment } from "~/lib/permissions";
import { requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { invariantResponse } from "~/server/http/responses.server";
import { getCommentOwnership } from "~/server/queries/comments.server";
import { INTERACTION_MESSAGES, removeComment } from "~/server/services/interactions-service.server";

/** Where to go back to: a same-site path the form or the address gave, else the recipe page. */
function backTo(given: FormDataEntryValue | string | null, recipeId: string): string {
  return safeRedirect(given, `${paths.recipe(recipeId)}#comments`);
}

/** The comment to confirm, for its author or whoever else may delete it, and where Cancel goes. */
export async function loadDeleteCommentPage(request: Request, commentId: string) {
  const user = await requireUser(request);
  const comment = await getCommentOwnership(commentId);
  invariantResponse(comment, INTERACTION_MESSAGES.commentMissing, 404);
  invariantResponse(canDeleteComment(user, comment), INTERACTION_MESSAGES.notYourComment, 403);
  const returnTo = backTo(new URL(request.url).searchParams.get("returnTo"), comment.recipeId);
  return { commentId: comment.commentId, text: comment.text, returnTo };
}

/** Deletes the comment when the post confirms it (`confirm=yes`); otherwise asks on this page first. */
export async function deleteCommentPageAction(request: Request, commentId: string) {
  const user = await requireUser(request);
  const formData = await readForm(request);
  if (formData.get("confirm") !== "yes") {
    const returnTo = formData.get("returnTo");
    const query = typeof returnTo === "string" ? `?${new URLSearchParams({ returnTo })}` : "";
    return redirect(`${paths.deleteComment(commentId)}${query}`);
  }
  const outcome = await removeComment({ actor: user, commentId });
  invariantResponse(outcome.ok, outcome.ok ? "" : outcome.message, outcome.ok ? 200 : outcome.status);
  return redirect(backTo(formData.get("returnTo"), outcome.value.recipeId));
}
