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
import { paths } from "~/lib/paths";
import { canEditProfile } from "~/lib/permissions";
import { TAG_LIMIT_MESSAGE } from "~/lib/tags";
import { env } from "~/server/env.server";
import { formValues, keptFields, toFailure } from "~/server/forms.server";
import { invariantResponse } from "~/server/http.server";
import {
  deleteImageIfUnreferenced,
  fileBytes,
  ImageError,
  IMAGE_MESSAGES,
  readMultipartFormLenient,
  storeImage,
} from "~/server/images.server";
import { hashPassword } from "~/server/password.server";
import { getUserProfile, isUsernameTakenByOther, LastAdminError, updateUserProfile, UsernameTakenError } from "~/server/queries/users.server";
import { requireUser } from "~/server/session.server";
import { checkAdminSecret, clientAddress, ThrottledError } from "~/server/throttle.server";
import { USERNAME_TAKEN } from "~/server/validation/auth.server";
import {
  ADMIN_SECRET_UNSET,
  IMAGE_FAILED,
  INCORRECT_ADMIN_PASSWORD,
  NOT_ALLOWED,
  PROFILE_FIELDS,
  ProfileEditSchema,
  SAVE_FAILED,
  USER_NOT_FOUND,
} from "~/server/validation/profile.server";
import { readTags, UNKNOWN_TAG } from "~/server/validation/tags.server";
import profileStyles from "~/styles/profile.css";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: profileStyles }];

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
  return { user, viewerIsAdmin: viewer.role === "ADMIN" };
}

type Failure = ProfileEditorFailure;

function refuse(status: number, failure: Omit<Failure, "formError"> & { formError?: string | null }) {
  // Field messages sit by their fields; the alert says the save did not happen.
  return data<Failure>({ ...failure, formError: failure.formError ?? SAVE_FAILED }, { status });
}

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
    if (!(error instanceof ImageError)) throw error;
    return refuse(error.status, { formError: IMAGE_FAILED, fieldErrors: { photo: error.message }, fields: {}, tags: user.tags });
  }
  const submittedTags = readTags(formData);
  const fields = keptFields(formData, PROFILE_FIELDS);
  if (photoTooLarge) {
    return refuse(413, { formError: IMAGE_FAILED, fieldErrors: { photo: IMAGE_MESSAGES.tooLarge }, fields, tags: submittedTags });
  }
  const parsed = ProfileEditSchema.safeParse({ ...formValues(formData, PROFILE_FIELDS), tags: submittedTags });
  if (!parsed.success) {
    const failure = toFailure(parsed.error, formData, PROFILE_FIELDS, [TAG_LIMIT_MESSAGE, UNKNOWN_TAG]);
    return refuse(400, { ...failure, tags: submittedTags });
  }
  const input = parsed.data;

  // Becoming ADMIN: an ADMIN chooses roles freely; anyone else needs the server's secret.
  let grantedAdmin = false;
  if (input.role === "ADMIN" && viewer.role !== "ADMIN" && user.role !== "ADMIN") {
    const back = { ...fields, role: "USER" };
    if (!env.ADMIN_SECRET) {
      return refuse(403, { formError: ADMIN_SECRET_UNSET, fieldErrors: { role: ADMIN_SECRET_UNSET }, fields: back, tags: submittedTags });
    }
    let matches: boolean;
    try {
      matches = await checkAdminSecret({ typed: input.adminPassword, secret: env.ADMIN_SECRET, userId: viewer.id, address: clientAddress(context) });
    } catch (error) {
      if (!(error instanceof ThrottledError)) throw error;
      return refuse(429, { formError: error.message, fieldErrors: { adminPassword: error.message }, fields: back, tags: submittedTags });
    }
    if (!matches) {
      return refuse(403, {
        formError: INCORRECT_ADMIN_PASSWORD,
        fieldErrors: { adminPassword: INCORRECT_ADMIN_PASSWORD },
        fields: back,
        tags: submittedTags,
      });
    }
    grantedAdmin = true;
  }

  if (await isUsernameTakenByOther(input.username, uid)) {
    return refuse(409, { fieldErrors: { username: USERNAME_TAKEN }, fields, tags: submittedTags });
  }

  // The photo is stored last, once everything else is known to be acceptable.
  let profile: string | undefined;
  const photo = await fileBytes(formData.get("photo"));
  if (photo) {
    try {
      profile = (await storeImage(photo)).url;
    } catch (error) {
      if (!(error instanceof ImageError)) throw error;
      return refuse(error.status, { formError: IMAGE_FAILED, fieldErrors: { photo: error.message }, fields, tags: submittedTags });
    }
  }

  try {
    await updateUserProfile({
      id: uid,
      name: input.name,
      username: input.username,
      role: input.role,
      bio: input.bio,
      tags: input.tags,
      passwordHash: input.password ? await hashPassword(input.password) : undefined,
      profile,
    });
  } catch (error) {
    if (profile !== undefined) await deleteImageIfUnreferenced(profile);
    if (error instanceof UsernameTakenError) {
      return refuse(409, { fieldErrors: { username: USERNAME_TAKEN }, fields, tags: submittedTags });
    }
    if (error instanceof LastAdminError) {
      return refuse(409, { formError: error.message, fieldErrors: { role: error.message }, fields: { ...fields, role: "ADMIN" }, tags: submittedTags });
    }
    console.error(error);
    return refuse(500, { fieldErrors: {}, fields, tags: submittedTags });
  }
  // The replaced picture goes once nothing else uses it (never the default picture).
  if (profile !== undefined && profile !== user.profile) await deleteImageIfUnreferenced(user.profile);
  return redirect(grantedAdmin ? `${paths.profile(uid)}?admin=granted` : paths.profile(uid));
}

export default function ProfileEditRoute() {
  const { user, viewerIsAdmin } = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const navigation = useNavigation();
  // Only the editor's own (multipart) submission; Signout is a plain form.
  const busy = navigation.state === "submitting" && navigation.formEncType === "multipart/form-data";
  return (
    <section className="profile-edit">
      <h1 className="page-title" id="profile-editor-title">
        Edit Profile
      </h1>
      <ProfileEditor user={user} failure={failure} viewerIsAdmin={viewerIsAdmin} busy={busy} />
    </section>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (!isRouteErrorResponse(error)) throw error;
  const message = typeof error.data === "string" && error.data ? error.data : undefined;
  return <ErrorPage status={error.status} message={message} />;
}
