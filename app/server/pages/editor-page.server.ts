// The recipe editor (/ReciPals/Editor/{id}): create mode when the id names no recipe, edit mode
// otherwise (docs/rules.md#recipe-editor). What the loader shows and what each button of the form
// does; the rules (who may edit, what a draft may hold, storing photos) are the services'.
import { data, redirect } from "@remix-run/node";

import { withNotice } from "~/lib/notices";
import { paths } from "~/lib/paths";
import { canEditRecipe } from "~/lib/permissions";
import {
  applyRowIntent,
  draftFromFormData,
  draftFromRecipe,
  emptyDraft,
  FIELD,
  firstThreeTags,
  IMPORT_INTENT,
  normalizeDraft,
  parseRowIntent,
  RECIPE_MESSAGES,
  type EditorResult,
  type RecipeDraft,
} from "~/lib/recipe-form";
import { getUser } from "~/server/auth/session.server";
import { fileBytes, FormReadError, readMultipartFormLenient, type LenientMultipart } from "~/server/http/multipart.server";
import { readIntent } from "~/server/http/responses.server";
import { ImportError, importRecipe } from "~/server/import/import.server";
import { IMPORT_LINK_PARAM, importableLink } from "~/server/import/share.server";
import { ImageError, isStoredImageUrl } from "~/server/media/images.server";
import { storedNameOf } from "~/server/media/storage.server";
import { dropPendingUpload, rememberPendingUpload } from "~/server/media/uploads.server";
import { getRecipeOwnership } from "~/server/queries/recipe-writes.server";
import { getRecipeDetail } from "~/server/queries/recipes.server";
import { keepDraftPhoto, saveEditorDraft } from "~/server/services/recipe-editor-service.server";
import { deleteRecipe } from "~/server/services/recipes-service.server";
import { isUsableRecipeId } from "~/server/validation/recipe-schema.server";

/** Form fields a forged request might use to pass a recipe off as someone else's. */
const CREATOR_FIELDS = ["user_created", "userId", "user_id", "creator", "created_by", "creatorId"];

function loginRedirect(rid: string, reason: "create" | "create-save" | "expired") {
  return redirect(`${paths.login(paths.editor(rid))}&reason=${reason}`);
}

