import { z } from "zod";

import { DEFAULT_PROFILE_IMAGE } from "~/lib/paths";
import { canActFor, isAdmin } from "~/lib/permissions";

import { CacheScope, changing } from "../cache/scopes.server";
import { env } from "../env.server";
import { hashPassword, randomPassword } from "../auth/password.server";
import { createPlaceholderUser } from "../queries/admin.server";
import {
  createUser,
  getUserProfile,
  isCurrentPassword,
  isUsernameTaken,
  isLastAdmin,
  isUsernameTakenByOther,
  updateUserProfile,
  UsernameTakenError,
  type Role,
  type SessionUser,
  type UserProfile,
} from "../queries/users.server";
import { addressBucketKey, beginSignInAttempt, checkAdminSecret, forgetSignInAttempt, LimitReachedError, signupLimit, takeRateLimited } from "../auth/limits.server";
import { FILL_ALL_FIELDS, nameField, newPasswordField, USERNAME_TAKEN, usernameField } from "../validation/auth-schema.server";
import { ADMIN_SECRET_UNSET, INCORRECT_ADMIN_PASSWORD, NOT_ALLOWED, ProfileEditSchema, USER_NOT_FOUND } from "../validation/profile-schema.server";
import { ProfileTagsSchema } from "../validation/tags-schema.server";
import { applyPicture, type PicturePlan } from "../media/pictures.server";
import { deleteImageIfUnreferenced } from "../media/uploads.server";
import { signUpRefusals } from "../observability/metrics.server";
import { checkNewEmail, emailStateOf } from "./account-mail-service.server";
import { accountDeletionNotice } from "../federation/remote-actions.server";
import { deleteAccountRow } from "./account-service.server";
import { done, refusal, type Actor, type Outcome, type Refusal } from "./outcome-service.server";

// People: sign-up, profile edits (with the picture and becoming ADMIN), roles, deletion, the
// admin's placeholder users. For the pages and the API alike (docs/rules.md#people).
//
// Page-cache scopes (cache/scopes.server.ts): a name, username or picture shows on every page
// where its owner posted, commented or liked, so changing one — or deleting someone — changes
// everything; bio, tags, role and password show only in the user's own JSON entity. A new person
// is found by people search.

/** The site always keeps at least one ADMIN: the words of a refused deletion and role change. */
export const LAST_ADMIN_MESSAGES = { delete: "You cannot delete the last admin.", demote: "You cannot remove the last admin's role." } as const;

/** The site always keeps at least one ADMIN: refused for a role change or a deletion that would end that. */
class LastAdminError extends Error {
  constructor(action: "delete" | "demote") {
    super(LAST_ADMIN_MESSAGES[action]);
    this.name = "LastAdminError";
  }
}

export const USER_MESSAGES = {
  notFound: USER_NOT_FOUND,
  notAllowed: NOT_ALLOWED,
  adminOnly: "Only administrators may do that.",
  usersOnly: "New accounts are users; an administrator can make them administrators.",
  usernameTaken: USERNAME_TAKEN,
  secretUnset: ADMIN_SECRET_UNSET,
  wrongSecret: INCORRECT_ADMIN_PASSWORD,
  tooManySignups: "Too many accounts were made from your network in the last hour. Please try again later.",
  currentPasswordNeeded: "Please enter your current password to change it.",
  currentPasswordWrong: "Your current password is not correct.",
} as const;

/**
 * Counts one sign-up from `address` (docs/rules.md#sign-up-limit), or refuses it (429) when the
 * address is at SIGNUP_LIMIT: before the password is hashed or a picture decoded, and recorded in
 * the same transaction as the count, so sign-ups arriving together cannot all slip under it. An
 * unknown address (a request that did not come through the server) is not counted.
 */
export async function takeSignupSlot(address: string | null): Promise<Outcome<null>> {
  if (!address) return done(null);
  try {
    await takeRateLimited(signupLimit(), addressBucketKey(address));
    return done(null);
  } catch (error) {
    if (!(error instanceof LimitReachedError)) throw error;
    signUpRefusals.inc({ reason: "too-many" });
    return refusal(429, USER_MESSAGES.tooManySignups, { retryAfterSeconds: error.retryAfterSeconds });
  }
}

