import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { action as adminRecipeAction } from "~/routes/ReciPals.Account.Admin.Recipes.$rid";
import { action as adminUserAction } from "~/routes/ReciPals.Account.Admin.Users.$uid";
import { action as followAction } from "~/routes/ReciPals.Account.Follow.$uid";
import { action as profileEditAction } from "~/routes/ReciPals.Account.Profile.$uid_.Edit";
import { action as editorAction } from "~/routes/ReciPals.Editor.$rid";
import * as recipeRoute from "~/routes/api.recipes.$recipe_id";
import * as userRoute from "~/routes/api.users.$id";
import * as followRoute from "~/routes/api.users.follow.$id";
import { db } from "~/server/db/connection.server";
import { env } from "~/server/env.server";
import { storeImage } from "~/server/media/images.server";
import { getUserProfile } from "~/server/queries/users.server";
import { changePost } from "~/server/services/posts-service.server";
import { createRecipe } from "~/server/services/recipes-service.server";

import { call, useTempUploads } from "../support/api";
import { dataOf, formRequest, makeUser, ORIGIN, routeArgs, settle, signedInCookie } from "../support/app";

// Every write rule lives once, in a service: the same request made through a page and through
// the API ends the same way. Each case here was once written twice, and the copies had drifted.

const uploadsDir = useTempUploads({ beforeAll, afterAll });
afterEach(() => {
  env.ADMIN_SECRET = undefined;
});

const png = (colour: string) => sharp({ create: { width: 32, height: 24, channels: 3, background: colour } }).png().toBuffer();
let shade = 0;
/** A fresh upload (a new colour each time, so a new content-addressed file). */
async function upload(): Promise<string> {
  shade += 1;
  return (await storeImage(await png(`#${(0x102030 + shade * 977).toString(16).padStart(6, "0").slice(-6)}`))).url;
}
const exists = (url: string) => fs.existsSync(path.join(uploadsDir(), url.slice("/uploads/".length)));
const files = () => fs.readdirSync(uploadsDir()).sort();
const dataUrl = async () => `data:image/png;base64,${(await png("#abcdef")).toString("base64")}`;

async function person(role: "USER" | "ADMIN" = "USER") {
  const user = await makeUser({ role });
  return { ...user, cookie: await signedInCookie(user.id) };
}

/** A recipe whose post has a photo of its own (the API's posts can): two uploads to clean up. */
async function recipeWithTwoPhotos(owner: { id: string; role: "USER" | "ADMIN" }) {
  const recipePhoto = await upload();
  const postPhoto = await upload();
  const input = { name: "Two photos", description: "d", totalTime: "", serves: 1, tags: [], sections: [{ id: "", title: "Main", ingredients: ["Salt"] }], steps: ["Stir."] };
  const created = await createRecipe({ actor: owner, recipeId: crypto.randomUUID(), input, photo: { kind: "set", url: recipePhoto }, fallbackPhoto: "/images/recipe-placeholder.png" });
  if (!created.ok) throw new Error(created.message);
  const changed = await changePost({ actor: owner, postId: created.value.postId, changes: { photo: { kind: "set", url: postPhoto } } });
  if (!changed.ok) throw new Error(changed.message);
  return { ...created.value, recipePhoto, postPhoto };
}

describe("deleting a recipe removes the recipe's and the post's photos, through every door", () => {
  it.each(["the editor", "the admin page", "the API"] as const)("through %s", async (door) => {
    const owner = await person();
    const admin = await person("ADMIN");
    const { recipeId, recipePhoto, postPhoto } = await recipeWithTwoPhotos(owner);
    expect([exists(recipePhoto), exists(postPhoto)]).toEqual([true, true]);
    if (door === "the editor") {
      const body = new FormData();
      for (const [name, value] of Object.entries({ intent: "delete", confirm: "yes", mode: "edit" })) body.append(name, value);
      const request = new Request(new URL(`/ReciPals/Editor/${recipeId}`, ORIGIN), { method: "POST", body, headers: { Cookie: owner.cookie } });
      expect(((await settle(() => editorAction(routeArgs(request, { rid: recipeId })))) as Response).status).toBe(302);
    } else if (door === "the admin page") {
      const request = formRequest(`/ReciPals/Account/Admin/Recipes/${recipeId}`, { intent: "delete", confirm: "yes" }, admin.cookie);
      expect(((await settle(() => adminRecipeAction(routeArgs(request, { rid: recipeId })))) as Response).status).toBe(302);
    } else {
      expect((await call(recipeRoute, "DELETE", `/api/recipes/${recipeId}`, { cookie: owner.cookie, params: { recipe_id: recipeId } })).status).toBe(200);
    }
    expect([exists(recipePhoto), exists(postPhoto)]).toEqual([false, false]);
  });
});