function fail(message: string, status: number): Response {
  return new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

// Create mode when the rid names no recipe (docs/rules.md#recipe-editor), edit mode otherwise. Signed-out visitors
// go to Login with the product's reason; only the creator or an ADMIN may edit.
export async function loadEditorPage(request: Request, rid: string) {
  const [recipe, user] = await Promise.all([getRecipeDetail(rid), getUser(request)]);
  if (!recipe) {
    if (!user) throw loginRedirect(rid, "create");
    if (!isUsableRecipeId(rid)) throw fail(RECIPE_MESSAGES.notFound, 404);
    return {
      mode: "create" as const,
      rid,
      draft: emptyDraft(),
      photo: null,
      cancelTo: paths.profile(user.id),
      importLink: sharedImportLink(request),
    };
  }
  if (!user) throw loginRedirect(rid, "expired");
  if (!canEditRecipe(user, recipe.user_created)) throw fail(RECIPE_MESSAGES.notAllowed, 403);
  return {
    mode: "edit" as const,
    rid,
    draft: draftFromRecipe(recipe),
    photo: recipe.photo || null,
    cancelTo: paths.recipe(rid),
    importLink: "",
  };
}

/**
 * `?link=` fills in `Import from link` of a new recipe (a page shared to ReciPals,
 * docs/rules.md#import-by-link); nothing is fetched until Import is pressed. A value we would not
 * import is ignored.
 */
function sharedImportLink(request: Request): string {
  return importableLink(new URL(request.url).searchParams.get(IMPORT_LINK_PARAM)) ?? "";
}

type Answer = Omit<EditorResult, "photoNotKept" | "focus" | "importLink" | "importNotes"> & Partial<EditorResult>;

function answer(result: Answer, status: number) {
  return data<EditorResult>(
    { photoNotKept: false, focus: null, importLink: "", importNotes: [], ...result, draft: normalizeDraft(result.draft) },
    { status },
  );
}

export async function editorPageAction(request: Request, rid: string) {
  // Guards first, before the body is read: who is asking, and may they touch this recipe?
  const existing = await getRecipeOwnership(rid);
  const user = await getUser(request);
  if (!user) throw loginRedirect(rid, existing ? "expired" : "create-save");
  if (existing && !canEditRecipe(user, existing.user_created)) throw fail(RECIPE_MESSAGES.notAllowed, 403);
  if (!existing && !isUsableRecipeId(rid)) throw fail(RECIPE_MESSAGES.notFound, 404);

  let form: LenientMultipart;
  try {
    form = await readMultipartFormLenient(request);
  } catch (error) {
    if (!(error instanceof FormReadError)) throw error;
    // The body could not be read at all: show the form as stored, with the reason (beside the
    // photo unless a text field was refused: NUL).
    const detail = existing ? await getRecipeDetail(rid) : undefined;
    const draft = detail ? draftFromRecipe(detail) : emptyDraft();
    const fieldErrors: Record<string, string> = error.textField === null ? { [FIELD.photo]: error.message } : {};
    return answer({ kind: "invalid", draft, fieldErrors, formError: error.message, pendingPhoto: null }, error.status);
  }
  const { formData, oversizedFiles } = form;
  const intent = readIntent(formData) || "save";
  const draft = draftFromFormData(formData);
  const pendingValue = formData.get(FIELD.pendingPhoto);
  // Only a URL our storage produced (and still holds) is taken back from the form.
  let pendingPhoto: string | null;
  try {
    pendingPhoto = (await isStoredImageUrl(pendingValue)) ? (pendingValue as string) : null;
  } catch (error) {
    if (!(error instanceof ImageError)) throw error;
    // The image store cannot be reached: nothing is saved; the form comes back as typed, its
    // upload address still carried (checked again on the next try) so nothing has to be chosen again.
    const carried = storedNameOf(pendingValue) ? (pendingValue as string) : null;
    return answer({ kind: "invalid", draft, fieldErrors: { [FIELD.photo]: error.message }, formError: error.message, pendingPhoto: carried }, error.status);
  }
  const photoTooLarge = oversizedFiles.includes(FIELD.photo);

  // The form was opened in edit mode but the recipe is gone: do not quietly create a new one.
  if (!existing && formData.get(FIELD.mode) === "edit" && (intent === "save" || intent === "delete")) {
    throw fail(RECIPE_MESSAGES.notFound, 404);
  }

  if (intent === "delete") {
    if (!existing) throw fail(RECIPE_MESSAGES.notFound, 404);
    if (formData.get(FIELD.confirm) !== "yes") {
      return answer({ kind: "confirm-delete", draft, fieldErrors: {}, formError: null, pendingPhoto }, 200);
    }
    const deleted = await deleteRecipe({ actor: user, recipeId: rid });
    if (!deleted.ok) throw fail(deleted.message, deleted.status);
    if (pendingPhoto) await dropPendingUpload(user.id, pendingPhoto);
    return redirect(paths.profile(user.id));
  }

  if (intent === IMPORT_INTENT) return importAnswer(user.id, draft, formData, pendingPhoto, photoTooLarge);
  const row = parseRowIntent(intent);
  if (row) return rowAnswer(user.id, draft, row, formData.get(FIELD.photo), pendingPhoto, photoTooLarge);
  if (intent !== "save") throw fail("Unknown action.", 400);

  // Save: the editor service checks everything first and stores nothing unless all of it is acceptable.
  const saved = await saveEditorDraft({
    actor: user,
    recipeId: rid,
    existing: existing ? { creatorId: existing.user_created } : undefined,
    draft,
    claimedCreators: CREATOR_FIELDS.filter((name) => formData.has(name)).map((name) => String(formData.get(name))),
    photo: { bytes: photoTooLarge ? null : await fileBytes(formData.get(FIELD.photo)), tooLarge: photoTooLarge },
    pendingPhoto,
  });
  if ("invalid" in saved) {
    const { status, ...refused } = saved.invalid;
    return answer({ kind: "invalid", draft: { ...draft, tags: firstThreeTags(draft.tags) }, pendingPhoto, ...refused }, status);
  }
  if ("refusal" in saved) throw fail(saved.refusal.message, saved.refusal.status);
  const target = existing ? paths.recipe(rid) : paths.post(user.id, saved.value.postId);
  return redirect(saved.value.tagsCut ? withNotice(target, "tags-cut") : target);
}

/** A row button without JavaScript: the draft plus the change, nothing saved; a chosen photo is kept as pending. */
async function rowAnswer(
  userId: string,
  draft: RecipeDraft,
  row: NonNullable<ReturnType<typeof parseRowIntent>>,
  photoEntry: FormDataEntryValue | null,
  pendingPhoto: string | null,
  photoTooLarge: boolean,
) {
  const change = applyRowIntent(normalizeDraft(draft), row);
  const { pending, photoError, photoStatus } = await keepDraftPhoto(userId, photoTooLarge ? null : await fileBytes(photoEntry), pendingPhoto, photoTooLarge);
  return answer(
    {
      kind: "draft",
      draft: change.draft,
      fieldErrors: photoError ? { [FIELD.photo]: photoError } : {},
      formError: change.error,
      pendingPhoto: pending,
      focus: change.focus,
    },
    photoError ? photoStatus : 200,
  );
}

/**
 * `Import` (docs/rules.md#import-by-link): the linked page's Recipe JSON-LD replaces the draft, nothing is saved.
 * Its photo becomes the pending photo, unless a photo was chosen with this submission: the
 * user's own choice wins (and is kept as pending, as a row button would). A failed import keeps
 * the draft as typed, with the reason next to the link.
 */
async function importAnswer(userId: string, draft: RecipeDraft, formData: FormData, pendingPhoto: string | null, photoTooLarge: boolean) {
  const linkValue = formData.get(FIELD.importLink);
  const link = typeof linkValue === "string" ? linkValue.trim() : "";
  const photoEntry = formData.get(FIELD.photo);
  const photoChosen = photoTooLarge || (await fileBytes(photoEntry)) !== null;
  let imported: Awaited<ReturnType<typeof importRecipe>> | null = null;
  let importError: ImportError | null = null;
  try {
    imported = await importRecipe(link, { photo: !photoChosen, requestedBy: userId });
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    importError = error;
  }
  const kept = await keepDraftPhoto(userId, photoTooLarge ? null : await fileBytes(photoEntry), pendingPhoto, photoTooLarge);
  const photoError = kept.photoError;
  let pending = kept.pending;
  if (imported?.photo) {
    await rememberPendingUpload(userId, imported.photo);
    if (pending && pending !== imported.photo) await dropPendingUpload(userId, pending);
    pending = imported.photo;
  }
  const fieldErrors: Record<string, string> = {};
  if (importError) fieldErrors[FIELD.importLink] = importError.message;
  if (photoError) fieldErrors[FIELD.photo] = photoError;
  return answer(
    {
      kind: "draft",
      draft: imported ? imported.draft : draft,
      fieldErrors,
      formError: null,
      pendingPhoto: pending,
      focus: importError ? FIELD.importLink : FIELD.name,
      importLink: link,
      importNotes: imported ? imported.notes : [],
    },
    importError ? importError.status : photoError ? kept.photoStatus : 200,
  );
}