/** What a profile edit may change; a field left out (or equal to what is stored) is left alone. */
export interface ProfileChanges {
  name?: string;
  username?: string;
  bio?: string;
  tags?: string[];
  role?: string;
  /** A new password; empty or left out keeps the old one. */
  password?: string;
  /** Asked of someone changing their own password (docs/rules.md#passwords). */
  currentPassword?: string;
}

const fields = ProfileEditSchema.shape;
const FIELD_SCHEMAS = {
  name: fields.name,
  username: fields.username,
  bio: fields.bio,
  tags: ProfileTagsSchema,
  role: fields.role,
  password: newPasswordField,
} as const;

const sameTags = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((tag, i) => tag === b[i]);

/**
 * What differs from the stored user, each checked by its field's rule. Only what changes is
 * checked: a value stored before today's limits (a long seeded name) can be sent back unchanged.
 */
function checkChanges(user: UserProfile, changes: ProfileChanges): { values: ProfileChanges & { role?: Role }; errors: Record<string, string> } {
  const values: ProfileChanges & { role?: Role } = {};
  const errors: Record<string, string> = {};
  const take = <K extends keyof typeof FIELD_SCHEMAS>(field: K, value: unknown, unchanged: (parsed: never) => boolean) => {
    const parsed = FIELD_SCHEMAS[field].safeParse(value);
    if (!parsed.success) errors[field] = parsed.error.issues[0]?.message ?? "Not valid.";
    else if (!unchanged(parsed.data as never)) (values as Record<string, unknown>)[field] = parsed.data;
  };
  if (changes.name !== undefined && changes.name !== user.name) take("name", changes.name, (v: string) => v === user.name);
  if (changes.username !== undefined && changes.username !== user.username) take("username", changes.username, (v: string) => v === user.username);
  if (changes.bio !== undefined && changes.bio !== user.bio) take("bio", changes.bio, (v: string) => v === user.bio);
  if (changes.tags !== undefined && !sameTags(changes.tags, user.tags)) take("tags", changes.tags, (v: string[]) => sameTags(v, user.tags));
  if (changes.role !== undefined && changes.role !== user.role) take("role", changes.role, (v: Role) => v === user.role);
  if (changes.password !== undefined && changes.password !== "") take("password", changes.password, () => false);
  return { values, errors };
}

/** Becoming ADMIN without being one: the server's admin secret, under the sign-in limits. */
async function checkElevation(actor: Actor, typed: string, address: string | null): Promise<Refusal | null> {
  if (!env.ADMIN_SECRET) return refusal(403, USER_MESSAGES.secretUnset, { errors: { role: USER_MESSAGES.secretUnset }, refused: ["role"] });
  try {
    if (await checkAdminSecret({ typed, secret: env.ADMIN_SECRET, userId: actor.id, address })) return null;
  } catch (error) {
    if (!(error instanceof LimitReachedError)) throw error;
    return refusal(429, error.message, { errors: { adminPassword: error.message }, retryAfterSeconds: error.retryAfterSeconds });
  }
  return refusal(403, USER_MESSAGES.wrongSecret, { errors: { adminPassword: USER_MESSAGES.wrongSecret }, refused: ["role"] });
}

export interface ProfileUpdated {
  user: UserProfile;
  /** The user became ADMIN with the admin secret (the page says so). */
  grantedAdmin: boolean;
  /**
   * The password changed: every session of the user has ended. Someone who changed their own
   * starts a fresh one (the door sets its cookie); whoever else was signed in is signed out.
   */
  passwordChanged: boolean;
}

/**
 * Someone changing their own password proves they know the current one (a shared computer or a
 * stolen cookie must not be enough to lock the owner out). Wrong guesses count as failed sign-ins
 * for the account and the address, under the same limits.
 */
