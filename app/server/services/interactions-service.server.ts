import type { RawBuilder, SqlBool } from "kysely";

import { canActFor, canDeleteComment } from "~/lib/permissions";

import { CacheScope, changing } from "../cache/scopes.server";
import type { DB } from "../db/connection.server";
import { addComment as insertComment, deleteComment, getCommentOwnership, type CommentView } from "../queries/comments.server";
import { setPostLiked } from "../queries/likes.server";
import { getPostForRecipe, getPostOwnership, getPostWithLikes } from "../queries/posts.server";
import { getRecipeCreator } from "../queries/recipes.server";
import { setRecipeSaved } from "../queries/saved.server";
import { CommentSchema } from "../validation/comment-schema.server";
import { notify, withdraw, withdrawComment } from "./notifications-service.server";
import { done, refusal, RefusedError, refusing, type Actor, type Outcome } from "./outcome-service.server";
import { refuseIfBlocked, writeIfOpen } from "./people-service.server";

// Likes, saves and comments, for the pages and the API alike (docs/rules.md#likes-saves-comments).
// Likes and saves are idempotent both ways; each write is one transaction. A like or a comment
// changes its post — the page-cache scope of its recipe (cache/scopes.server.ts) — and nothing
// else a visitor's kept page shows; a save changes only the saver's JSON entity (their saved
// list; visitors see no saves).

export const INTERACTION_MESSAGES = {
  postMissing: "Post not found.",
  recipeMissing: "Recipe not found.",
  ownLikeOnly: "You may only like or unlike a post as yourself.",
  ownSavesOnly: "You may only change your own saved recipes.",
  commentMissing: "That comment was already removed.",
  adminOnly: "Only administrators may remove comments.",
  notYourComment: "You may only delete your own comments, or comments on your recipes.",
} as const;

/**
 * Likes or unlikes inside `trx`, telling the post's creator or taking that back when it changed
 * something (the page form, the API and the whole-post PUT alike). True when it changed something.
 */
export async function storeLike(
  trx: DB,
  {
    post,
    userId,
    liked,
    onlyIf = null,
  }: { post: { id: string; recipe_id: string; created_by: string | null }; userId: string; liked: boolean; /** A block's condition (writeIfOpen). */ onlyIf?: RawBuilder<SqlBool> | null },
): Promise<boolean> {
  const changed = await setPostLiked({ postId: post.id, userId, liked, onlyIf }, trx);
  if (changed) {
    const notice = { kind: "like", actorId: userId, target: { postId: post.id } } as const;
    await (liked ? notify({ ...notice, about: { recipient: post.created_by, post_id: post.id, recipe_id: post.recipe_id } }, trx) : withdraw(notice, trx));
  }
  return changed;
}

/** Removes a comment inside `trx`, with its notification while unread; false when it was already gone. */
export async function storeCommentRemoved(trx: DB, { postId, commentId }: { postId: string; commentId: string }): Promise<boolean> {
  await withdrawComment({ postId, commentId }, trx);
  return deleteComment({ postId, commentId }, trx);
}

/**
 * A read started before the session is read (side by side with it: one round trip less to wait
 * for) and awaited only once the session allowed the write. A visitor's request ends at the login
 * redirect without awaiting it: its failure is nobody's.
 */
function readAhead<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** The post a like is about, read ahead of the session (readAhead); handed to setLike. */
export const readPostForLike = (postId: string) => readAhead(getPostWithLikes(postId));

/**
 * `userId` (the actor unless an ADMIN sets someone else's, as the API's whole-post PUT may) likes or
 * unlikes a post. Answers the post's like count.
 */
export async function setLike({
  actor,
  postId,
  liked,
  userId = actor.id,
  post: preread,
}: {
  actor: Actor;
  postId: string;
  liked: boolean;
  userId?: string;
  /** readPostForLike(postId), started before the session was read. */
  post?: ReturnType<typeof readPostForLike>;
}): Promise<Outcome<{ likes: number }>> {
  if (!canActFor(actor, userId)) return refusal(403, INTERACTION_MESSAGES.ownLikeOnly);
  const post = await (preread ?? getPostWithLikes(postId));
  if (!post) return refusal(404, INTERACTION_MESSAGES.postMissing);
  return refusing(async () => {
    // The block's condition rides in the like's own insert (writeIfOpen), and the notification goes
    // with the commit: four round trips in all on PostgreSQL (docs/scaling.md, "Round trips").
    const changed = await changing([CacheScope.recipe(post.recipe_id)], async (trx) =>
      liked ? writeIfOpen(trx, userId, post.created_by, (onlyIf) => storeLike(trx, { post, userId, liked, onlyIf })) : storeLike(trx, { post, userId, liked }),
    );
    // The count as read just before, with this write's own change: no query after the write (a
    // like is the most frequent write; docs/scaling.md counts its round trips). Others' likes
    // meanwhile show on the next page; one's own like racing one's own unlike never shows below 0.
    return done({ likes: Math.max(0, post.likes + (changed ? (liked ? 1 : -1) : 0)) });
  });
}

