import { data, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";

import { Avatar } from "~/components/avatar";
import { CommentItem } from "~/components/comment-item";
import { Icon } from "~/components/icons";
import { LikeControls } from "~/components/like-button";
import { RouteDialog } from "~/components/route-dialog";
import { recipesFeedLink, recipesFeedPath } from "~/lib/feeds";
import { reportPath } from "~/lib/reports";
import { paths, RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";
import { absoluteUrl, shareMeta } from "~/lib/structured-data";
import { listComments } from "~/server/queries/comments.server";
import { deletableComments } from "~/server/services/interactions.server";
import { withReportLinks } from "~/server/services/moderation.server";
import { getPostCard } from "~/server/queries/feed.server";
import { listUserPosts } from "~/server/queries/posts.server";
import { getLens, requireUser } from "~/server/auth/session.server";
import { invariantResponse } from "~/server/http/responses.server";
import { isHidden, UNAVAILABLE_ACCOUNT } from "~/server/queries/visibility.server";
import { siteOrigin } from "~/server/http/site.server";
import { stylesheetLinks, type StyledRoute } from "~/root";
import feedStyles from "~/styles/feed.css";
import { Link } from "~/components/link";
import { Photo } from "~/components/photo";
import { placeholderFor } from "~/server/http/photos.server";

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

export async function loader({ request, params }: LoaderFunctionArgs) {
  const viewer = await requireUser(request);
  const uid = params.uid ?? "";
  const pid = params.pid ?? "";
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, uid)), UNAVAILABLE_ACCOUNT, 404);
  const posts = await listUserPosts(uid);
  const index = posts.findIndex((p) => p.post_id === pid);
  // A post's author is its recipe's creator: they also see, collapsed, the comments of people a block hides from them.
  const commentsSeen = uid === viewer.id ? { without: lens.quiet, ownerSees: lens.hidden, blocking: lens.blocking } : { without: lens.quiet };
  const [post, comments] = index >= 0 ? await Promise.all([getPostCard(pid, viewer.id), listComments(pid, commentsSeen)]) : [undefined, []];
  if (!post) {
    // The missing-post page lists what the author does have (docs/rules.md#post-viewer), with an honest 404.
    return data({ uid, postId: pid, available: posts.map((p) => p.post_id) }, { status: 404 });
  }
  const origin = siteOrigin(request);
  return {
    uid,
    post: { ...post, placeholder: await placeholderFor(post.photo) },
    comments: withReportLinks("comment", comments, viewer.id, (comment) => ({ id: comment.comment_id, ownerId: comment.author?.id })),
    // Share previews (docs/rules.md#share-previews): absolute URLs.
    share: {
      url: absoluteUrl(origin, paths.post(uid, post.post_id)),
      image: absoluteUrl(origin, post.photo),
      description: post.caption || `A recipe by ${post.author?.username ?? "Unknown User"} on ReciPals.`,
      feed: absoluteUrl(origin, recipesFeedPath(post.author?.id ?? uid)),
    },
    previous: posts[index - 1]?.post_id ?? null,
    next: posts[index + 1]?.post_id ?? null,
    isAuthor: post.author?.id === viewer.id,
    // The comments the viewer may delete (docs/rules.md#deleting-a-comment); a post's author is its recipe's creator.
    deletable: deletableComments(viewer, comments, post.author?.id ?? null),
  };
}

export default function PostViewerRoute() {
  const loaded = useLoaderData<typeof loader>();
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
          <Link to={`${paths.recipe(post.recipe_id)}#comments`}>Add a comment on the recipe page</Link>
        </section>
      </div>
      <Outlet />
    </RouteDialog>
  );
}
