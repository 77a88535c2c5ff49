import type { RemoteFeedPost } from "~/server/federation/remote-store.server";

import { Avatar } from "./avatar";
import { RelativeTime } from "./relative-time";

/**
 * A post from a person on another server whom the reader follows (docs/federation.md): who wrote
 * it (their handle), when, its text (tags were taken out when it arrived: it is shown as text),
 * its photo, and a link to the original. The photo loads from their server, lazily.
 */
export function RemotePostCard({ post }: { post: RemoteFeedPost }) {
  const host = new URL(post.url).host;
  return (
    <article className="post-card remote-post" aria-label={`Post by @${post.handle}`}>
      <header className="post-card__author">
        <span className="author-link">
          <Avatar src={post.icon_url} size={36} />
          <span className="remote-post__who">
            <span>{post.author_name}</span>
            <span className="remote-post__handle">@{post.handle}</span>
          </span>
        </span>
        <span className="post-card__time">
          <RelativeTime iso={new Date(post.published_at).toISOString()} />
        </span>
      </header>
      {post.image_url ? (
        <img className="remote-post__photo" src={post.image_url} alt="" width={600} height={450} loading="lazy" decoding="async" referrerPolicy="no-referrer" />
      ) : null}
      <div className="post-card__body">
        {post.name ? <h3 className="post-card__title">{post.name}</h3> : null}
        <p className="remote-post__text">{post.text}</p>
        <p className="remote-post__origin">
          <a href={post.url} rel="noopener noreferrer nofollow">
            View the original on {host}
          </a>
        </p>
      </div>
    </article>
  );
}
