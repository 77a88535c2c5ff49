import { describe, expect, it } from "vitest";

import * as notificationsRoute from "~/routes/ReciPals.Notifications";
import * as shoppingRoute from "~/routes/ReciPals.ShoppingList";
import { db } from "~/server/db/connection.server";
import { setFollowing } from "~/server/services/follows-service.server";
import { addRecipeToList, getShoppingList } from "~/server/services/shopping-service.server";

import { makeRecipeWithPost } from "../support/factories";
import { expectRedirect, formRequest, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

// The two pages' doors (docs/rules.md#shopping-list, #notifications): visitors go to Login, a plain
// post comes back where it was sent from, a refused one is an error page and changes nothing.

async function listOwner() {
  const me = await makeUser();
  const { recipeId } = await makeRecipeWithPost({ userId: me.id });
  expect((await addRecipeToList({ actor: me, recipeId })).ok).toBe(true);
  return { me, recipeId, cookie: await signedInCookie(me.id) };
}

describe("/ReciPals/ShoppingList", () => {
  it("sends visitors to Login, for the page and for its posts", async () => {
    expectRedirect(await settle(() => shoppingRoute.loader(routeArgs(getRequest("/ReciPals/ShoppingList")))), /^\/ReciPals\/Account\/Login\?redirectTo=/);
    const post = formRequest("/ReciPals/ShoppingList", { intent: "clear", confirm: "yes" });
    expectRedirect(await settle(() => shoppingRoute.action(routeArgs(post))), /^\/ReciPals\/Account\/Login/);
  });

  it("asks before clearing: a clear without the confirmation's answer changes nothing", async () => {
    const { me, cookie } = await listOwner();
    const answer = await settle(() => shoppingRoute.action(routeArgs(formRequest("/ReciPals/ShoppingList", { intent: "clear", redirectTo: "/ReciPals/Home" }, cookie))));
    expectRedirect(answer, "/ReciPals/ShoppingList?confirm=clear");
    expect((await getShoppingList(me.id)).recipes).toHaveLength(1);
    const confirmed = await settle(() => shoppingRoute.action(routeArgs(formRequest("/ReciPals/ShoppingList", { intent: "clear", confirm: "yes" }, cookie))));
    expectRedirect(confirmed, "/ReciPals/ShoppingList");
    expect((await getShoppingList(me.id)).recipes).toHaveLength(0);
  });

  it("refuses someone else's item with a 404 page, and a fetcher with its message; nothing changes", async () => {
    const { me } = await listOwner();
    const [item] = (await getShoppingList(me.id)).recipes[0]!.items;
    const stranger = await makeUser();
    const cookie = await signedInCookie(stranger.id);
    const plain = await settle(() => shoppingRoute.action(routeArgs(formRequest("/ReciPals/ShoppingList", { intent: "check", id: item!.id }, cookie))));
    expect(plain).toBeInstanceOf(Response);
    expect((plain as Response).status).toBe(404);
    const fetched = (await shoppingRoute.action(routeArgs(formRequest("/ReciPals/ShoppingList", { intent: "check", id: item!.id, _fetcher: "1" }, cookie)))) as unknown as {
      data: { error: string };
      init: { status: number };
    };
    expect(fetched.init.status).toBe(404);
    expect(fetched.data.error).toBe("That item is not on your shopping list.");
    expect((await getShoppingList(me.id)).checkedCount).toBe(0);
  });

  it("adds from a recipe page and returns there with the notice", async () => {
    const me = await makeUser();
    const { recipeId } = await makeRecipeWithPost({ userId: me.id });
    const back = `/ReciPals/Recipes/${recipeId}?notice=shopping-added`;
    // A visitor's add goes to Login first, and back to the recipe after.
    const visitor = await settle(() => shoppingRoute.action(routeArgs(formRequest("/ReciPals/ShoppingList", { intent: "add", recipeId, redirectTo: back }))));
    expectRedirect(visitor, /^\/ReciPals\/Account\/Login\?redirectTo=%2FReciPals%2FRecipes%2F/);
    const cookie = await signedInCookie(me.id);
    expectRedirect(await settle(() => shoppingRoute.action(routeArgs(formRequest("/ReciPals/ShoppingList", { intent: "add", recipeId, redirectTo: back }, cookie)))), back);
    expect((await getShoppingList(me.id)).recipes.map((recipe) => recipe.recipe_id)).toEqual([recipeId]);
  });
});

describe("/ReciPals/Notifications", () => {
  it("reading the page marks nothing; Mark all as read does, and only the reader's", async () => {
    const me = await makeUser();
    const fan = await makeUser();
    expect((await setFollowing({ actor: fan, targetId: me.id, following: true })).ok).toBe(true);
    expect((await setFollowing({ actor: me, targetId: fan.id, following: true })).ok).toBe(true);
    const cookie = await signedInCookie(me.id);
    const page = await notificationsRoute.loader(routeArgs(getRequest("/ReciPals/Notifications", cookie)));
    expect(page.groups.map((group) => group.text)).toEqual([`${fan.username} started following you`]);
    const unread = async (userId: string) => (await db.selectFrom("notifications").select("id").where("user_id", "=", userId).where("read_at", "is", null).execute()).length;
    expect(await unread(me.id)).toBe(1);
    const answer = await settle(() => notificationsRoute.action(routeArgs(formRequest("/ReciPals/Notifications", { intent: "read-all", redirectTo: "/ReciPals/Notifications" }, cookie))));
    expectRedirect(answer, "/ReciPals/Notifications");
    expect(await unread(me.id)).toBe(0);
    expect(await unread(fan.id)).toBe(1);
  });
});
