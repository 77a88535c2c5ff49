import crypto from "node:crypto";
import fs from "node:fs";

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

import * as recipesRoute from "~/routes/api.recipes";
import { action as editorAction } from "~/routes/ReciPals.Editor.$rid";
import { draftToFields, emptyDraft } from "~/lib/recipe-form";
import { db } from "~/server/db/connection.server";
import { RECIPE_SERVICE_MESSAGES } from "~/server/services/recipes-service.server";

import { call, expectError, PNG_DATA_URL, snapshot, useTempUploads } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { makeUser, ORIGIN, settle, signedInCookie } from "../support/app";

// A new recipe's id taken between the check and the write (issue 45): two saves of the same new
// recipe at once (a double click, a client's retry) both find the id free, and the unique index
// lets only the first in. The second must be answered 409 with its door's message on either engine
// (PostgreSQL's code for it is not SQLite's), never 500, leaving nothing behind. The window is
// made certain here: the checks are told the id is free while a recipe already holds it.

const race = vi.hoisted(() => ({ idLooksFree: false }));

vi.mock("~/server/queries/recipes.server", async (importOriginal) => {
  const original = await importOriginal<typeof import("~/server/queries/recipes.server")>();
  return { ...original, recipeExists: (id: string) => (race.idLooksFree ? Promise.resolve(false) : original.recipeExists(id)) };
});
vi.mock("~/server/queries/recipe-writes.server", async (importOriginal) => {
  const original = await importOriginal<typeof import("~/server/queries/recipe-writes.server")>();
  return { ...original, getRecipeOwnership: (id: string) => (race.idLooksFree ? Promise.resolve(undefined) : original.getRecipeOwnership(id)) };
});

const uploadsDir = useTempUploads({ beforeAll, afterAll });
afterEach(() => {
  race.idLooksFree = false;
});

const files = () => (fs.existsSync(uploadsDir()) ? fs.readdirSync(uploadsDir()).sort() : []);

describe("a new recipe's id taken by another request between the check and the write", () => {
  it("POST /api/recipes answers 409 with the API's message, storing nothing (not even the photo)", async () => {
    const me = await makeUser();
    const cookie = await signedInCookie(me.id);
    const first = await makeRecipeWithPost({ userId: me.id, name: "First one" });
    const before = await snapshot();
    const filesBefore = files();
    race.idLooksFree = true;
    const body = {
      recipe_id: first.recipeId,
      post_id: crypto.randomUUID(),
      name: "Second one",
      description: "Sent twice",
      ingredients_sec: [{ title: "Main", ingredients: ["Water"] }],
      steps: ["Boil."],
      photo: PNG_DATA_URL,
    };
    const answer = await call(recipesRoute, "POST", "/api/recipes", { cookie, body });
    expectError(answer, 409, "That recipe was just created by another request; please reload.");
    expect(await snapshot()).toBe(before);
    expect(files()).toEqual(filesBefore);
  });

  it("the recipe editor's Save answers 409 with the service's message, storing nothing", async () => {
    const me = await makeUser();
    const cookie = await signedInCookie(me.id);
    const first = await makeRecipeWithPost({ userId: me.id, name: "First one" });
    const before = await snapshot();
    race.idLooksFree = true;
    const draft = { ...emptyDraft(), name: "Second one", description: "Saved twice", sections: [{ id: "", title: "", ingredients: ["Water"] }], steps: ["Boil."] };
    const formData = new FormData();
    for (const [name, value] of [["intent", "save"], ["mode", "create"], ...draftToFields(draft)]) formData.append(name!, value!);
    const request = new Request(new URL(`/ReciPals/Editor/${first.recipeId}`, ORIGIN), { method: "POST", body: formData, headers: { Cookie: cookie } });
    const outcome = await settle(() => editorAction({ request, params: { rid: first.recipeId }, context: {} }));
    expect(outcome).toBeInstanceOf(Response);
    expect((outcome as Response).status).toBe(409);
    expect(await (outcome as Response).text()).toContain(RECIPE_SERVICE_MESSAGES.idTaken);
    expect(await snapshot()).toBe(before);
    const stored = await db.selectFrom("recipes").select("name").where("id", "=", first.recipeId).executeTakeFirstOrThrow();
    expect(stored.name).toBe("First one");
  });
});
