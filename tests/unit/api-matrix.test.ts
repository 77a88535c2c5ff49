import crypto from "node:crypto";

import { beforeAll, describe, expect, it } from "vitest";

import * as postsRoute from "~/routes/api.posts";
import * as postRoute from "~/routes/api.posts.$post_id";
import * as commentsRoute from "~/routes/api.posts.$post_id.comments";
import * as recipesRoute from "~/routes/api.recipes";
import * as recipeRoute from "~/routes/api.recipes.$recipe_id";
import * as usersRoute from "~/routes/api.users";
import * as userRoute from "~/routes/api.users.$id";
import * as saveRoute from "~/routes/api.users.$id.save";
import * as unsaveRoute from "~/routes/api.users.$id.unsave";
import * as notificationsReadRoute from "~/routes/api.notifications.read";
import * as followRoute from "~/routes/api.users.follow.$id";
import * as unfollowRoute from "~/routes/api.users.unfollow.$id";
import { setPostLiked } from "~/server/queries/likes.server";
import { setRecipeSaved } from "~/server/queries/saved.server";
import { db } from "~/server/db/connection.server";

import { call, snapshot, type RouteModule } from "../support/api";
import { follow, makeRecipeWithPost } from "../support/factories";
import { makeUser, signedInCookie, uniqueUsername } from "../support/app";

// The permission matrix (docs/rules.md#who-may-do-what): every mutating endpoint, asked by a visitor, another USER,
// the owner and an ADMIN. A refused request answers its status with a JSON message and changes
// nothing; an allowed one answers 2xx.

type Actor = "anonymous" | "other" | "owner" | "admin";
const ACTORS: Actor[] = ["anonymous", "other", "owner", "admin"];

interface Person {
  id: string;
  cookie: string;
}

async function person(role: "USER" | "ADMIN" = "USER"): Promise<Person> {
  const user = await makeUser({ role, username: uniqueUsername("m") });
  return { id: user.id, cookie: await signedInCookie(user.id) };
}

interface Target {
  path: string;
  params: Record<string, string>;
  body?: unknown;
}

interface Case {
  name: string;
  route: RouteModule;
  method: "POST" | "PUT" | "DELETE";
  /** A fresh target owned by `owner`; `actor` is who will ask (null: a visitor). */
  prepare: (owner: Person, actor: Person | null) => Promise<Target>;
  expected: Record<Actor, number>;
  /** Allowed but idempotent: an allowed answer need not change anything. */
  mayNotChange?: boolean;
}

const recipeOf = async (owner: Person) => {
  const made = await makeRecipeWithPost({ userId: owner.id });
  return { recipeId: made.recipeId, postId: made.postId! };
};

