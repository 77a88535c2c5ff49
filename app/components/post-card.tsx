import { memo } from "react";

import { DEFAULT_PROFILE_IMAGE, paths, RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";
import type { PostCardData } from "~/server/queries/feed.server";

import { Avatar } from "./avatar";
import { LikeControls } from "./like-button";
import { Icon } from "./icons";
import { Link } from "./link";
import { RelativeTime } from "./relative-time";
import { Photo } from "./photo";
import { SaveButton } from "./save-button";

/**
 * A post in the feed (docs/rules.md#home-and-post-cards). Memoized: the router's state changes
 * after hydration (routes the page links to arrive, pages are appended) re-render the feed,
 * and a card whose props are the same has nothing to redraw.
 */
export const PostCard = memo(function PostCard({
  post,
  signedIn,
  returnTo,
  likesHref,
  first = false,
}: {
  /** With its photo's inline placeholder when the loader read it. */
  post: PostCardData & { placeholder?: string | null };
  signedIn: boolean;
  returnTo: string;
  likesHref: string;
  /** The page's first photo, its largest paint on a phone: fetched before anything else. */
  first?: boolean;
}) {
  const recipeHref = paths.recipe(post.recipe_id);
  return (
    <article className="post-card" id={`post-${post.post_id}`} aria-labelledby={`post-${post.post_id}-title`}>
      <header className="post-card__author">
        {post.author ? (
          <Link to={paths.profile(post.author.id)} className="author-link">
            <Avatar src={post.author.profile} size={36} />
            <span>{post.author.username}</span>
          </Link>
        ) : (
          <span className="author-link">
            <Avatar src={DEFAULT_PROFILE_IMAGE} size={36} />
            <span>Unknown User</span>
          </span>
        )}
        {post.created_at ? (
          <span className="post-card__time">
            <RelativeTime iso={post.created_at} />
          </span>
        ) : null}
      </header>
      <Link to={recipeHref} className="post-card__photo" tabIndex={-1} aria-hidden="true">
        <Photo src={post.photo || RECIPE_PLACEHOLDER_IMAGE} placeholder={post.placeholder} slot="feed" alt="" name={post.title} width={600} height={450} first={first} />
      </Link>
      <div className="post-card__body">
        <div className="post-card__actions">
          <LikeControls
            postId={post.post_id}
            liked={post.liked}
            likes={post.likes}
            signedIn={signedIn}
            returnTo={returnTo}
            likesHref={likesHref}
          />
          <Link to={`${recipeHref}#comments`} className="icon-button">
            <Icon name="comment" /> {post.comments} {post.comments === 1 ? "comment" : "comments"}
          </Link>
          <span className="post-card__save">
            {signedIn ? (
              <SaveButton recipeId={post.recipe_id} saved={post.saved} returnTo={returnTo} look="card" />
            ) : (
              <Link to={paths.login(returnTo)} className="icon-button icon-button--only" title="Save recipe">
                <Icon name="bookmark" />
                <span className="visually-hidden">Save recipe</span>
              </Link>
            )}
          </span>
        </div>
        <h2 className="post-card__title" id={`post-${post.post_id}-title`}>
          <Link to={recipeHref}>{post.title}</Link>
        </h2>
        {/* The recipe's facts when it has them; none made up. */}
        {post.total_time || post.serves !== null ? (
          <p className="post-card__facts">
            {post.total_time ? <span>{post.total_time}</span> : null}
            {post.serves !== null ? <span>Serves {post.serves}</span> : null}
          </p>
        ) : null}
        {post.caption ? <p className="post-card__caption">{post.caption}</p> : null}
      </div>
    </article>
  );
});
