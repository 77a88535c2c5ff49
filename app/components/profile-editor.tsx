import { Form, Link } from "@remix-run/react";
import { useEffect, useId, useRef, useState, type ReactNode, type RefObject } from "react";

import { USER_LIMITS } from "~/lib/limits";
import { DEFAULT_PROFILE_IMAGE, paths } from "~/lib/paths";

import { FormAlert, TextField, fieldError, useResultKey } from "./forms";
import { TagPicker } from "./tag-picker";

export interface ProfileEditorUser {
  id: string;
  name: string;
  username: string;
  role: "USER" | "ADMIN";
  bio: string;
  profile: string;
  tags: string[];
}

export interface ProfileEditorFailure {
  formError: string | null;
  fieldErrors: Partial<Record<string, string>>;
  fields: Partial<Record<string, string>>;
  tags: string[];
}

const LIMITS = USER_LIMITS;
const SIGNOUT_FORM_ID = "profile-editor-signout";

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

function Field({
  label,
  error,
  invalid,
  hint,
  children,
}: {
  label: string;
  error: string | null;
  invalid: boolean;
  hint?: ReactNode;
  children: (props: { id: string; "aria-invalid": true | undefined; "aria-describedby": string | undefined }) => ReactNode;
}) {
  const id = useId();
  const describedBy = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": invalid || undefined, "aria-describedby": describedBy })}
      {hint ? (
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field__error" id={`${id}-error`} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
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
      <Field label="Profile Photo" hint="JPEG, PNG, WebP or GIF, up to 10 MB." {...state}>
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
      </Field>
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
  viewerIsAdmin,
  busy,
}: {
  user: ProfileEditorUser;
  failure: ProfileEditorFailure | undefined;
  viewerIsAdmin: boolean;
  busy: boolean;
}) {
  const formRef = useRef<HTMLFormElement>(null);
  const resultKey = useResultKey(failure);
  useFocusFailure(formRef, failure);
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
        <FormAlert message={failure?.formError} />
        <PhotoField current={user.profile} failure={failure} />
        <TextField
          label="Name"
          name="name"
          autoComplete="name"
          maxLength={LIMITS.name}
          defaultValue={kept("name", user.name)}
          {...fieldError(failure, "name")}
        />
        <TextField
          label="Username"
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={LIMITS.username}
          hint="3–30 letters, digits, _ or ."
          defaultValue={kept("username", user.username)}
          {...fieldError(failure, "username")}
        />
        <TextField
          label="Password"
          key={`password-${resultKey}`}
          name="password"
          type="text"
          autoComplete="new-password"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={LIMITS.password}
          hint="A new password. Leave empty to keep your current one."
          {...fieldError(failure, "password")}
        />
        <Field label="Role" {...fieldError(failure, "role")}>
          {(props) => (
            // Keyed by the result so a refused admin password puts the choice back to User.
            <select {...props} key={`role-${resultKey}`} name="role" defaultValue={role}>
              <option value="USER">User</option>
              <option value="ADMIN">Admin</option>
            </select>
          )}
        </Field>
        {viewerIsAdmin ? null : (
          <div className="profile-editor__admin">
            <TextField
              label="Admin Password"
              key={`adminPassword-${resultKey}`}
              name="adminPassword"
              type="password"
              autoComplete="off"
              maxLength={LIMITS.password}
              hint="Needed to become an Admin."
              {...fieldError(failure, "adminPassword")}
            />
          </div>
        )}
        <Field label="Bio" hint={`Up to ${LIMITS.bio} characters.`} {...fieldError(failure, "bio")}>
          {(props) => (
            <textarea {...props} name="bio" rows={2} maxLength={LIMITS.bio} defaultValue={kept("bio", user.bio)} />
          )}
        </Field>
        <div className="profile-editor__tags">
          <span className="profile-editor__tags-title">Tags</span>
          <TagPicker key={`tags-${resultKey}`} selected={failure?.tags ?? user.tags} />
        </div>
        <div className="actions profile-editor__actions">
          <button type="submit" form={SIGNOUT_FORM_ID} className="button button--ghost profile-editor__signout">
            Signout
          </button>
          <Link to={paths.profile(user.id)} className="button button--ghost">
            Cancel
          </Link>
          <button type="submit" className="button" disabled={busy}>
            {busy ? "Saving…" : "Save"}
          </button>
        </div>
      </Form>
      {/* Outside the editor form (forms cannot nest); the Signout button above submits it. */}
      <Form method="post" action={paths.logout()} id={SIGNOUT_FORM_ID} hidden />
    </>
  );
}