describe("deleting a user, through the admin page and the API", () => {
  it.each(["the admin page", "the API"] as const)("%s removes the profile picture, and refuses the last ADMIN with 409", async (door) => {
    const admin = await person("ADMIN");
    const doomed = await person();
    const picture = await upload();
    await db.updateTable("users").set({ profile: picture }).where("id", "=", doomed.id).execute();
    const pageDelete = async (userId: string) => {
      const outcome = await settle(() => adminUserAction(routeArgs(formRequest(`/ReciPals/Account/Admin/Users/${userId}`, { intent: "delete", confirm: "yes" }, admin.cookie), { uid: userId })));
      return outcome instanceof Response ? { status: outcome.status } : dataOf<{ error?: string }>(outcome);
    };
    const remove = async (userId: string) =>
      door === "the admin page"
        ? await pageDelete(userId)
        : await call(userRoute, "DELETE", `/api/users/${userId}`, { cookie: admin.cookie, params: { id: userId } });
    expect((await remove(doomed.id)).status).toBe(door === "the admin page" ? 302 : 200);
    expect(await getUserProfile(doomed.id)).toBeUndefined();
    expect(exists(picture)).toBe(false);

    await db.updateTable("users").set({ role: "USER" }).where("role", "=", "ADMIN").where("id", "<>", admin.id).execute();
    const last = await remove(admin.id);
    expect(last.status).toBe(409);
    const message = "data" in last ? (last.data as { error: string }).error : (last as unknown as { body: { message: string } }).body.message;
    expect(message).toBe("You cannot delete the last admin.");
  });
});

describe("a refused profile save stores no picture, through the page and the API", () => {
  it.each(["the page", "the API"] as const)("%s: a taken username after a new photo leaves no file behind", async (door) => {
    const me = await person();
    const other = await person();
    const before = files();
    if (door === "the page") {
      const body = new FormData();
      for (const [name, value] of Object.entries({ name: me.name, username: other.username, password: "", role: "USER", bio: "", adminPassword: "" })) body.append(name, value);
      body.append("photo", new File([new Uint8Array(await png("#445566"))], "me.png", { type: "image/png" }));
      const request = new Request(new URL(`/ReciPals/Account/Profile/${me.id}/Edit`, ORIGIN), { method: "POST", body, headers: { Cookie: me.cookie } });
      expect(dataOf(await settle(() => profileEditAction(routeArgs(request, { uid: me.id })))).status).toBe(409);
    } else {
      const answer = await call(userRoute, "PUT", `/api/users/${me.id}`, { cookie: me.cookie, params: { id: me.id }, body: { username: other.username, profile: await dataUrl() } });
      expect(answer.status).toBe(409);
    }
    expect(files()).toEqual(before);
    expect((await getUserProfile(me.id))!.username).toBe(me.username);
  });
});

