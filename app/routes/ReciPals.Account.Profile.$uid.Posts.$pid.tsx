// The post viewer (/ReciPals/Account/Profile/{uid}/Posts/{pid}): the address's contract and the
// dialog over the profile; what it shows is app/server/pages/post-page.server.ts.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Outlet, useActionData, useLoaderData, useNavigation } from "@remix-run/react";

import { Avatar } from "~/components/avatar";
import { CommentItem } from "~/components/comment-item";
import { Icon } from "~/components/icons";
import { LikeControls } from "~/components/like-button";
import { Link } from "~/components/link";
import { Photo } from "~/components/photo";
import { RouteDialog } from "~/components/route-dialog";
import { recipesFeedLink } from "~/lib/feeds";
import { COMMENT_MAX } from "~/lib/limits";
import { paths, RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";
import { reportPath } from "~/lib/reports";
import { shareMeta } from "~/lib/structured-data";
import { stylesheetLinks, type StyledRoute } from "~/root";
import { loadPostPage, postPageAction } from "~/server/pages/post-page.server";
import feedStyles from "~/styles/feed.css";

export const handle: StyledRoute = { styles: [feedStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

// This route's meta replaces the profile's (Remix keeps the deepest), so it repeats the feed link.
export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data || !("post" in data)) return [{ title: "Post not found · ReciPals" }];
  const { post, share } = data;
  const author = post.author?.username ?? "Unknown User";
  return [
    { title: `${post.title} · ReciPals` },
    { name: "description", content: share.description },
    ...shareMeta({ title: post.title, description: share.description, image: share.image, url: share.url, type: "article" }),
    ...(post.author ? [recipesFeedLink(share.feed, author)] : []),
  ];
};

export const loader = ({ request, params }: LoaderFunctionArgs) => loadPostPage(request, params.uid ?? "", params.pid ?? "");

export const action = ({ request, params }: ActionFunctionArgs) => postPageAction(request, params.uid ?? "", params.pid ?? "");

export default function PostViewerRoute() {
  const loaded = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const sending = useNavigation().formData?.get("intent") === "comment";
  const profileHref = paths.profile(loaded.uid);
  if (!("post" in loaded)) {
    return (
      <RouteDialog title="Post not found." closeTo={profileHref}>
        <p>
          No post with the id <code>{loaded.postId}</code>.
        </p>
        {loaded.available.length > 0 ? (
          <>
            <p>Available posts:</p>
            <ul className="post-ids">
              {loaded.available.map((id) => (
                <li key={id}>
                  <Link to={paths.post(loaded.uid, id)}>{id}</Link>
                </li>
              ))}
            </ul>
          </>
        ) : (
          <p>This user has no posts yet.</p>
        )}
        <Link to={profileHref} className="button">
          Back to Profile
        </Link>
      </RouteDialog>
    );
  }
  const { post, comments, previous, next, isAuthor, uid, deletable } = loaded;
  const viewerHref = paths.post(uid, post.post_id);
  return (
    <RouteDialog title={post.title} closeTo={profileHref} wide>
      {/* On a phone one column; on a wide screen the photo beside author, caption, likes and comments. */}
      <div className="post-viewer">
        <header className="post-viewer__author">
          <Link to={post.author ? paths.profile(post.author.id) : profileHref} className="author-link">
            <Avatar src={post.author?.profile} size={36} />
            <span>{post.author?.username ?? "Unknown User"}</span>
          </Link>
          {isAuthor ? (
            <Link to={paths.editor(post.recipe_id)} className="button button--ghost">
              Edit Recipe
            </Link>
          ) : (
            <Link to={reportPath("post", post.post_id)} className="button button--ghost" aria-label="Report this recipe">
              Report
            </Link>
          )}
        </header>
        <Link to={paths.recipe(post.recipe_id)} className="post-viewer__photo">
          <Photo src={post.photo || RECIPE_PLACEHOLDER_IMAGE} placeholder={post.placeholder} slot="feed" alt={post.title} width={600} height={450} eager />
        </Link>
        <p className="post-viewer__caption">
          <strong>{post.author?.username ?? "Unknown User"}</strong> {post.caption}
        </p>
        <nav className="post-viewer__chevrons" aria-label="Posts">
          {previous ? (
            <Link to={paths.post(uid, previous)} className="chevron" rel="prev">
              <span aria-hidden="true">‹</span> Previous post
            </Link>
          ) : (
            <a className="chevron is-disabled" aria-disabled="true" role="link">
              <span aria-hidden="true">‹</span> Previous post
            </a>
          )}
          {next ? (
            <Link to={paths.post(uid, next)} className="chevron" rel="next">
              Next post <span aria-hidden="true">›</span>
            </Link>
          ) : (
            <a className="chevron is-disabled" aria-disabled="true" role="link">
              Next post <span aria-hidden="true">›</span>
            </a>
          )}
        </nav>
        <div className="post-card__actions">
          <LikeControls
            postId={post.post_id}
            liked={post.liked}
            likes={post.likes}
            signedIn
            returnTo={viewerHref}
            likesHref={paths.postLikes(uid, post.post_id)}
          />
          <Link to={`${paths.recipe(post.recipe_id)}#comments`} className="icon-button">
            <Icon name="comment" /> {post.comments} {post.comments === 1 ? "comment" : "comments"}
          </Link>
        </div>
        <section className="post-viewer__comments" aria-label="Comments" tabIndex={0}>
          {comments.length === 0 ? (
            <p className="muted">No comments yet.</p>
          ) : (
            <ol className="comments__list">
              {comments.map((comment) => (
                <CommentItem
                  key={comment.comment_id}
                  comment={comment}
                  deleteReturnTo={deletable.includes(comment.comment_id) ? paths.post(uid, post.post_id) : undefined}
                />
              ))}
            </ol>
          )}
        </section>
        <Form method="post" className="comment-form post-viewer__comment-form" noValidate preventScrollReset>
          <label htmlFor="viewer-comment" className="visually-hidden">
            Comment
          </label>
          {/* A new comment in the list empties the box (a new element). */}
          <textarea
            key={comments.length}
            id="viewer-comment"
            name="text"
            rows={2}
            placeholder="Add a comment..."
            maxLength={COMMENT_MAX}
            defaultValue={failure?.text ?? ""}
            aria-invalid={failure ? true : undefined}
            aria-describedby={failure ? "viewer-comment-error" : undefined}
          />
          <button type="submit" name="intent" value="comment" className="button" disabled={sending}>
            {sending ? "Posting..." : "Post"}
          </button>
          {failure ? (
            <p className="field__error" id="viewer-comment-error" role="alert">
              {failure.error}
            </p>
          ) : null}
        </Form>
      </div>
      <Outlet />
    </RouteDialog>
  );
}
