import { beforeAll, describe, expect, it } from "vitest";

import { action as profileEditAction } from "~/routes/ReciPals.Account.Profile.$uid_.Edit";
import { action as editorAction } from "~/routes/ReciPals.Editor.$rid";
import { action as cookedAction } from "~/routes/ReciPals.Recipes.$rid.Cooked";
import { BODY_MESSAGES } from "~/server/http/body.server";
import { db } from "~/server/db/connection.server";

import { diff, makeWorld, ORIGIN, outcomeOf, snapshot, useScratchUploads, type World } from "../support/server/world";

// NUL in the photo forms (issue 45): the recipe editor, the profile editor and "I made this" are
// read by the multipart reader, which must refuse NUL in any text field as every other form does
// (docs/rules.md#input-limits): 400 with the message, nothing stored, on either engine (SQLite
// would keep the NUL, PostgreSQL refuses it with an error). Each field is tried alone, in a form
// that is otherwise accepted, so the refusal can only be the NUL's.

useScratchUploads();
let w: World;
beforeAll(async () => {
  w = await makeWorld();
});

type Fields = [string, string][];

function multipart(fields: Fields, cookie: string): Request {
  const formData = new FormData();
  for (const [name, value] of fields) formData.append(name, value);
  return new Request(new URL("/x", ORIGIN), { method: "POST", body: formData, headers: { Cookie: cookie } });
}

function urlencoded(fields: Fields, cookie: string): Request {
  return new Request(new URL("/x", ORIGIN), {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
  });
}

/** The form with one field's value (at one of its places) holding NUL. */
function withNulValue(fields: Fields, index: number): Fields {
  return fields.map(([name, value], i): [string, string] => (i === index ? [name, `${value}a\u0000b`] : [name, value]));
}

/** Every variant of a form with NUL in one place: each value, each name, and one extra field. */
function nulVariants(fields: Fields): { label: string; fields: Fields }[] {
  const variants = fields.map((field, index) => ({ label: `value of ${field[0]} #${index}`, fields: withNulValue(fields, index) }));
  variants.push({ label: "a field's name", fields: [...fields.slice(1), [`${fields[0]![0]}\u0000`, fields[0]![1]]] });
  variants.push({ label: "an extra field's name", fields: [...fields, ["x\u0000", "1"]] });
  variants.push({ label: "an extra field's value", fields: [...fields, ["x", "\u0000"]] });
  return variants;
}

/** The message a refused answer carries, whatever its shape. */
function messageOf(body: unknown): string {
  return typeof body === "string" ? body : JSON.stringify(body);
}

async function expectRefused(label: string, run: () => unknown) {
  const before = await snapshot();
  const outcome = await outcomeOf(run);
  expect(outcome.status, label).toBe(400);
  expect(messageOf(outcome.body), label).toContain(BODY_MESSAGES.nul);
  expect(diff(before, await snapshot()), `${label}: nothing stored`).toEqual([]);
}

describe("NUL in the recipe editor's form", () => {
  const recipeFields = (): Fields => [
    ["intent", "save"],
    ["mode", "create"],
    ["name", "Nul pie"],
    ["description", "A pie with nothing odd in it"],
    ["sectionId", ""],
    ["sectionTitle", "Dough"],
    ["ingredient-0", "Flour (200g)"],
    ["ingredient-0", "Butter (100g)"],
    ["sectionId", ""],
    ["sectionTitle", "Filling"],
    ["ingredient-1", "Apples (3)"],
    ["step", "Mix."],
    ["step", "Bake."],
    ["totalTime", "1 hour"],
    ["serves", "4"],
    ["tags", "pie, baking"],
    ["pendingPhoto", ""],
    ["importLink", ""],
  ];

  it("the form without NUL is saved (the refusals below are the NUL's)", async () => {
    const rid = crypto.randomUUID();
    const outcome = await outcomeOf(() => editorAction({ request: multipart(recipeFields(), w.owner.cookie), params: { rid }, context: {} }));
    expect(outcome.status).toBe(302);
    await db.deleteFrom("recipes").where("id", "=", rid).execute();
  });

  it("creating: every text field holding NUL is refused with 400 and the message, nothing stored", async () => {
    for (const variant of nulVariants(recipeFields())) {
      const rid = crypto.randomUUID();
      await expectRefused(`create, ${variant.label}`, () => editorAction({ request: multipart(variant.fields, w.owner.cookie), params: { rid }, context: {} }));
    }
  });

  it("editing, by its creator and by an ADMIN: every text field holding NUL is refused", async () => {
    const fields = recipeFields().map(([name, value]): [string, string] => (name === "mode" ? [name, "edit"] : [name, value]));
    for (const cookie of [w.owner.cookie, w.admin.cookie]) {
      for (const variant of nulVariants(fields)) {
        await expectRefused(`edit, ${variant.label}`, () => editorAction({ request: multipart(variant.fields, cookie), params: { rid: w.recipeId }, context: {} }));
      }
    }
  });

  it("row buttons, delete and import: NUL is refused before anything reads the form", async () => {
    const forms: Fields[] = [
      [["intent", "add-ingredient-0\u0000"], ...recipeFields().slice(1)],
      [["intent", "delete"], ["mode", "edit"], ["confirm", "yes\u0000"]],
      [["intent", "import"], ["mode", "create"], ["importLink", "https://example.com/pie\u0000"]],
    ];
    for (const fields of forms) {
      await expectRefused(`intent ${fields[0]![1]}`, () => editorAction({ request: multipart(fields, w.owner.cookie), params: { rid: w.recipeId }, context: {} }));
    }
    expect(await db.selectFrom("recipes").select("id").where("id", "=", w.recipeId).executeTakeFirst()).toBeDefined();
  });

  it("the same form sent urlencoded is refused alike", async () => {
    for (const variant of nulVariants(recipeFields())) {
      const rid = crypto.randomUUID();
      await expectRefused(`urlencoded, ${variant.label}`, () => editorAction({ request: urlencoded(variant.fields, w.owner.cookie), params: { rid }, context: {} }));
    }
  });
});

