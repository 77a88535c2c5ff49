
import { paths } from "~/lib/paths";
import type { CommentView } from "~/server/queries/comments.server";

import { Avatar } from "./avatar";
import { Link } from "./link";

/** One comment as the recipe page and the post viewer list it: picture, author, date, text. */
export function CommentItem({ comment }: { comment: CommentView }) {
  return (
    <li id={`comment-${comment.comment_id}`} className="comment">
      <Avatar src={comment.author?.profile} size={32} />
      <div>
        <p className="comment__meta">
          {comment.author ? <Link to={paths.profile(comment.author.id)}>{comment.author.username}</Link> : "Unknown User"}{" "}
          <time dateTime={comment.created_at}>{comment.created_at}</time>
        </p>
        <p className="comment__text">{comment.text}</p>
      </div>
    </li>
  );
}
