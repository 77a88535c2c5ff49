// "I made this" (/ReciPals/Recipes/{id}/Cooked, docs/rules.md#i-made-this): the form's data and
// what it posts: an entry (rating, note, servings, photo), or deleting one. The rules are the cooks
// service's.
import { data, redirect } from "@remix-run/node";

import { COOK_DELETE_MESSAGES, COOK_MESSAGES } from "~/lib/cook-limits";
import { cookedPath } from "~/lib/cooks";
import { paths } from "~/lib/paths";
import { getLens, requireUser } from "~/server/auth/session.server";
import { fileBytes, FormReadError, readMultipartFormLenient } from "~/server/http/multipart.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { IMAGE_MESSAGES } from "~/server/media/images.server";
import { getOwnCook } from "~/server/queries/cooks.server";
import { getRecipeCreator } from "~/server/queries/recipes.server";
import { isHidden, UNAVAILABLE_RECIPE } from "~/server/queries/visibility.server";
import { removeCook, saveCook, uploadedCookPhoto, type CookPhoto } from "~/server/services/cooks-service.server";

const FIELDS = ["rating", "note", "servings"] as const;
type Field = (typeof FIELDS)[number] | "photo";

/** Why an entry was not saved, with what was typed. */
export interface CookedFailure {
  message: string;
  errors: Partial<Record<Field, string>>;
  fields: Partial<Record<(typeof FIELDS)[number], string>>;
}

function refuse(status: number, failure: CookedFailure) {
  return data(failure, { status });
}

/** The form for the viewer's own entry (none on their own recipe). */
export async function loadCookedPage(request: Request, recipeId: string) {
  const user = await requireUser(request, { redirectTo: `${cookedPath(recipeId)}#cook-form` });
  const creatorId = await getRecipeCreator(recipeId);
  invariantResponse(creatorId !== undefined, "Recipe not found.", 404);
  invariantResponse(!(await isHidden(await getLens(request), creatorId)), UNAVAILABLE_RECIPE, 404);
  // One's own recipe has no form (an ADMIN may still be asked to confirm a removal here).
  const entry = creatorId === user.id ? undefined : await getOwnCook(user.id, recipeId);
  return { recipeId, own: creatorId === user.id, entry: entry ?? null };
}

/** Saves the viewer's entry, or deletes it (an ADMIN: anyone's), after asking. */
export async function cookedPageAction(request: Request, recipeId: string) {
  const back = `${paths.recipe(recipeId)}#cooked`;
  // A visitor is sent to sign in before a byte of the body is read.
  const user = await requireUser(request, { redirectTo: `${cookedPath(recipeId)}#cook-form` });
  let formData: FormData;
  let photoTooLarge: boolean;
  try {
    const form = await readMultipartFormLenient(request);
    formData = form.formData;
    photoTooLarge = form.oversizedFiles.length > 0;
  } catch (error) {
    if (!(error instanceof FormReadError)) throw error;
    // Beside the photo, unless a text field was refused while reading (NUL).
    return refuse(error.status, { message: error.message, errors: error.textField === null ? { photo: error.message } : {}, fields: {} });
  }
  const intent = readIntent(formData);

  if (intent === "uncook" || intent === "remove-cook") {
    const who = formData.get("userId");
    // Deleting asks first (docs/rules.md#confirmations): with JavaScript a dialog, else this step.
    if (formData.get("confirm") !== "yes") return { confirm: { intent: intent as keyof typeof COOK_DELETE_MESSAGES, userId: typeof who === "string" ? who : "" } };
    const outcome = await removeCook({ actor: user, recipeId, userId: intent === "remove-cook" && typeof who === "string" ? who : user.id });
    if (!outcome.ok && outcome.status !== 404) throw new Response(outcome.message, { status: outcome.status });
    return redirect(back);
  }
  if (intent !== "cooked") return refuse(400, { message: "Unknown action.", errors: {}, fields: {} });

  const fields: CookedFailure["fields"] = {};
  for (const name of FIELDS) {
    const value = formData.get(name);
    if (typeof value === "string") fields[name] = value;
  }
  if (photoTooLarge) return refuse(413, { message: IMAGE_MESSAGES.tooLarge, errors: { photo: IMAGE_MESSAGES.tooLarge }, fields });
  const bytes = await fileBytes(formData.get("photo"));
  // Stored only once the service has accepted the rest of the entry.
  const photo: CookPhoto = bytes ? uploadedCookPhoto(user.id, bytes) : formData.get("removePhoto") === "yes" ? { kind: "set", url: "" } : null;
  const outcome = await saveCook({
    actor: user,
    recipeId,
    fields: { rating: fields.rating ?? "", note: fields.note ?? "", servings: fields.servings ?? "" },
    photo,
    mode: formData.get("mode") === "edit" ? "edit" : "add",
  });
  if (!outcome.ok) {
    if (outcome.status === 404 && outcome.message === COOK_MESSAGES.recipeMissing) throw new Response(outcome.message, { status: 404 });
    return refuse(outcome.status, { message: outcome.message, errors: (outcome.errors ?? {}) as CookedFailure["errors"], fields });
  }
  return redirect(back);
}
