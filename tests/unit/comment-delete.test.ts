import { describe, expect, it } from "vitest";

import { loader, action } from "~/routes/ReciPals.Comments.$cid.Delete";
import { paths } from "~/lib/paths";
import { db } from "~/server/db/connection.server";
import { addComment, INTERACTION_MESSAGES } from "~/server/services/interactions-service.server";

import { makeRecipeWithPost } from "../support/factories";
import { expectRedirect, formRequest, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

// Deleting a comment (docs/rules.md#deleting-a-comment) through its page: the confirmation asked
// without JavaScript, who may see it, and where the deletion leads.

async function commentedRecipe() {
  const owner = await makeUser();
  const guest = await makeUser();
  const recipe = await makeRecipeWithPost({ userId: owner.id });
  const added = await addComment({ actor: guest, postId: recipe.postId!, text: "Too much salt?" });
  if (!added.ok) throw new Error(added.message);
  return { owner, guest, recipeId: recipe.recipeId, commentId: added.value.comment_id };
}

const commentExists = async (id: string) => (await db.selectFrom("comments").select("id").where("id", "=", id).executeTakeFirst()) !== undefined;

describe("the Delete comment page", () => {
  it("asks its author to confirm, showing the comment, and keeps a same-site return address only", async () => {
    const { guest, commentId, recipeId } = await commentedRecipe();
    const cookie = await signedInCookie(guest.id);
    const back = `${paths.recipe(recipeId)}#comments`;
    const asked = (await loader(routeArgs(getRequest(`${paths.deleteComment(commentId)}?returnTo=${encodeURIComponent(back)}`, cookie), { cid: commentId }))) as {
      text: string;
      returnTo: string;
    };
    expect(asked).toMatchObject({ text: "Too much salt?", returnTo: back });
    const foreign = (await loader(routeArgs(getRequest(`${paths.deleteComment(commentId)}?returnTo=https://evil.example/`, cookie), { cid: commentId }))) as {
      returnTo: string;
    };
    expect(foreign.returnTo).toBe(back);
  });

  it("refuses the page to someone who may not delete the comment (403) and says so when it is gone (404)", async () => {
    const { commentId } = await commentedRecipe();
    const stranger = await makeUser();
    const cookie = await signedInCookie(stranger.id);
    const refused = await settle(() => loader(routeArgs(getRequest(paths.deleteComment(commentId), cookie), { cid: commentId })));
    expect(refused).toBeInstanceOf(Response);
    expect((refused as Response).status).toBe(403);
    expect(await (refused as Response).text()).toBe(INTERACTION_MESSAGES.notYourComment);
    const gone = await settle(() => loader(routeArgs(getRequest(paths.deleteComment("no-such-comment"), cookie), { cid: "no-such-comment" })));
    expect((gone as Response).status).toBe(404);
  });

  it("a post without confirm=yes leads to the question, deleting nothing; with it, deletes and goes back", async () => {
    const { owner, commentId, recipeId } = await commentedRecipe();
    const cookie = await signedInCookie(owner.id);
    const back = `${paths.recipe(recipeId)}#comments`;
    const unconfirmed = await settle(() => action(routeArgs(formRequest(paths.deleteComment(commentId), { intent: "delete-comment", returnTo: back }, cookie), { cid: commentId })));
    expectRedirect(unconfirmed, `${paths.deleteComment(commentId)}?${new URLSearchParams({ returnTo: back })}`);
    expect(await commentExists(commentId)).toBe(true);
    const confirmed = await settle(() =>
      action(routeArgs(formRequest(paths.deleteComment(commentId), { intent: "delete-comment", confirm: "yes", returnTo: back }, cookie), { cid: commentId })),
    );
    expectRedirect(confirmed, back);
    expect(await commentExists(commentId)).toBe(false);
  });

  it("a stranger's confirmed post is refused with 403 and the comment stays", async () => {
    const { commentId } = await commentedRecipe();
    const stranger = await makeUser();
    const cookie = await signedInCookie(stranger.id);
    const refused = await settle(() => action(routeArgs(formRequest(paths.deleteComment(commentId), { confirm: "yes" }, cookie), { cid: commentId })));
    expect((refused as Response).status).toBe(403);
    expect(await commentExists(commentId)).toBe(true);
  });
});
