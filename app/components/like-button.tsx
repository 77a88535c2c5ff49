import { useFetcher } from "@remix-run/react";

import { paths } from "~/lib/paths";

import { InteractionFields } from "./interaction-fields";
import { Icon } from "./icons";
import { FetcherForm, fetcherError, InlineError } from "./fetcher-form";
import { Link } from "./link";

type LikeResult = { liked: boolean; likes: number } | { error: string };

/**
 * The like toggle and the likes count of one post. Optimistic with JavaScript (derived from
 * the pending submission, so a failure falls back to the server's truth); a plain form post
 * without it. Visitors get a link to Login instead of a button.
 */
export function LikeControls({
  postId,
  liked,
  likes,
  signedIn,
  returnTo,
  likesHref,
}: {
  postId: string;
  liked: boolean;
  likes: number;
  signedIn: boolean;
  /** The page to come back to after a plain post or a sign-in. */
  returnTo: string;
  /** Where the likes count leads (the Likes dialog of the current page). */
  likesHref: string;
}) {
  const fetcher = useFetcher<LikeResult>();
  let shownLiked = liked;
  let shownLikes = likes;
  if (fetcher.formData) {
    shownLiked = fetcher.formData.get("intent") === "like";
    shownLikes = likes + (shownLiked === liked ? 0 : shownLiked ? 1 : -1);
  } else if (fetcher.data && "liked" in fetcher.data) {
    shownLiked = fetcher.data.liked;
    shownLikes = fetcher.data.likes;
  }
  const error = fetcherError(fetcher);
  const label = `${shownLikes} ${shownLikes === 1 ? "like" : "likes"}`;

  return (
    <div className="like-controls" id={`like-${postId}`}>
      {signedIn ? (
        <FetcherForm fetcher={fetcher} action={paths.likePost(postId)} preventScrollReset>
          <InteractionFields redirectTo={returnTo} anchor={`like-${postId}`} />
          <button
            type="submit"
            name="intent"
            value={shownLiked ? "unlike" : "like"}
            className={shownLiked ? "icon-button icon-button--only is-on" : "icon-button icon-button--only"}
            aria-pressed={shownLiked}
            title={shownLiked ? "Liked" : "Like"}
          >
            {/* A heart that fills: its name stays "Like", the pressed state says whether it is. */}
            <Icon name="heart" filled={shownLiked} />
            <span className="visually-hidden">Like</span>
          </button>
        </FetcherForm>
      ) : (
        <Link to={paths.login(returnTo)} className="icon-button icon-button--only" title="Like">
          <Icon name="heart" />
          <span className="visually-hidden">Like</span>
        </Link>
      )}
      {shownLikes > 0 ? (
        <Link to={likesHref} className="like-controls__count" preventScrollReset>
          {label}
        </Link>
      ) : (
        <span className="like-controls__count">{label}</span>
      )}
      <InlineError message={error} />
    </div>
  );
}
