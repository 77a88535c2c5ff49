// The post viewer (/ReciPals/Account/Profile/{uid}/Posts/{pid}, docs/rules.md#post-viewer): a
// dialog over the profile with one post, its comments and the way to the author's other posts.
import { data, redirect } from "@remix-run/node";

import { recipesFeedPath } from "~/lib/feeds";
import { paths } from "~/lib/paths";
import { absoluteUrl } from "~/lib/structured-data";
import { getLens, requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { siteOrigin } from "~/server/http/site.server";
import { placeholderFor } from "~/server/media/placeholders.server";
import { listComments } from "~/server/queries/comments.server";
import { getPostCard } from "~/server/queries/feed.server";
import { listUserPosts } from "~/server/queries/posts.server";
import { isHidden, UNAVAILABLE_ACCOUNT } from "~/server/queries/visibility.server";
import { addComment, deletableComments } from "~/server/services/interactions-service.server";
import { withReportLinks } from "~/server/services/moderation-service.server";

/** One post of a profile with its comments, share tags and neighbours; or, for a post the author lacks, what they have. */
export async function loadPostPage(request: Request, uid: string, pid: string) {
  const viewer = await requireUser(request);
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

/** What a failed comment from the post viewer answers: the message and the text kept in the box. */
export type PostPageActionData = { error: string; text: string };

/**
 * A comment from the post viewer's box (signed in): on the post, then back to it at the new
 * comment; a refusal keeps the text with its message. The rules are the interactions service's.
 */
export async function postPageAction(request: Request, uid: string, pid: string) {
  const user = await requireUser(request);
  const formData = await readForm(request);
  if (readIntent(formData) !== "comment") return data<PostPageActionData>({ error: "Unknown action.", text: "" }, { status: 400 });
  const typed = formData.get("text");
  const text = typeof typed === "string" ? typed : "";
  const outcome = await addComment({ actor: user, postId: pid, text });
  if (!outcome.ok) {
    if (outcome.status === 404) throw new Response(outcome.message, { status: 404 });
    return data<PostPageActionData>({ error: outcome.message, text }, { status: outcome.status });
  }
  return redirect(`${paths.post(uid, pid)}#comment-${outcome.value.comment_id}`);
}
