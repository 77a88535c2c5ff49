import crypto from "node:crypto";

import { db } from "~/server/db/connection.server";
import { writeRecipeParts } from "~/server/queries/recipe-writes.server";
import { nextSeq, nowIso } from "~/server/queries/seq.server";

let counter = 0;

/** A recipe with one section, two lines, two steps, tags and its post, written as the app stores them. */
export async function makeRecipeWithPost({
  userId,
  name = `Recipe ${++counter}`,
  description = "A test recipe",
  tags = ["Savory"],
  withPost = true,
}: {
  userId: string | null;
  name?: string;
  description?: string;
  tags?: string[];
  withPost?: boolean;
}) {
  const recipeId = crypto.randomUUID();
  const postId = crypto.randomUUID();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("recipes")
      .values({
        id: recipeId,
        user_created: userId,
        name,
        description,
        total_time: "30min",
        serves: 2,
        photo: "/images/noodleDish.png",
        created_at: nowIso(),
        seq: nextSeq(trx, "recipes"),
      })
      .execute();
    await writeRecipeParts(trx, recipeId, {
      tags,
      sections: [{ title: "Main Ingredients", ingredients: ["Flour (200g)", "Eggs (2)"] }],
      steps: ["Mix.", "Bake."],
    });
    if (withPost) {
      await trx
        .insertInto("posts")
        .values({
          id: postId,
          recipe_id: recipeId,
          created_by: userId,
          title: name,
          caption: description,
          photo: "/images/noodleDish.png",
          created_at: nowIso().slice(0, 10),
          seq: nextSeq(trx, "posts"),
        })
        .execute();
    }
  });
  return { recipeId, postId: withPost ? postId : null, name };
}

export async function follow(followerId: string, followeeId: string) {
  await db.insertInto("follows").values({ follower_id: followerId, followee_id: followeeId, created_at: nowIso() }).execute();
}
