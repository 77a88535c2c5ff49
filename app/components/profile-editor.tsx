import { Form } from "@remix-run/react";
import { useEffect, useRef, useState, type RefObject } from "react";

import { USER_LIMITS } from "~/lib/limits";
import { DEFAULT_PROFILE_IMAGE, paths } from "~/lib/paths";
import { themeHref } from "~/lib/theme";

import { FormAlert, Labelled, TextField, fieldError, useResultKey } from "./forms";
import { TagPicker } from "./tag-picker";
import { Link } from "./link";

export interface ProfileEditorUser {
  id: string;
  name: string;
  username: string;
  role: "USER" | "ADMIN";
  bio: string;
  profile: string;
  tags: string[];
  /** The address on the account, for its owner and ADMINs (docs/rules.md#account-email). */
  email: string | null;
  emailConfirmed: boolean;
}

export interface ProfileEditorFailure {
  formError: string | null;
  fieldErrors: Partial<Record<string, string>>;
  fields: Partial<Record<string, string>>;
  tags: string[];
}

const SIGNOUT_FORM_ID = "profile-editor-signout";
const SIGNOUT_EVERYWHERE_FORM_ID = "profile-editor-signout-everywhere";

/** After a refused save, focus the first visible invalid field, else the form's alert. */
function useFocusFailure(form: RefObject<HTMLFormElement | null>, failure: unknown) {
  useEffect(() => {
    if (!failure || !form.current) return;
    const invalid = [...form.current.querySelectorAll<HTMLElement>('[aria-invalid="true"]')].find(
      (element) => element.offsetParent !== null,
    );
    const target = invalid ?? form.current.querySelector<HTMLElement>('[role="alert"]');
    if (!target) return;
    if (!invalid) target.setAttribute("tabindex", "-1");
    target.focus();
  }, [form, failure]);
}

/** The photo picker with a preview of the chosen file (the current picture, or the default one). */
function PhotoField({ current, failure }: { current: string; failure: ProfileEditorFailure | undefined }) {
  const [preview, setPreview] = useState<string | null>(null);
  useEffect(() => () => {
    if (preview) URL.revokeObjectURL(preview);
  }, [preview]);
  const state = fieldError(failure, "photo");
  return (
    <div className="profile-editor__photo">
      <img
        className="avatar"
        src={preview ?? (current || DEFAULT_PROFILE_IMAGE)}
        alt="Profile photo preview"
        width={96}
        height={96}
      />
      <Labelled label="Profile Photo" hint="JPEG, PNG, WebP or GIF, up to 10 MB." {...state}>
        {(props) => (
          <input
            {...props}
            type="file"
            name="photo"
            accept="image/*"
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              setPreview(file ? URL.createObjectURL(file) : null);
            }}
          />
        )}
      </Labelled>
    </div>
  );
}

/**
 * The profile editor form (docs/rules.md#profile-editing). Multipart, so the photo travels with the fields;
 * an empty file input sends nothing to store. `Admin Password` is rendered only for a
 * non-admin and shown (CSS only, so without JavaScript too) while Admin is chosen.
 */