export async function checkCurrentPassword(user: UserProfile, typed: string | undefined, address: string | null): Promise<Refusal | null> {
  if (!typed) return refusal(400, USER_MESSAGES.currentPasswordNeeded, { errors: { currentPassword: USER_MESSAGES.currentPasswordNeeded } });
  let attempt: number;
  try {
    attempt = await beginSignInAttempt({ username: user.username, address });
  } catch (error) {
    if (!(error instanceof LimitReachedError)) throw error;
    return refusal(429, error.message, { errors: { currentPassword: error.message }, retryAfterSeconds: error.retryAfterSeconds });
  }
  if (!(await isCurrentPassword(user.id, typed))) {
    return refusal(403, USER_MESSAGES.currentPasswordWrong, { errors: { currentPassword: USER_MESSAGES.currentPasswordWrong } });
  }
  await forgetSignInAttempt(attempt);
  return null;
}

/**
 * Before a profile save that may change the account's address (docs/rules.md#account-email):
 * whether it changes, the address to store, and for one's own the current password (as
 * `checkCurrentPassword`). Writes nothing: the caller stores it with `changeEmail` once the rest
 * of the save went through, so a refused save changes nothing.
 */
export async function checkEmailChange({
  actor,
  userId,
  email,
  currentPassword,
  address,
}: {
  actor: Actor;
  userId: string;
  /** As sent; undefined when the form or body had no address field. */
  email: unknown;
  currentPassword: string | undefined;
  address: string | null;
}): Promise<Outcome<{ changing: boolean; email: string | null }>> {
  if (email === undefined) return done({ changing: false, email: null });
  const before = (await emailStateOf(userId)).email;
  const typed = typeof email === "string" ? email.trim() : email;
  if (typeof typed === "string" && typed.toLowerCase() === (before ?? "").toLowerCase()) return done({ changing: false, email: before });
  if (!canActFor(actor, userId)) return refusal(403, USER_MESSAGES.notAllowed, { refused: ["email"] });
  const checked = await checkNewEmail(typed, userId);
  if (!checked.ok) return checked;
  if (actor.id === userId) {
    const user = await getUserProfile(userId);
    if (!user) return refusal(404, USER_MESSAGES.notFound);
    const refused = await checkCurrentPassword(user, currentPassword, address);
    if (refused) return refused;
  }
  return done({ changing: true, email: checked.value });
}

/**
 * Saves a profile: the user themself or an ADMIN. Becoming ADMIN needs the admin secret unless an
 * ADMIN decides; the last ADMIN never loses the role; a username is unique whatever its case.
 * The picture is stored only once everything else is acceptable and removed again if the save
 * fails; the replaced one goes once nothing else uses it. One transaction for the row and its tags.
 */
