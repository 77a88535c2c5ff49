// The profile editor (/ReciPals/Account/Profile/{id}/Edit): what the form starts from (with one's
// own blocks and mutes) and what a save does. Its owner or an ADMIN only; the rules are the users service's.
import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { withNotice } from "~/lib/notices";
import { paths } from "~/lib/paths";
import { canActFor } from "~/lib/permissions";
import { TAG_LIMIT_MESSAGE } from "~/lib/tags";
import { LimitReachedError, takeUploadSlot } from "~/server/auth/limits.server";
import { createUserSession, requireUser } from "~/server/auth/session.server";
import { formValues, keptFields, type FormFailure } from "~/server/http/forms.server";
import { clientAddress } from "~/server/http/ip.server";
import { fileBytes, FormReadError, readMultipartFormLenient } from "~/server/http/multipart.server";
import { invariantResponse } from "~/server/http/responses.server";
import { ImageError, IMAGE_MESSAGES, processImage } from "~/server/media/images.server";
import type { PicturePlan } from "~/server/media/pictures.server";
import { getUserProfile } from "~/server/queries/users.server";
import { listBlocked, listMuted } from "~/server/queries/visibility.server";
import { changeEmail, emailStateOf, sendEmailConfirmation } from "~/server/services/account-mail-service.server";
import { checkEmailChange, updateProfile } from "~/server/services/users-service.server";
import {
  ADMIN_SECRET_UNSET,
  IMAGE_FAILED,
  INCORRECT_ADMIN_PASSWORD,
  NOT_ALLOWED,
  PROFILE_FIELDS,
  SAVE_FAILED,
  USER_NOT_FOUND,
} from "~/server/validation/profile-schema.server";
import { readTags, UNKNOWN_TAG } from "~/server/validation/tags-schema.server";

/** A refused save: the messages, what was typed (never passwords) and the tags chosen (the editor's ProfileEditorFailure). */
export type ProfileEditFailure = FormFailure & { tags: string[] };

/** The user being edited, after the guards: signed in, the user exists, and it is them or an ADMIN. */
async function requireEditableUser(request: Request, uid: string) {
  const viewer = await requireUser(request);
  const user = await getUserProfile(uid);
  invariantResponse(user, USER_NOT_FOUND, 404);
  invariantResponse(canActFor(viewer, uid), NOT_ALLOWED, 403);
  return { viewer, user };
}

/** The profile as stored, whether the viewer is an ADMIN, and one's own blocks and mutes. */
export async function loadProfileEditPage(request: Request, uid: string) {
  const { viewer, user } = await requireEditableUser(request, uid);
  const ownProfile = viewer.id === user.id;
  // One's own blocks and mutes, each with its undo (an admin editing someone sees neither).
  const [blocked, muted] = ownProfile ? await Promise.all([listBlocked(user.id), listMuted(user.id)]) : [[], []];
  // The address only for its owner and ADMINs (this page is theirs alone).
  const emailState = await emailStateOf(user.id);
  return { user: { ...user, ...emailState }, viewerIsAdmin: viewer.role === "ADMIN", ownProfile, blocked, muted };
}

function refuseSave(status: number, failure: Omit<ProfileEditFailure, "formError"> & { formError?: string | null }) {
  // Field messages sit by their fields; the alert says the save did not happen.
  return data<ProfileEditFailure>({ ...failure, formError: failure.formError ?? SAVE_FAILED }, { status });
}

// Refusals the page also shows as its alert (the product's own texts); others read "Failed to save…".
const ALERT_MESSAGES = new Set<string>([TAG_LIMIT_MESSAGE, UNKNOWN_TAG, ADMIN_SECRET_UNSET, INCORRECT_ADMIN_PASSWORD]);