const CASES: Case[] = [
  {
    name: "PUT /api/users/{id} (name)",
    route: userRoute,
    method: "PUT",
    prepare: async (owner) => ({ path: `/api/users/${owner.id}`, params: { id: owner.id }, body: { _id: owner.id, name: "Renamed Person" } }),
    expected: { anonymous: 401, other: 403, owner: 200, admin: 200 },
  },
  {
    name: "PUT /api/users/{id} (role ADMIN, no secret)",
    route: userRoute,
    method: "PUT",
    prepare: async (owner) => ({ path: `/api/users/${owner.id}`, params: { id: owner.id }, body: { role: "ADMIN" } }),
    expected: { anonymous: 401, other: 403, owner: 403, admin: 200 },
  },
  {
    name: "PUT /api/users/{id} ({_id, followers}: remove a follower)",
    route: userRoute,
    method: "PUT",
    prepare: async (owner) => {
      const fan = await makeUser();
      await follow(fan.id, owner.id);
      return { path: `/api/users/${owner.id}`, params: { id: owner.id }, body: { _id: owner.id, followers: [] } };
    },
    expected: { anonymous: 401, other: 403, owner: 200, admin: 200 },
  },
  {
    name: "DELETE /api/users/{id}",
    route: userRoute,
    method: "DELETE",
    prepare: async (owner) => ({ path: `/api/users/${owner.id}`, params: { id: owner.id } }),
    expected: { anonymous: 401, other: 403, owner: 403, admin: 200 },
  },
  {
    name: "PUT /api/users/{id}/save",
    route: saveRoute,
    method: "PUT",
    prepare: async (owner) => {
      const { recipeId } = await makeRecipeWithPost({ userId: null });
      return { path: `/api/users/${owner.id}/save`, params: { id: owner.id }, body: { recipeId } };
    },
    expected: { anonymous: 401, other: 403, owner: 200, admin: 403 },
  },
  {
    name: "PUT /api/users/{id}/unsave",
    route: unsaveRoute,
    method: "PUT",
    prepare: async (owner) => {
      const { recipeId } = await makeRecipeWithPost({ userId: null });
      await setRecipeSaved({ userId: owner.id, recipeId, saved: true });
      return { path: `/api/users/${owner.id}/unsave`, params: { id: owner.id }, body: { recipeId } };
    },
    expected: { anonymous: 401, other: 403, owner: 200, admin: 403 },
  },
  {
    name: "POST /api/users",
    route: usersRoute,
    method: "POST",
    prepare: async () => ({ path: "/api/users", params: {}, body: { name: "Made", username: uniqueUsername("made"), password: "pw" } }),
    expected: { anonymous: 401, other: 403, owner: 403, admin: 201 },
  },
  {
    name: "POST /api/users/follow/{id}",
    route: followRoute,
    method: "POST",
    prepare: async (owner) => ({ path: `/api/users/follow/${owner.id}`, params: { id: owner.id } }),
    expected: { anonymous: 401, other: 200, owner: 400, admin: 200 },
  },
  {
    name: "POST /api/users/unfollow/{id}",
    route: unfollowRoute,
    method: "POST",
    prepare: async (owner, actor) => {
      const fan = actor && actor.id !== owner.id ? actor : await person();
      await follow(fan.id, owner.id);
      return { path: `/api/users/unfollow/${owner.id}`, params: { id: owner.id } };
    },
    expected: { anonymous: 401, other: 200, owner: 400, admin: 200 },
  },
  {
    name: "POST /api/recipes",
    route: recipesRoute,
    method: "POST",
    prepare: async () => ({
      path: "/api/recipes",
      params: {},
      body: { recipe_id: crypto.randomUUID(), name: "Matrix", description: "d", ingredients_sec: [{ title: "", ingredients: ["x"] }], steps: ["y"] },
    }),
    expected: { anonymous: 401, other: 201, owner: 201, admin: 201 },
  },
  {
    name: "PUT /api/recipes/{id}",
    route: recipeRoute,
    method: "PUT",
    prepare: async (owner) => {
      const { recipeId } = await recipeOf(owner);
      return { path: `/api/recipes/${recipeId}`, params: { recipe_id: recipeId }, body: { name: "Edited name" } };
    },
    expected: { anonymous: 401, other: 403, owner: 200, admin: 200 },
  },
  {
    name: "DELETE /api/recipes/{id}",
    route: recipeRoute,
    method: "DELETE",
    prepare: async (owner) => {
      const { recipeId } = await recipeOf(owner);
      return { path: `/api/recipes/${recipeId}`, params: { recipe_id: recipeId } };
    },
    expected: { anonymous: 401, other: 403, owner: 200, admin: 200 },
  },
  {
    name: "POST /api/posts (the recipe's post exists)",
    route: postsRoute,
    method: "POST",
    prepare: async (owner) => {
      const { recipeId, postId } = await recipeOf(owner);
      return { path: "/api/posts", params: {}, body: { post_id: postId, recipe_id: recipeId } };
    },
    expected: { anonymous: 401, other: 403, owner: 200, admin: 200 },
    mayNotChange: true,
  },
  {
    name: "PUT /api/posts/{id} (caption)",
    route: postRoute,
    method: "PUT",
    prepare: async (owner) => {
      const { postId } = await recipeOf(owner);
      return { path: `/api/posts/${postId}`, params: { post_id: postId }, body: { caption: "A new caption" } };
    },
    expected: { anonymous: 401, other: 403, owner: 200, admin: 200 },
  },
  {
    name: "PUT /api/posts/{id} (one's own like)",
    route: postRoute,
    method: "PUT",
    prepare: async (owner, actor) => {
      const { postId } = await recipeOf(owner);
      return { path: `/api/posts/${postId}`, params: { post_id: postId }, body: { likes: [actor?.id ?? "nobody"] } };
    },
    expected: { anonymous: 401, other: 200, owner: 200, admin: 200 },
  },
  {
    name: "PUT /api/posts/{id} (removing someone else's like)",
    route: postRoute,
    method: "PUT",
    prepare: async (owner) => {
      const { postId } = await recipeOf(owner);
      const fan = await makeUser();
      await setPostLiked({ postId, userId: fan.id, liked: true });
      return { path: `/api/posts/${postId}`, params: { post_id: postId }, body: { likes: [] } };
    },
    expected: { anonymous: 401, other: 403, owner: 403, admin: 200 },
  },
  {
    name: "DELETE /api/posts/{id}",
    route: postRoute,
    method: "DELETE",
    prepare: async (owner) => {
      const { postId } = await recipeOf(owner);
      return { path: `/api/posts/${postId}`, params: { post_id: postId } };
    },
    expected: { anonymous: 401, other: 403, owner: 200, admin: 200 },
  },
  {
    name: "POST /api/posts/{id}/comments",
    route: commentsRoute,
    method: "POST",
    prepare: async (owner) => {
      const { postId } = await recipeOf(owner);
      return { path: `/api/posts/${postId}/comments`, params: { post_id: postId }, body: { user_id: owner.id, text: "Nice" } };
    },
    expected: { anonymous: 401, other: 201, owner: 201, admin: 201 },
  },
  {
    // Anyone signed in may mark their own notifications read; naming the owner's ids marks none of
    // the owner's (tests/unit/api-notifications.test.ts checks they stay unread).
    name: "POST /api/notifications/read (the owner's notification ids)",
    route: notificationsReadRoute,
    method: "POST",
    prepare: async (owner) => {
      const { postId } = await recipeOf(owner);
      const fan = await person();
      await setPostLiked({ postId, userId: fan.id, liked: true });
      const ids = (await db.selectFrom("notifications").select("id").where("user_id", "=", owner.id).execute()).map((row) => row.id);
      return { path: "/api/notifications/read", params: {}, body: { ids } };
    },
    expected: { anonymous: 401, other: 200, owner: 200, admin: 200 },
    mayNotChange: true,
  },
];

let other: Person;
let admin: Person;
beforeAll(async () => {
  other = await person();
  admin = await person("ADMIN");
  await person("ADMIN"); // a second ADMIN, so no case ever meets the last-admin rule
});

describe.each(CASES)("$name", (testCase) => {
  it.each(ACTORS)("as %s", async (actorName) => {
    const owner = await person();
    const actor = { anonymous: null, other, owner, admin }[actorName];
    const target = await testCase.prepare(owner, actor);
    const before = await snapshot();
    const answer = await call(testCase.route, testCase.method, target.path, { params: target.params, body: target.body, cookie: actor?.cookie });
    const expected = testCase.expected[actorName];
    expect(answer.status, JSON.stringify(answer.body)).toBe(expected);
    if (expected >= 400) {
      expect(answer.body).toEqual(expect.objectContaining({ message: expect.any(String) }));
      expect(await snapshot()).toBe(before);
    } else if (!testCase.mayNotChange) {
      expect(await snapshot()).not.toBe(before);
    }
  });
});