export async function updateProfile({
  actor,
  userId,
  changes,
  picture = { kind: "keep" },
  adminSecret = "",
  address = null,
}: {
  actor: Actor;
  userId: string;
  changes: ProfileChanges;
  picture?: PicturePlan;
  adminSecret?: string;
  address?: string | null;
}): Promise<Outcome<ProfileUpdated>> {
  const user = await getUserProfile(userId);
  if (!user) return refusal(404, USER_MESSAGES.notFound);
  if (!canActFor(actor, userId)) return refusal(403, USER_MESSAGES.notAllowed, { refused: ["profile"] });
  const { values, errors } = checkChanges(user, changes);
  const firstError = Object.values(errors)[0];
  if (firstError) return refusal(400, firstError, { errors });

  const grantedAdmin = values.role === "ADMIN" && !isAdmin(actor);
  if (grantedAdmin) {
    const refused = await checkElevation(actor, adminSecret, address);
    if (refused) return refused;
  }
  if (values.username !== undefined && (await isUsernameTakenByOther(values.username, userId))) {
    return refusal(409, USER_MESSAGES.usernameTaken, { errors: { username: USER_MESSAGES.usernameTaken } });
  }
  // Only one's own password asks for the current one: an ADMIN resetting someone else's does not.
  if (values.password !== undefined && actor.id === userId) {
    const refused = await checkCurrentPassword(user, changes.currentPassword, address);
    if (refused) return refused;
  }
  if (Object.keys(values).length === 0 && picture.kind === "keep") return done({ user, grantedAdmin: false, passwordChanged: false });

  const applied = await applyPicture(picture, user.profile);
  if (!applied.ok) return refusal(applied.status, applied.message, { errors: { profile: applied.message } });
  const { url, uploaded } = applied;
  let saved: UserProfile;
  const shownEverywhere = values.name !== undefined || values.username !== undefined || url !== user.profile;
  try {
    const passwordHash = values.password ? await hashPassword(values.password) : undefined;
    // Only what this request changes is written: another save in between keeps its changes.
    saved = await changing([shownEverywhere ? CacheScope.everything : CacheScope.user(userId)], async (trx) => {
      // Checked where the role changes: two admins demoting each other at once cannot both pass.
      if (values.role !== undefined && values.role !== "ADMIN" && (await isLastAdmin(userId, trx))) throw new LastAdminError("demote");
      return updateUserProfile(
        {
          id: userId,
          name: values.name,
          username: values.username,
          role: values.role,
          bio: values.bio,
          tags: values.tags,
          passwordHash,
          profile: url !== user.profile ? url : undefined,
        },
        trx,
      );
    });
  } catch (error) {
    if (uploaded) await deleteImageIfUnreferenced(url);
    if (error instanceof UsernameTakenError) return refusal(409, USER_MESSAGES.usernameTaken, { errors: { username: USER_MESSAGES.usernameTaken } });
    if (error instanceof LastAdminError) return refusal(409, error.message, { errors: { role: error.message } });
    throw error;
  }
  if (url !== user.profile) await deleteImageIfUnreferenced(user.profile);
  return done({ user: saved, grantedAdmin, passwordChanged: values.password !== undefined });
}

/** An ADMIN changes someone's role (never leaving the site without an ADMIN). */
export async function changeRole({ actor, userId, role }: { actor: Actor; userId: string; role: string }): Promise<Outcome<ProfileUpdated>> {
  if (!isAdmin(actor)) return refusal(403, USER_MESSAGES.adminOnly);
  return updateProfile({ actor, userId, changes: { role } });
}

/**
 * An ADMIN deletes a user: their follows, likes, saves, sessions and "I made this" entries go with
 * them, their recipes, posts and comments stay (by 'Unknown User'); their picture and their entries'
 * photos go once nothing else uses them; the moderation log and reports keep none of their words.
 */
export async function deleteUser({ actor, userId }: { actor: Actor; userId: string }): Promise<Outcome> {
  if (!isAdmin(actor)) return refusal(403, USER_MESSAGES.adminOnly);
  const user = await getUserProfile(userId);
  if (!user) return refusal(404, USER_MESSAGES.notFound);
  let photos: string[] = [];
  const federated = await accountDeletionNotice(userId);
  try {
    await changing([CacheScope.everything], async (trx) => {
      if (await isLastAdmin(userId, trx)) throw new LastAdminError("delete");
      photos = await deleteAccountRow(userId, trx);
    });
  } catch (error) {
    if (error instanceof LastAdminError) return refusal(409, error.message);
    throw error;
  }
  await federated?.();
  for (const url of new Set([user.profile, ...photos])) await deleteImageIfUnreferenced(url);
  return done();
}

/** An ADMIN adds the placeholder user User{n+1} with a random password, shown this once. */
export async function addPlaceholderUser({ actor }: { actor: Actor }): Promise<Outcome<{ id: string; username: string; password: string }>> {
  if (!isAdmin(actor)) return refusal(403, USER_MESSAGES.adminOnly);
  // Its random initial password is shown once, to the admin who made it.
  const password = randomPassword();
  const passwordHash = await hashPassword(password);
  const user = await changing([CacheScope.people], (trx) => createPlaceholderUser({ passwordHash }, trx));
  return done({ ...user, password });
}

const AccountSchema = z.object({
  name: nameField,
  username: usernameField,
  bio: ProfileEditSchema.shape.bio.optional(),
  tags: ProfileTagsSchema.optional(),
  role: z.enum(["USER", "ADMIN"], { error: "Please choose USER or ADMIN." }).optional(),
});