/** `userId` (the actor themself) saves or unsaves a recipe. */
export async function setSaved({ actor, recipeId, saved, userId = actor.id }: { actor: Actor; recipeId: string; saved: boolean; userId?: string }): Promise<Outcome> {
  if (userId !== actor.id) return refusal(403, INTERACTION_MESSAGES.ownSavesOnly);
  const creatorId = await getRecipeCreator(recipeId);
  if (creatorId === undefined) return refusal(404, INTERACTION_MESSAGES.recipeMissing);
  return refusing(async () => {
    await changing([CacheScope.user(userId)], async (trx) => {
      if (saved) await refuseIfBlocked(trx, userId, creatorId);
      if (!(await setRecipeSaved({ userId, recipeId, saved }, trx))) return;
      const notice = { kind: "save", actorId: userId, target: { recipeId } } as const;
      await (saved ? notify(notice, trx) : withdraw(notice, trx));
    });
    return done();
  });
}

/** The post a comment on a recipe goes to, read ahead of the session (readAhead); handed to addComment. */
export const readPostForComment = (recipeId: string) => readAhead(getPostForRecipe(recipeId));

/**
 * The actor comments on a post, named by its id or by its recipe's: the text trimmed, never empty,
 * at most COMMENT_MAX characters. An actor read from the session carries what the comment shows of
 * its author, which saves reading it again.
 */
export async function addComment(
  args: { actor: Actor | (Actor & { username: string; profile: string }); text: string; /** readPostForComment(recipeId), started before the session was read. */ post?: ReturnType<typeof readPostForComment> } & (
    | { postId: string }
    | { recipeId: string }
  ),
): Promise<Outcome<CommentView>> {
  const { actor, text } = args;
  // What it is on first: a comment on nothing is a 404 whatever its text.
  const post = "postId" in args ? await getPostOwnership(args.postId) : await (args.post ?? getPostForRecipe(args.recipeId));
  if (!post) return refusal(404, "postId" in args ? INTERACTION_MESSAGES.postMissing : INTERACTION_MESSAGES.recipeMissing);
  const parsed = CommentSchema.safeParse({ text });
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? "Please check your comment.";
    return refusal(400, message, { errors: { text: message } });
  }
  const author = "username" in actor ? { id: actor.id, username: actor.username, profile: actor.profile } : undefined;
  const about = { recipient: post.created_by, post_id: post.id, recipe_id: post.recipe_id };
  return refusing(async () =>
    done(
      await changing([CacheScope.recipe(post.recipe_id)], async (trx) => {
        // As a like: the block's condition in the comment's insert, the notification with the commit.
        const comment = await writeIfOpen(trx, actor.id, post.created_by, (onlyIf) => insertComment({ postId: post.id, userId: actor.id, text: parsed.data.text, author, onlyIf }, trx));
        // Nothing written and no refusal: an owner who was there a moment ago is not any more.
        if (comment === false) throw new RefusedError(refusal(404, INTERACTION_MESSAGES.postMissing));
        await notify({ kind: "comment", actorId: actor.id, target: { postId: post.id }, commentId: comment.comment_id, about }, trx);
        return comment;
      }),
    ),
  );
}

/** The ids of `comments` (of one recipe, created by `recipeCreatorId`) that `viewer` may delete. */
export function deletableComments(viewer: Actor | null, comments: CommentView[], recipeCreatorId: string | null): string[] {
  return comments.filter((c) => canDeleteComment(viewer, { authorId: c.author?.id ?? null, recipeCreatorId })).map((c) => c.comment_id);
}

/**
 * Deletes a comment (docs/rules.md#deleting-a-comment): its author, the creator of the recipe it is
 * on, or an ADMIN; its notification goes with it. `postId`, when given, must be the comment's post.
 */
export async function removeComment({ actor, postId, commentId }: { actor: Actor; postId?: string; commentId: string }): Promise<Outcome<{ postId: string; recipeId: string }>> {
  const comment = await getCommentOwnership(commentId);
  if (!comment || (postId !== undefined && comment.postId !== postId)) return refusal(404, INTERACTION_MESSAGES.commentMissing);
  if (!canDeleteComment(actor, comment)) return refusal(403, INTERACTION_MESSAGES.notYourComment);
  const removed = await changing([CacheScope.recipe(comment.recipeId)], (trx) => storeCommentRemoved(trx, { postId: comment.postId, commentId }));
  return removed ? done({ postId: comment.postId, recipeId: comment.recipeId }) : refusal(404, INTERACTION_MESSAGES.commentMissing);
}