export function ProfileEditor({
  user,
  failure,
  refusal,
  viewerIsAdmin,
  ownProfile,
  busy,
}: {
  user: ProfileEditorUser;
  failure: ProfileEditorFailure | undefined;
  /** A save refused before the page's action ran: only a message, the form stays as it is. */
  refusal: string | null;
  viewerIsAdmin: boolean;
  /** One's own profile: a new password asks for the current one, and every session can be ended. */
  ownProfile: boolean;
  busy: boolean;
}) {
  const formRef = useRef<HTMLFormElement>(null);
  const resultKey = useResultKey(failure);
  useFocusFailure(formRef, failure ?? refusal);
  const kept = (name: keyof ProfileEditorUser & string, fallback: string) => failure?.fields[name] ?? fallback;
  const role = kept("role", user.role);
  return (
    <>
      <Form
        method="post"
        encType="multipart/form-data"
        noValidate
        className="stack profile-editor"
        ref={formRef}
        aria-labelledby="profile-editor-title"
      >
        {/* Enter in a field saves: the first submit button of the form is this Save, not "Send again". */}
        <button type="submit" className="visually-hidden" tabIndex={-1} aria-hidden="true">
          Save
        </button>
        <FormAlert message={refusal ?? failure?.formError} />
        <PhotoField current={user.profile} failure={failure} />
        <TextField
          label="Name"
          name="name"
          autoComplete="name"
          maxLength={USER_LIMITS.name}
          defaultValue={kept("name", user.name)}
          {...fieldError(failure, "name")}
        />
        <TextField
          label="Username"
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={USER_LIMITS.username}
          hint="3–30 letters, digits, _ or ."
          defaultValue={kept("username", user.username)}
          {...fieldError(failure, "username")}
        />
        <TextField
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={254}
          defaultValue={kept("email", user.email ?? "")}
          hint={ownProfile ? "To get back in if you forget your password. Changing it needs your current password." : "The account's address for password resets."}
          {...fieldError(failure, "email")}
        />
        {user.email ? (
          user.emailConfirmed ? (
            <p className="profile-editor__email-state">Confirmed</p>
          ) : (
            <p className="profile-editor__email-state">
              <span>Not confirmed yet</span>{" "}
              {/* Sends the confirmation link again; the server reads nothing else of the form then. */}
              <button type="submit" name="intent" value="send-confirmation" className="button button--ghost button--small" formNoValidate>
                Send again
              </button>
            </p>
          )
        ) : null}
        <TextField
          label="Password"
          key={`password-${resultKey}`}
          name="password"
          type="text"
          autoComplete="new-password"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={USER_LIMITS.password}
          hint="A new password. Leave empty to keep your current one."
          {...fieldError(failure, "password")}
        />
        {ownProfile ? (
          <TextField
            label="Current Password"
            key={`currentPassword-${resultKey}`}
            name="currentPassword"
            type="password"
            autoComplete="current-password"
            maxLength={USER_LIMITS.password}
            hint="Needed to change your password. Changing it signs you out everywhere else."
            {...fieldError(failure, "currentPassword")}
          />
        ) : null}
        <Labelled label="Role" {...fieldError(failure, "role")}>
          {(props) => (
            // Keyed by the result so a refused admin password puts the choice back to User.
            <select {...props} key={`role-${resultKey}`} name="role" defaultValue={role}>
              <option value="USER">User</option>
              <option value="ADMIN">Admin</option>
            </select>
          )}
        </Labelled>
        {viewerIsAdmin ? null : (
          <div className="profile-editor__admin">
            <TextField
              label="Admin Password"
              key={`adminPassword-${resultKey}`}
              name="adminPassword"
              type="password"
              autoComplete="off"
              maxLength={USER_LIMITS.password}
              hint="Needed to become an Admin."
              {...fieldError(failure, "adminPassword")}
            />
          </div>
        )}
        <Labelled label="Bio" hint={`Up to ${USER_LIMITS.bio} characters.`} {...fieldError(failure, "bio")}>
          {(props) => (
            <textarea {...props} name="bio" rows={2} maxLength={USER_LIMITS.bio} defaultValue={kept("bio", user.bio)} />
          )}
        </Labelled>
        <div className="profile-editor__tags">
          <span className="profile-editor__tags-title">Tags</span>
          <TagPicker key={`tags-${resultKey}`} selected={failure?.tags ?? user.tags} />
        </div>
        {ownProfile ? (
          // The theme is this browser's, not the account's (docs/rules.md#theme): a link, not a field.
          <p className="field__hint">
            Light or dark colours in this browser: <Link to={themeHref(paths.profileEdit(user.id))}>Theme</Link>
          </p>
        ) : null}
        <div className="actions profile-editor__actions">
          <button type="submit" form={SIGNOUT_FORM_ID} className="button button--ghost profile-editor__signout">
            Signout
          </button>
          {ownProfile ? (
            <button type="submit" form={SIGNOUT_EVERYWHERE_FORM_ID} className="button button--ghost">
              Sign out everywhere
            </button>
          ) : null}
          <Link to={paths.profile(user.id)} className="button button--ghost">
            Cancel
          </Link>
          <button type="submit" className="button" disabled={busy}>
            {busy ? "Saving…" : "Save"}
          </button>
        </div>
      </Form>
      {/* Outside the editor form (forms cannot nest); the sign-out buttons above submit them. */}
      <Form method="post" action={paths.logout()} id={SIGNOUT_FORM_ID} reloadDocument hidden />
      {ownProfile ? (
        <Form method="post" action={paths.logout()} id={SIGNOUT_EVERYWHERE_FORM_ID} reloadDocument hidden>
          <input type="hidden" name="intent" value="everywhere" />
        </Form>
      ) : null}
    </>
  );
}