export interface NewAccount {
  name: unknown;
  username: unknown;
  /** The password's hash (the sign-up page hashes at its first step); or `password` in plain text. */
  passwordHash?: string;
  password?: unknown;
  bio?: unknown;
  tags?: unknown;
  /** Only an ADMIN may create an ADMIN. */
  role?: unknown;
  /** Decoded only once everything else is known to be valid (a function), or already planned. */
  picture?: PicturePlan | (() => Promise<PicturePlan>);
}

/**
 * Creates an account: sign-up (anyone, always a USER) or an ADMIN creating one (any role). Name,
 * username, tags and bio follow the profile rules; the username is unique whatever its case.
 * Cheap checks come first — the fields, then the username — and only then the costly work: the
 * sign-up limit for `signupFrom` (a sign-up through the API; the page counted at its first step),
 * the picture's decoding and the password's hash.
 */
export async function createAccount(
  input: NewAccount,
  actor: Actor | null = null,
  options: { signupFrom?: string | null } = {},
): Promise<Outcome<SessionUser>> {
  const outcome = await checkAndCreateAccount(input, actor, options);
  // A sign-up's refusals, for the operator's metrics (the limit counts its own in takeSignupSlot).
  if (!outcome.ok && actor === null && outcome.status !== 429) signUpRefusals.inc({ reason: outcome.status === 409 ? "username-taken" : "invalid" });
  return outcome;
}

async function checkAndCreateAccount(input: NewAccount, actor: Actor | null, { signupFrom }: { signupFrom?: string | null }): Promise<Outcome<SessionUser>> {
  const parsed = AccountSchema.safeParse({ name: input.name ?? "", username: input.username ?? "", bio: input.bio, tags: input.tags, role: input.role });
  const errors: Record<string, string> = {};
  if (!parsed.success) for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "body")] ??= issue.message;
  // An ADMIN may leave the password out: a random one is set, never shown.
  const randomForAdmin = input.passwordHash === undefined && (input.password === undefined || input.password === "") && isAdmin(actor);
  let password: string | undefined;
  if (input.passwordHash === undefined && !randomForAdmin) {
    const typed = newPasswordField.safeParse(input.password ?? "");
    if (!typed.success) errors.password ??= typed.error.issues[0]?.message ?? FILL_ALL_FIELDS;
    else password = typed.data;
  }
  if (!parsed.success || (input.passwordHash === undefined && !randomForAdmin && password === undefined)) {
    return refusal(400, Object.values(errors)[0] ?? FILL_ALL_FIELDS, { errors });
  }
  const role = parsed.data.role ?? "USER";
  if (role === "ADMIN" && !isAdmin(actor)) return refusal(403, USER_MESSAGES.usersOnly, { refused: ["role"] });
  if (await isUsernameTaken(parsed.data.username)) return refusal(409, USER_MESSAGES.usernameTaken, { errors: { username: USER_MESSAGES.usernameTaken } });
  if (signupFrom !== undefined) {
    const slot = await takeSignupSlot(signupFrom);
    if (!slot.ok) return slot;
  }
  const plan = typeof input.picture === "function" ? await input.picture() : (input.picture ?? { kind: "keep" as const });
  const passwordHash = input.passwordHash ?? (await hashPassword(randomForAdmin ? randomPassword() : password!));
  const applied = await applyPicture(plan, DEFAULT_PROFILE_IMAGE);
  if (!applied.ok) return refusal(applied.status, applied.message, { errors: { profile: applied.message } });
  const { url, uploaded } = applied;
  try {
    return done(
      await changing([CacheScope.people], (trx) =>
        createUser({ name: parsed.data.name, username: parsed.data.username, passwordHash, role, bio: parsed.data.bio ?? "", tags: parsed.data.tags ?? [], profile: url }, trx),
      ),
    );
  } catch (error) {
    if (uploaded) await deleteImageIfUnreferenced(url);
    if (error instanceof UsernameTakenError) return refusal(409, USER_MESSAGES.usernameTaken, { errors: { username: USER_MESSAGES.usernameTaken } });
    throw error;
  }
}
