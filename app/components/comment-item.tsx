import { paths } from "~/lib/paths";
import type { CommentView } from "~/server/queries/comments.server";

import { Avatar } from "./avatar";
import { Link } from "./link";
import { RelativeTime } from "./relative-time";

export const DELETE_COMMENT_MESSAGE = "Delete this comment? This cannot be undone.";

/** A comment as a page lists it: with the address of its report page when it is someone else's (the loader makes it). */
export type ListedComment = CommentView & { reportHref?: string };

const BLOCKED_LABEL = { viewer: "From someone you blocked", author: "From someone who blocked you" } as const;

/**
 * One comment as the recipe page and the post viewer list it: picture, author, date, text,
 * "Delete comment" when `deleteReturnTo` is given (the loader decided the viewer may delete it),
 * and "Report" when it has a report page. A comment the recipe's owner sees although a block hides
 * its author from them comes collapsed under what it is (a <details>, no script needed), with its
 * Delete and Report at hand.
 */
export function CommentItem({ comment, deleteReturnTo }: { comment: ListedComment; deleteReturnTo?: string }) {
  const shown = (
    <>
      <p className="comment__meta">
        {comment.remote ? (
          <a href={comment.remote.url} rel="noopener noreferrer nofollow">
            @{comment.remote.handle}
          </a>
        ) : comment.author ? (
          <Link to={paths.profile(comment.author.id)}>{comment.author.username}</Link>
        ) : (
          "Unknown User"
        )}{" "}
        <RelativeTime iso={comment.created_at} />
      </p>
      <p className="comment__text">{comment.text}</p>
    </>
  );
  const actions = (
    <>
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
      {comment.reportHref ? (
        <Link to={comment.reportHref} className="comment__report" aria-label={`Report the comment by ${comment.remote ? `@${comment.remote.handle}` : (comment.author?.username ?? "Unknown User")}`}>
          Report
        </Link>
      ) : null}
    </>
  );
  if (comment.blocked) {
    return (
      <li id={`comment-${comment.comment_id}`} className="comment comment--blocked">
        <div className="comment__body">
          <details className="comment__collapsed">
            <summary>{BLOCKED_LABEL[comment.blocked]}</summary>
            {shown}
          </details>
          {actions}
        </div>
      </li>
    );
  }
  return (
    <li id={`comment-${comment.comment_id}`} className="comment">
      <Avatar src={comment.author?.profile} size={32} />
      <div className="comment__body">
        {shown}
        {actions}
      </div>
    </li>
  );
}