/** A save (the multipart form, with its photo): on to the profile, or the form again with why. */
export async function profileEditPageAction(request: Request, uid: string, context: AppLoadContext) {
  const { viewer, user } = await requireEditableUser(request, uid);

  // Lenient: a photo over 10 MB is left out and reported, so everything typed survives.
  let formData: FormData;
  let photoTooLarge: boolean;
  try {
    const form = await readMultipartFormLenient(request);
    formData = form.formData;
    photoTooLarge = form.oversizedFiles.length > 0;
  } catch (error) {
    if (!(error instanceof FormReadError)) throw error;
    // A text field refused while reading (NUL) is the form's message, not the photo's.
    if (error.textField !== null) return refuseSave(error.status, { formError: error.message, fieldErrors: {}, fields: {}, tags: user.tags });
    return refuseSave(error.status, { formError: IMAGE_FAILED, fieldErrors: { photo: error.message }, fields: {}, tags: user.tags });
  }
  // "Send again": the confirmation link of the address on file, nothing else of the form.
  if (formData.get("intent") === "send-confirmation") {
    const sent = await sendEmailConfirmation(uid);
    if (!sent.ok) return refuseSave(sent.status, { formError: sent.message, fieldErrors: { email: sent.message }, fields: {}, tags: user.tags });
    return redirect(withNotice(paths.profileEdit(uid), "email-sent"));
  }
  const tags = readTags(formData);
  const fields = keptFields(formData, PROFILE_FIELDS);
  if (photoTooLarge) {
    return refuseSave(413, { formError: IMAGE_FAILED, fieldErrors: { photo: IMAGE_MESSAGES.tooLarge }, fields, tags });
  }
  let picture: PicturePlan = { kind: "keep" };
  const photo = await fileBytes(formData.get("photo"));
  if (photo) {
    try {
      await takeUploadSlot(viewer.id);
      picture = { kind: "upload", image: await processImage(photo) };
    } catch (error) {
      if (error instanceof LimitReachedError) return refuseSave(429, { formError: error.message, fieldErrors: { photo: error.message }, fields, tags });
      if (!(error instanceof ImageError)) throw error;
      return refuseSave(error.status, { formError: IMAGE_FAILED, fieldErrors: { photo: error.message }, fields, tags });
    }
  }

  const typed = formValues(formData, PROFILE_FIELDS);
  // A new email address (docs/rules.md#account-email): checked before anything is saved; one's own
  // needs the current password (a borrowed session must not be able to take the account's mail).
  const emailChange = await checkEmailChange({
    actor: viewer,
    userId: uid,
    email: formData.has("email") ? String(formData.get("email") ?? "") : undefined,
    currentPassword: typed.currentPassword,
    address: clientAddress(context),
  });
  if (!emailChange.ok) return refuseSave(emailChange.status, { formError: null, fieldErrors: emailChange.errors ?? { email: emailChange.message }, fields, tags });
  const outcome = await updateProfile({
    actor: viewer,
    userId: uid,
    changes: {
      name: typed.name,
      username: typed.username,
      password: typed.password,
      currentPassword: typed.currentPassword,
      role: typed.role,
      bio: typed.bio,
      tags,
    },
    picture,
    adminSecret: typed.adminPassword,
    address: clientAddress(context),
  });
  if (!outcome.ok) {
    // A refused elevation puts the choice back to User; the last ADMIN keeps Admin chosen.
    const role = outcome.errors?.adminPassword || outcome.errors?.role === ADMIN_SECRET_UNSET ? "USER" : outcome.errors?.role ? "ADMIN" : fields.role;
    const fieldErrors = { ...outcome.errors };
    if (outcome.message === ADMIN_SECRET_UNSET) fieldErrors.role = ADMIN_SECRET_UNSET;
    // 503: the image store did not take the photo (nothing was saved); said by the photo field and in the alert.
    if (outcome.status === 503) {
      delete fieldErrors.profile;
      fieldErrors.photo = outcome.message;
    }
    const alert = ALERT_MESSAGES.has(outcome.message) || outcome.status === 429 || outcome.status === 503 || outcome.errors?.role ? outcome.message : null;
    return refuseSave(outcome.status, { formError: alert, fieldErrors, fields: { ...fields, ...(role ? { role } : {}) }, tags });
  }
  let to = outcome.value.grantedAdmin ? `${paths.profile(uid)}?admin=granted` : paths.profile(uid);
  if (emailChange.value.changing) {
    const changed = await changeEmail({ userId: uid, email: emailChange.value.email ?? "" });
    if (changed.ok && changed.value.email) to = withNotice(to, changed.value.mailed ? "email-sent" : "email-not-sent");
  }
  // A new password ended every session of the account; whoever changed their own starts a fresh one.
  if (outcome.value.passwordChanged && viewer.id === uid) return createUserSession({ request, userId: uid, redirectTo: to });
  return redirect(to);
}
