import { paths } from "~/lib/paths";
import { canDeleteComment, type Actor } from "~/lib/permissions";
import type { CommentView } from "~/server/queries/comments.server";

import { Avatar } from "./avatar";
import { ConfirmButton } from "./confirm";
import { Link } from "./link";

export const DELETE_COMMENT_MESSAGE = "Delete this comment? This cannot be undone.";

/**
 * One comment as the recipe page and the post viewer list it: picture, author, date, text, and
 * "Delete comment" for whoever may delete it (its author, the recipe's creator, an ADMIN).
 */
export function CommentItem({
  comment,
  viewer = null,
  recipeCreatorId = null,
  returnTo,
}: {
  comment: CommentView;
  /** Who is looking (null: a visitor). */
  viewer?: Actor | null;
  recipeCreatorId?: string | null;
  /** The page to come back to after deleting. */
  returnTo?: string;
}) {
  const deletable = returnTo !== undefined && canDeleteComment(viewer, { authorId: comment.author?.id ?? null, recipeCreatorId });
  return (
    <li id={`comment-${comment.comment_id}`} className="comment">
      <Avatar src={comment.author?.profile} size={32} />
      <div className="comment__body">
        <p className="comment__meta">
          {comment.author ? <Link to={paths.profile(comment.author.id)}>{comment.author.username}</Link> : "Unknown User"}{" "}
          <time dateTime={comment.created_at}>{comment.created_at}</time>
        </p>
        <p className="comment__text">{comment.text}</p>
        {deletable ? (
          <ConfirmButton
            action={paths.deleteComment(comment.comment_id)}
            intent="delete-comment"
            message={DELETE_COMMENT_MESSAGE}
            label="Delete comment"
            fields={{ returnTo }}
            className="link-button comment__delete"
          />
        ) : null}
      </div>
    </li>
  );
}
