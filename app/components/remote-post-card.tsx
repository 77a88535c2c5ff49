import { useFetcher } from "@remix-run/react";

import { paths } from "~/lib/paths";
import { shownRemoteImage } from "~/lib/remote-images";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import type { action as remotePostsAction } from "~/routes/ReciPals.Account.RemotePosts";
import type { RemoteFeedPost } from "~/server/federation/remote-store.server";

import { Avatar } from "./avatar";
import { FetcherForm, InlineError } from "./fetcher-form";
import { Icon } from "./icons";
import { InteractionFields, useReturnTo } from "./interaction-fields";
import { Link } from "./link";
import { RelativeTime } from "./relative-time";

/** Like for a post from elsewhere: its author's server is told (a Like, or an Undo of it). Optimistic with JavaScript. */
function RemoteLikeButton({ postId, liked, anchor }: { postId: string; liked: boolean; anchor: string }) {
  const returnTo = useReturnTo();
  const fetcher = useFetcher<typeof remotePostsAction>();
  const pending = fetcher.formData ? String(fetcher.formData.get("intent")) : null;
  const answered = fetcher.state === "idle" && fetcher.data && !isEarlyRefusal(fetcher.data) && fetcher.data.ok ? (fetcher.data.liked ?? null) : null;
  const on = pending ? pending === "like" : (answered ?? liked);
  const error =
    earlyRefusalMessage(fetcher.state === "idle" ? fetcher.data : null) ??
    (fetcher.state === "idle" && fetcher.data && !isEarlyRefusal(fetcher.data) && !fetcher.data.ok ? fetcher.data.message : null);
  return (
    <FetcherForm fetcher={fetcher} action={paths.remotePosts()} className="inline-form" preventScrollReset>
      <InteractionFields redirectTo={returnTo} anchor={anchor} />
      <input type="hidden" name="post" value={postId} />
      <button type="submit" name="intent" value={on ? "unlike" : "like"} className={on ? "icon-button icon-button--only is-on" : "icon-button icon-button--only"} aria-pressed={on}>
        <Icon name="heart" filled={on} />
        <span className="visually-hidden">Like</span>
      </button>
      <InlineError message={error} />
    </FetcherForm>
  );
}

/**
 * A reply to a post from elsewhere: sent to its author's server, and shown under the post. With
 * JavaScript the box empties once it is sent (the page's data, read again, lists it); a refusal
 * keeps the words with the message.
 */
function RemoteReplyForm({ postId, handle, anchor, max }: { postId: string; handle: string; anchor: string; max: number }) {
  const returnTo = useReturnTo();
  const fetcher = useFetcher<typeof remotePostsAction>();
  const refused = fetcher.state === "idle" && fetcher.data && !isEarlyRefusal(fetcher.data) && !fetcher.data.ok ? fetcher.data : null;
  const error = earlyRefusalMessage(fetcher.state === "idle" ? fetcher.data : null) ?? refused?.message ?? null;
  const sent = fetcher.state === "idle" && fetcher.data && !isEarlyRefusal(fetcher.data) && fetcher.data.ok ? fetcher.data.replyId : undefined;
  const box = `${anchor}-reply`;
  return (
    <FetcherForm fetcher={fetcher} action={paths.remotePosts()} className="remote-post__reply" preventScrollReset>
      <InteractionFields redirectTo={returnTo} anchor={anchor} />
      <input type="hidden" name="post" value={postId} />
      <label htmlFor={box} className="visually-hidden">
        Reply to @{handle}
      </label>
      {/* A new key once a reply is sent: the box starts empty for the next one. */}
      <textarea key={sent ?? "box"} id={box} name="text" rows={1} maxLength={max} placeholder="Reply…" defaultValue={refused?.text ?? ""} required />
      <button type="submit" name="intent" value="reply" className="button button--ghost" disabled={fetcher.state !== "idle"}>
        Reply
      </button>
      <InlineError message={error} />
    </FetcherForm>
  );
}

/**
 * A post from a person on another server whom the reader follows (docs/federation.md): who wrote
 * it (their handle), when, its text (tags were taken out when it arrived: it is shown as text),
 * its photo, Like, the reader's replies and a box for one more, a link to the original and Report. The photo loads from their server, lazily.
 */
export function RemotePostCard({ post, index, replyMax }: { post: RemoteFeedPost & { reportHref?: string }; index: number; /** A reply's longest length (the loader's: Home's script carries no limits module). */ replyMax: number }) {
  const host = new URL(post.url).host;
  const anchor = `remote-post-${index}`;
  return (
    <article className="post-card remote-post" id={anchor} aria-label={`Post by @${post.handle}`}>
      <header className="post-card__author">
        <span className="author-link">
          <Avatar src={shownRemoteImage(post.icon_url)} size={36} />
          <span className="remote-post__who">
            <span>{post.author_name}</span>
            <span className="remote-post__handle">@{post.handle}</span>
          </span>
        </span>
        <span className="post-card__time">
          <RelativeTime iso={new Date(post.published_at).toISOString()} />
        </span>
      </header>
      {shownRemoteImage(post.image_url) ? (
        <img className="remote-post__photo" src={shownRemoteImage(post.image_url)!} alt="" width={600} height={450} loading="lazy" decoding="async" referrerPolicy="no-referrer" />
      ) : null}
      <div className="post-card__body">
        <div className="post-card__actions">
          <RemoteLikeButton postId={post.id} liked={post.liked} anchor={anchor} />
        </div>
        {post.name ? <h3 className="post-card__title">{post.name}</h3> : null}
        <p className="remote-post__text">{post.text}</p>
        {post.replies.length > 0 ? (
          <ol className="remote-post__replies" aria-label="Your replies">
            {post.replies.map((reply) => (
              <li key={reply.id}>
                <span className="remote-post__you">You</span> {reply.text}
              </li>
            ))}
          </ol>
        ) : null}
        <RemoteReplyForm postId={post.id} handle={post.handle} anchor={anchor} max={replyMax} />
        <p className="remote-post__origin">
          <a href={post.url} rel="noopener noreferrer nofollow">
            View the original on {host}
          </a>
          {post.reportHref ? (
            <>
              {" · "}
              <Link to={post.reportHref} aria-label={`Report the post by @${post.handle}`}>
                Report
              </Link>
            </>
          ) : null}
        </p>
      </div>
    </article>
  );
}
