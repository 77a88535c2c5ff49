import { canActFor, canEditRecipe, canRemoveComments } from "~/lib/permissions";

import { CacheScope, changing } from "../cache/scopes.server";
import { db } from "../db/connection.server";
import { applyPicture, type PicturePlan } from "../media/pictures.server";
import { deleteImageIfUnreferenced } from "../media/uploads.server";
import { createPostForRecipe, getPostOwnership, updatePostContent } from "../queries/posts.server";
import { readUsersWithLists } from "../queries/users.server";
import { INTERACTION_MESSAGES, storeCommentRemoved, storeLike } from "./interactions-service.server";
import { done, refusal, refusing, type Actor, type Outcome } from "./outcome-service.server";
import { refuseIfBlocked } from "./people-service.server";

// A post changed as a whole (the API's PUT of a whole post object): its own title, caption and
// photo (the author or an ADMIN), likes (one's own, or anyone's for an ADMIN) and comments an ADMIN
// removes, all in one transaction (docs/rules.md#whole-object-put-merge-rules). The same
// permission rules as the single likes and comment removals of the pages. All of it is in the
// page-cache scope of the post's recipe (cache/scopes.server.ts).

export const POST_MESSAGES = {
  notFound: "Post not found.",
  authorOnly: "Only the author or an administrator may edit this post.",
  unknownLiker: "Likes must name existing users.",
} as const;

export interface PostChanges {
  /** New title and caption (already checked), or left out. */
  content?: { title: string; caption: string };
  photo?: PicturePlan;
  likes?: { userId: string; liked: boolean }[];
  removeComments?: string[];
}

export async function changePost({ actor, postId, changes }: { actor: Actor; postId: string; changes: PostChanges }): Promise<Outcome> {
  const post = await getPostOwnership(postId);
  if (!post) return refusal(404, POST_MESSAGES.notFound);
  const photo = changes.photo ?? { kind: "keep" };
  const refused = new Map<string, string>();
  if ((changes.content || photo.kind !== "keep") && !canEditRecipe(actor, post.created_by)) refused.set("post", POST_MESSAGES.authorOnly);
  const likes = changes.likes ?? [];
  if (likes.some((op) => !canActFor(actor, op.userId))) refused.set("likes", INTERACTION_MESSAGES.ownLikeOnly);
  const removeComments = changes.removeComments ?? [];
  if (removeComments.length > 0 && !canRemoveComments(actor)) refused.set("comments", INTERACTION_MESSAGES.adminOnly);
  if (refused.size > 0) return refusal(403, [...refused.values()][0]!, { refused: [...refused.keys()] });
  const newLikers = [...new Set(likes.filter((op) => op.liked && op.userId !== actor.id).map((op) => op.userId))];
  if (newLikers.length > 0 && (await readUsersWithLists({ ids: newLikers })).length !== newLikers.length) {
    return refusal(400, POST_MESSAGES.unknownLiker, { errors: { likes: POST_MESSAGES.unknownLiker } });
  }

  const current = await db.selectFrom("posts").select(["title", "caption"]).where("id", "=", postId).executeTakeFirstOrThrow();
  const applied = await applyPicture(photo, post.photo);
  if (!applied.ok) return refusal(applied.status, applied.message, { errors: { photo: applied.message } });
  const { url, uploaded } = applied;
  return refusing(async () => {
    try {
      await changing([CacheScope.recipe(post.recipe_id)], async (trx) => {
        if (changes.content || url !== post.photo) {
          const content = changes.content ?? current;
          await updatePostContent({ postId, title: content.title, caption: content.caption, photo: url }, trx);
        }
        for (const op of likes) {
          if (op.liked) await refuseIfBlocked(trx, op.userId, post.created_by);
          await storeLike(trx, { post, userId: op.userId, liked: op.liked });
        }
        for (const commentId of removeComments) await storeCommentRemoved(trx, { postId, commentId });
      });
    } catch (error) {
      if (uploaded) await deleteImageIfUnreferenced(url);
      throw error;
    }
    if (url !== post.photo) await deleteImageIfUnreferenced(post.photo);
    return done();
  });
}

/**
 * Gives a recipe that has none its post (the API's POST /api/posts; the door checks who may).
 * The post joins the feed, the recipe's JSON names it, and so does its creator's list of posts.
 */
export async function addPostToRecipe({ postId, recipeId, creatorId }: { postId: string; recipeId: string; creatorId: string | null }): Promise<void> {
  await changing([CacheScope.recipe(recipeId), CacheScope.feed, creatorId && CacheScope.user(creatorId)], (trx) => createPostForRecipe({ postId, recipeId }, trx));
}