describe("becoming ADMIN with the admin secret, through the page and the API", () => {
  const SECRET = "write-rules-secret";
  async function elevate(door: "the page" | "the API", me: Awaited<ReturnType<typeof person>>, typed: string) {
    if (door === "the page") {
      const body = new FormData();
      for (const [name, value] of Object.entries({ name: me.name, username: me.username, password: "", role: "ADMIN", bio: "", adminPassword: typed })) body.append(name, value);
      const request = new Request(new URL(`/ReciPals/Account/Profile/${me.id}/Edit`, ORIGIN), { method: "POST", body, headers: { Cookie: me.cookie } });
      const outcome = await settle(() => profileEditAction(routeArgs(request, { uid: me.id })));
      if (outcome instanceof Response) return { status: outcome.status, message: "" };
      const answer = dataOf<{ formError: string }>(outcome);
      return { status: answer.status, message: answer.data.formError };
    }
    const answer = await call(userRoute, "PUT", `/api/users/${me.id}`, { cookie: me.cookie, params: { id: me.id }, body: { role: "ADMIN", adminPassword: typed } });
    return { status: answer.status, message: answer.body.message as string };
  }

  it.each(["the page", "the API"] as const)("%s: no secret set, a wrong one, then the right one", async (door) => {
    const me = await person();
    expect(await elevate(door, me, "anything")).toMatchObject({ status: 403, message: expect.stringMatching(/no admin password set/) });
    env.ADMIN_SECRET = SECRET;
    expect(await elevate(door, me, "wrong")).toEqual({ status: 403, message: "Incorrect admin password" });
    expect((await getUserProfile(me.id))!.role).toBe("USER");
    expect((await elevate(door, me, SECRET)).status).toBe(door === "the page" ? 302 : 200);
    expect((await getUserProfile(me.id))!.role).toBe("ADMIN");
  });
});

describe("following, through the page and the API", () => {
  it.each(["the page", "the API"] as const)("%s: oneself is refused 400, an unknown person 404, with the same messages", async (door) => {
    const me = await person();
    const follow = async (targetId: string) => {
      if (door === "the page") {
        const answer = dataOf<{ message: string }>(
          await settle(() => followAction(routeArgs(formRequest(`/ReciPals/Account/Follow/${targetId}`, { intent: "follow", _fetcher: "1" }, me.cookie), { uid: targetId }))),
        );
        return { status: answer.status, message: answer.data.message };
      }
      const answer = await call(followRoute, "POST", `/api/users/follow/${targetId}`, { cookie: me.cookie, params: { id: targetId } });
      return { status: answer.status, message: answer.body.message as string };
    };
    expect(await follow(me.id)).toEqual({ status: 400, message: "You cannot follow yourself." });
    expect(await follow("nobody-here")).toEqual({ status: 404, message: "User not found." });
  });
});

describe("recipe section ids, through every writer", () => {
  it("the editor, the admin's text and the API keep a section's id; new sections get new ones", async () => {
    const owner = await person();
    const admin = await person("ADMIN");
    const input = { name: "Ids", description: "d", totalTime: "", serves: 1, tags: [], sections: [{ id: "", title: "Main", ingredients: ["Salt"] }], steps: ["Stir."] };
    const created = await createRecipe({ actor: owner, recipeId: crypto.randomUUID(), input, photo: { kind: "keep" }, fallbackPhoto: "/images/recipe-placeholder.png" });
    if (!created.ok) throw new Error(created.message);
    const { recipeId } = created.value;
    const sectionIds = async () => (await db.selectFrom("ingredient_sections").select("id").where("recipe_id", "=", recipeId).orderBy("position").execute()).map((row) => row.id);
    const [first] = await sectionIds();

    // The API sends the id back, plus a new section without one.
    const put = await call(recipeRoute, "PUT", `/api/recipes/${recipeId}`, {
      cookie: owner.cookie,
      params: { recipe_id: recipeId },
      body: { ingredients_sec: [{ _id: first, title: "Main", ingredients: ["Salt", "Pepper"] }, { title: "Sauce", ingredients: ["Cream"] }] },
    });
    expect(put.status).toBe(200);
    const afterApi = await sectionIds();
    expect(afterApi[0]).toBe(first);
    expect(afterApi[1]).not.toBe(first);

    // The admin's text has no ids: by position they stay.
    const { action: textAction } = await import("~/routes/ReciPals.Account.Admin.Recipes.$rid._index");
    const request = formRequest(`/ReciPals/Account/Admin/Recipes/${recipeId}?index`, { intent: "save-ingredients", text: "Main:\nSalt\n\nSauce:\nCream\nButter" }, admin.cookie);
    expect(((await settle(() => textAction(routeArgs(request, { rid: recipeId })))) as Response).status).toBe(302);
    expect(await sectionIds()).toEqual(afterApi);
  });
});
