import type { ReactNode } from "react";

import { paths } from "~/lib/paths";
import type { CommentView } from "~/server/queries/comments.server";

import { Avatar } from "./avatar";
import { Link } from "./link";

export const DELETE_COMMENT_MESSAGE = "Delete this comment? This cannot be undone.";

/**
 * One comment as the recipe page and the post viewer list it: picture, author, date, text, and
 * "Delete comment" when `deleteReturnTo` is given (the loader decided the viewer may delete it),
 * then `children` (the post viewer's "Report").
 */
export function CommentItem({ comment, deleteReturnTo, children }: { comment: CommentView; deleteReturnTo?: string; children?: ReactNode }) {
  return (
    <li id={`comment-${comment.comment_id}`} className="comment">
      <Avatar src={comment.author?.profile} size={32} />
      <div className="comment__body">
        <p className="comment__meta">
          {comment.author ? <Link to={paths.profile(comment.author.id)}>{comment.author.username}</Link> : "Unknown User"}{" "}
          <time dateTime={comment.created_at}>{comment.created_at}</time>
        </p>
        <p className="comment__text">{comment.text}</p>
        {deleteReturnTo !== undefined ? (
          // A plain form, light on the recipe page's script: without JavaScript it leads to the
          // confirmation page; with it, the browser's confirm asks and `confirm=yes` goes along.
          <form
            method="post"
            action={paths.deleteComment(comment.comment_id)}
            className="inline-form"
            onSubmit={(event) => {
              if (!window.confirm(DELETE_COMMENT_MESSAGE)) return event.preventDefault();
              (event.currentTarget.elements.namedItem("confirm") as HTMLInputElement).value = "yes";
            }}
          >
            <input type="hidden" name="returnTo" value={deleteReturnTo} />
            <input type="hidden" name="confirm" value="" />
            <button type="submit" name="intent" value="delete-comment" className="comment__delete">
              Delete comment
            </button>
          </form>
        ) : null}
        {children}
      </div>
    </li>
  );
}