describe("NUL in the profile editor's form", () => {
  const profileFields = (): Fields => [
    ["name", "Otto Other"],
    ["username", w.other.username],
    ["bio", "I like stew"],
    ["role", "USER"],
    ["password", ""],
    ["currentPassword", ""],
    ["adminPassword", ""],
    ["tags", "Vegan"],
  ];

  it("the form without NUL is saved (the refusals below are the NUL's)", async () => {
    const outcome = await outcomeOf(() => profileEditAction({ request: multipart(profileFields(), w.other.cookie), params: { uid: w.other.id }, context: {} }));
    expect(outcome.status).toBe(302);
  });

  it("every text field holding NUL is refused with 400 and the message, nothing stored", async () => {
    const changingPassword: Fields = [...profileFields().filter(([name]) => name !== "password" && name !== "currentPassword"), ["password", "a new long passphrase"], ["currentPassword", w.other.password]];
    for (const fields of [profileFields(), changingPassword]) {
      for (const variant of nulVariants(fields)) {
        await expectRefused(`profile, ${variant.label}`, () => profileEditAction({ request: multipart(variant.fields, w.other.cookie), params: { uid: w.other.id }, context: {} }));
      }
    }
  });

  it("an ADMIN editing someone, and the form sent urlencoded, are refused alike", async () => {
    for (const variant of nulVariants(profileFields())) {
      await expectRefused(`admin, ${variant.label}`, () => profileEditAction({ request: multipart(variant.fields, w.admin.cookie), params: { uid: w.other.id }, context: {} }));
      await expectRefused(`urlencoded, ${variant.label}`, () => profileEditAction({ request: urlencoded(variant.fields, w.other.cookie), params: { uid: w.other.id }, context: {} }));
    }
  });
});

describe("NUL in the \"I made this\" form", () => {
  const cookFields = (): Fields => [
    ["intent", "cooked"],
    ["mode", "add"],
    ["rating", "4"],
    ["note", "Lovely stew"],
    ["servings", "2"],
    ["removePhoto", ""],
  ];

  it("every text field holding NUL is refused with 400 and the message, nothing stored", async () => {
    for (const variant of nulVariants(cookFields())) {
      await expectRefused(`cook, ${variant.label}`, () => cookedAction({ request: multipart(variant.fields, w.other.cookie), params: { rid: w.recipeId }, context: {} }));
      await expectRefused(`cook urlencoded, ${variant.label}`, () => cookedAction({ request: urlencoded(variant.fields, w.other.cookie), params: { rid: w.recipeId }, context: {} }));
    }
  });

  it("changing and deleting an entry: NUL is refused too, the entry kept as it was", async () => {
    const added = await outcomeOf(() => cookedAction({ request: multipart(cookFields(), w.other.cookie), params: { rid: w.recipeId }, context: {} }));
    expect(added.status).toBe(302);
    const editing = cookFields().map(([name, value]): [string, string] => (name === "mode" ? [name, "edit"] : [name, value]));
    for (const variant of nulVariants(editing)) {
      await expectRefused(`cook edit, ${variant.label}`, () => cookedAction({ request: multipart(variant.fields, w.other.cookie), params: { rid: w.recipeId }, context: {} }));
    }
    const deletes: Fields[] = [
      [["intent", "uncook"], ["confirm", "yes\u0000"]],
      [["intent", "remove-cook"], ["confirm", "yes"], ["userId", `${w.other.id}\u0000`]],
    ];
    for (const fields of deletes) {
      const cookie = fields[0]![1] === "uncook" ? w.other.cookie : w.admin.cookie;
      await expectRefused(`cook ${fields[0]![1]}`, () => cookedAction({ request: multipart(fields, cookie), params: { rid: w.recipeId }, context: {} }));
    }
    const stored = await db.selectFrom("cooks").select(["note", "rating"]).where("recipe_id", "=", w.recipeId).where("user_id", "=", w.other.id).executeTakeFirstOrThrow();
    expect(stored).toEqual({ note: "Lovely stew", rating: 4 });
  });
});
