import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { isRouteErrorResponse, useActionData, useLoaderData, useNavigation, useRouteError } from "@remix-run/react";

import { ErrorPage } from "~/components/error-page";
import { ProfileEditor, type ProfileEditorFailure } from "~/components/profile-editor";
import { BlockedAndMuted } from "~/components/person-actions";
import { DELETE_ACCOUNT_PATH, EXPORT_PATH } from "~/lib/account";
import { paths } from "~/lib/paths";
import { canEditProfile } from "~/lib/permissions";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { TAG_LIMIT_MESSAGE } from "~/lib/tags";
import { formValues, keptFields } from "~/server/http/forms.server";
import type { RequestBodyKind } from "~/server/http/body.server";
import { invariantResponse } from "~/server/http/responses.server";
import { fileBytes, FormReadError, readMultipartFormLenient } from "~/server/http/multipart.server";
import { ImageError, IMAGE_MESSAGES, processImage } from "~/server/media/images.server";
import { type PicturePlan } from "~/server/media/pictures.server";
import { getUserProfile } from "~/server/queries/users.server";
import { listBlocked, listMuted } from "~/server/queries/visibility.server";
import { LimitReachedError, takeUploadSlot } from "~/server/auth/limits.server";
import { updateProfile } from "~/server/services/users.server";
import { createUserSession, requireUser } from "~/server/auth/session.server";
import { clientAddress } from "~/server/http/ip.server";
import {
  ADMIN_SECRET_UNSET,
  IMAGE_FAILED,
  INCORRECT_ADMIN_PASSWORD,
  NOT_ALLOWED,
  PROFILE_FIELDS,
  SAVE_FAILED,
  USER_NOT_FOUND,
} from "~/server/validation/profile.server";
import { readTags, UNKNOWN_TAG } from "~/server/validation/tags.server";
import { stylesheetLinks, type StyledRoute } from "~/root";
import profileStyles from "~/styles/profile.css";

export const handle: StyledRoute = { styles: [profileStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const meta: MetaFunction = () => [{ title: "Edit Profile · ReciPals" }];

/** The user being edited, after the guards: signed in, the user exists, and it is them or an ADMIN. */
async function requireEditableUser(request: Request, uid: string) {
  const viewer = await requireUser(request);
  const user = await getUserProfile(uid);
  invariantResponse(user, USER_NOT_FOUND, 404);
  invariantResponse(canEditProfile(viewer, uid), NOT_ALLOWED, 403);
  return { viewer, user };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { viewer, user } = await requireEditableUser(request, params.uid ?? "");
  const ownProfile = viewer.id === user.id;
  // One's own blocks and mutes, each with its undo (an admin editing someone sees neither).
  const [blocked, muted] = ownProfile ? await Promise.all([listBlocked(user.id), listMuted(user.id)]) : [[], []];
  return { user, viewerIsAdmin: viewer.role === "ADMIN", ownProfile, blocked, muted };
}

type Failure = ProfileEditorFailure;

function refuseSave(status: number, failure: Omit<Failure, "formError"> & { formError?: string | null }) {
  // Field messages sit by their fields; the alert says the save did not happen.
  return data<Failure>({ ...failure, formError: failure.formError ?? SAVE_FAILED }, { status });
}

// Refusals the page also shows as its alert (the product's own texts); others read "Failed to save…".
const ALERT_MESSAGES = new Set<string>([TAG_LIMIT_MESSAGE, UNKNOWN_TAG, ADMIN_SECRET_UNSET, INCORRECT_ADMIN_PASSWORD]);

// A multipart form with photos, read and counted by the action itself (app/server/http/body.server.ts).
export const requestBody = "photo-form" satisfies RequestBodyKind;

export async function action({ request, params, context }: ActionFunctionArgs) {
  const uid = params.uid ?? "";
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
  const to = outcome.value.grantedAdmin ? `${paths.profile(uid)}?admin=granted` : paths.profile(uid);
  // A new password ended every session of the account; whoever changed their own starts a fresh one.
  if (outcome.value.passwordChanged && viewer.id === uid) return createUserSession({ request, userId: uid, redirectTo: to });
  return redirect(to);
}

export default function ProfileEditRoute() {
  const { user, viewerIsAdmin, ownProfile, blocked, muted } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  // A save the server refused before this action ran (busy, too large, cross-site): said in the
  // form's alert; the form keeps everything typed and chosen.
  const refusal = earlyRefusalMessage(answer);
  const failure = isEarlyRefusal(answer) ? undefined : answer;
  const navigation = useNavigation();
  // Only the editor's own (multipart) submission; Signout is a plain form.
  const busy = navigation.state === "submitting" && navigation.formEncType === "multipart/form-data";
  return (
    <section className="profile-edit">
      <h1 className="page-title" id="profile-editor-title">
        Edit Profile
      </h1>
      <ProfileEditor user={user} failure={failure} refusal={refusal} viewerIsAdmin={viewerIsAdmin} ownProfile={ownProfile} busy={busy} />
      {ownProfile ? <BlockedAndMuted blocked={blocked} muted={muted} returnTo={paths.profileEdit(user.id)} /> : null}
      {ownProfile ? (
        <section className="people-list" aria-labelledby="own-data-title">
          <h2 id="own-data-title">Your data</h2>
          <div className="person-actions">
            <a href={EXPORT_PATH} download className="button button--ghost">
              Download my data
            </a>
            <a href={DELETE_ACCOUNT_PATH} className="button button--ghost button--danger">
              Delete my account
            </a>
          </div>
        </section>
      ) : null}
    </section>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (!isRouteErrorResponse(error)) throw error;
  const message = typeof error.data === "string" && error.data ? error.data : undefined;
  return <ErrorPage status={error.status} message={message} />;
}
