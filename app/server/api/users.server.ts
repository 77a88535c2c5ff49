import { z } from "zod";

import { DEFAULT_PROFILE_IMAGE } from "~/lib/paths";
import { canEditProfile, isAdmin } from "~/lib/permissions";

import { checkCredentials, LoginError, throttledSignIn } from "../auth.server";
import { env } from "../env.server";
import { deleteImageIfUnreferenced } from "../images.server";
import { hashPassword, randomPassword } from "../password.server";
import { createPlaceholderUser, deleteUser, setUserRole } from "../queries/admin.server";
import { follow, removeFollower, unfollow } from "../queries/follows.server";
import { recipeExists } from "../queries/recipes.server";
import { setRecipeSaved } from "../queries/saved.server";
import { searchUsers } from "../queries/search.server";
import {
  createUser,
  getSessionUserById,
  isUsernameTaken,
  isUsernameTakenByOther,
  LastAdminError,
  readUsersWithLists,
  updateUserProfile,
  UsernameTakenError,
  type SessionUser,
  type UserWithLists,
} from "../queries/users.server";
import { endSession, startSession } from "../session.server";
import { checkAdminSecret, clientAddress, ThrottledError } from "../throttle.server";
import { nameField, newPasswordField, USERNAME_TAKEN, usernameField } from "../validation/auth.server";
import {
  ADMIN_SECRET_UNSET,
  INCORRECT_ADMIN_PASSWORD,
  NOT_ALLOWED,
  ProfileEditSchema,
} from "../validation/profile.server";
import { ProfileTagsSchema } from "../validation/tags.server";
import { apiUser, apiUsersByIds, jsonList, NOT_FOUND, parseListWindow, streamUsers } from "./entities.server";
import { ApiError, invalid, json, param, readJsonObject, requireApiUser, type ApiArgs } from "./http.server";
import { applyPicture, planPicture, type PicturePlan } from "./pictures.server";
import { issuesToErrors, withoutNulls } from "./validation.server";

// /api/users (SPEC §7 "Users"), on the same rules and query modules as the pages.
//
// PUT /api/users/{id} merges the sent object into the stored user field by field:
// - `_id` must match the URL (400 otherwise); `__v` and unknown fields are ignored; `password`
//   sets a new password when non-empty (a `password_hash`/`passwordHash` field is refused: 400);
//   `profile` counts only when it differs from the stored picture.
// - name, username, bio, tags, profile, password: the user or an ADMIN (canEditProfile).
// - role: an ADMIN changes it freely (never leaving the site without an ADMIN: 409); a USER
//   making themselves ADMIN must send the admin secret as `adminPassword` (checked against
//   ADMIN_SECRET on the server, as the profile editor does; 403 otherwise).
// - Lists are never written as lists: a stale copy must never undo someone's follow or post.
//   `posts`, `saved_recipes` and the user's own `following` are derived from their own records
//   and ignored (follows change through /follow, /unfollow or the other user's `followers`).
//   `{_id, followers}` (no other user field) is SPEC's "remove follower": removals are applied
//   (the owner or an ADMIN), additions refused. In a whole-object PUT the owner's own
//   `followers` are ignored.
// - On someone else's user a non-admin may change only their own place in it: adding or
//   removing their id in `followers` (follow / unfollow) and removing their id from
//   `following` (that user stops following them = remove follower). Any other difference
//   is refused.
// A request with any refused part is refused whole (403, `refused` names the parts) and
// changes nothing; the original client's follow, unfollow and remove-follower calls each
// change only the caller's own relations, so they pass.

const UNKNOWN_SIGNUP_ROLE = "New accounts are users; an administrator can make them administrators.";
const CANNOT_FOLLOW_SELF = "You cannot follow yourself.";
const SELF_ONLY = "You may only change your own saved recipes.";
const ADMIN_ONLY = "Only administrators may do that.";
const HASH_FIELD = "The password hash cannot be sent; send `password` to set a new password.";
const ID_FIXED = "The _id in the body does not match the URL; ids cannot be changed.";
const OWN_RELATIONS_ONLY = "You may only follow or unfollow as yourself, or stop someone following you.";
const NO_ADDED_FOLLOWERS = "Followers cannot be added; people follow you themselves.";

const { name: nameShape, username: usernameShape, password: passwordShape, bio: bioShape } = ProfileEditSchema.shape;

// ---------------------------------------------------------------------------------------------
// Session

/** POST /api/users/signin `{username, password}`: the user and a session cookie. */
export async function signIn({ request, context }: ApiArgs): Promise<Response> {
  const body = await readJsonObject(request);
  const subject = { username: typeof body.username === "string" ? body.username : "", address: clientAddress(context) };
  let user: SessionUser;
  try {
    user = await throttledSignIn(subject, () => checkCredentials({ username: body.username, password: body.password }));
  } catch (error) {
    if (error instanceof ThrottledError) {
      throw new ApiError(429, error.message, {}, { "Retry-After": String(error.retryAfterSeconds) });
    }
    if (error instanceof LoginError) {
      throw new ApiError(error.status, error.message, error.status === 400 && error.field ? { errors: { [error.field]: error.message } } : {});
    }
    throw error;
  }
  return json(await apiUser(user.id), { headers: { "Set-Cookie": await startSession(request, user.id) } });
}

/** POST /api/users/signout: ends the session (if any). */
export async function signOut({ request }: ApiArgs): Promise<Response> {
  return json({ signedOut: true }, { headers: { "Set-Cookie": await endSession(request) } });
}

/** GET or POST /api/users/profile: the session user, or 401 (never `{}`). */
export async function profile({ request }: ApiArgs): Promise<Response> {
  const user = await requireApiUser(request);
  return json(await apiUser(user.id));
}

const SignupSchema = z.object({
  name: nameField,
  username: usernameField,
  password: newPasswordField,
  tags: ProfileTagsSchema.optional(),
  bio: bioShape.optional(),
});

/** POST /api/users/signup: creates a USER and signs them in (201). */
export async function signUp({ request }: ApiArgs): Promise<Response> {
  const body = withoutNulls(await readJsonObject(request));
  const parsed = SignupSchema.safeParse({
    name: body.name ?? "",
    username: body.username ?? "",
    password: body.password ?? "",
    tags: body.tags,
    bio: body.bio,
  });
  if (!parsed.success) throw invalid(issuesToErrors(parsed.error));
  if (body.role !== undefined && body.role !== "USER") throw new ApiError(403, UNKNOWN_SIGNUP_ROLE, { refused: ["role"] });
  const input = parsed.data;
  if (await isUsernameTaken(input.username)) throw usernameTaken();
  const picture = await planOptionalPicture(body.profile, { current: null, fallback: DEFAULT_PROFILE_IMAGE, field: "profile" });
  const { url } = await applyPicture(picture, DEFAULT_PROFILE_IMAGE);
  let created: SessionUser;
  try {
    created = await createUser({
      name: input.name,
      username: input.username,
      passwordHash: await hashPassword(input.password),
      bio: input.bio ?? "",
      tags: input.tags ?? [],
      profile: url,
    });
  } catch (error) {
    await deleteImageIfUnreferenced(url);
    if (error instanceof UsernameTakenError) throw usernameTaken();
    throw error;
  }
  return json(await apiUser(created.id), { status: 201, headers: { "Set-Cookie": await startSession(request, created.id) } });
}

function usernameTaken(): ApiError {
  return new ApiError(409, USERNAME_TAKEN, { errors: { username: USERNAME_TAKEN } });
}

async function planOptionalPicture(
  value: unknown,
  options: { current: string | null; fallback: string; field: string },
): Promise<PicturePlan> {
  if (value === undefined) return { kind: "keep" };
  if (typeof value !== "string") throw invalid({ [options.field]: "Expected text." });
  return planPicture(value, options);
}

// ---------------------------------------------------------------------------------------------
// Reading

/** GET /api/users: everyone (streamed), or `?name=` people search (literal text); `?limit=&offset=`. */
export async function listUsers({ request }: ApiArgs): Promise<Response> {
  const url = new URL(request.url);
  const window = parseListWindow(url);
  const name = url.searchParams.get("name");
  if (name !== null && name.trim() !== "") {
    const cards = await searchUsers(name.slice(0, 200));
    return jsonList(await apiUsersByIds(cards.map((card) => card.id)), window);
  }
  return streamUsers(window);
}

/** GET /api/users/{id}. */
export async function getUserById(args: ApiArgs): Promise<Response> {
  return json(await apiUser(param(args, "id")));
}

// ---------------------------------------------------------------------------------------------
// POST /api/users (ADMIN): SPEC's "create user"

const CreateUserSchema = z.object({
  name: nameField,
  username: usernameField,
  password: newPasswordField.optional(),
  role: z.enum(["USER", "ADMIN"], { error: "Please choose USER or ADMIN." }).optional(),
  bio: bioShape.optional(),
  tags: ProfileTagsSchema.optional(),
});

/**
 * Creates a user as an ADMIN (201). With `name` and `username` it creates that user (a random
 * password when none is sent; it is never shown); with neither it makes SPEC §4's placeholder
 * User{n+1}/user{n+1}.
 */
export async function createUserAsAdmin({ request }: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(request);
  if (!isAdmin(actor)) throw new ApiError(403, ADMIN_ONLY);
  const body = withoutNulls(await readJsonObject(request));
  // An empty object asks for the placeholder User{n+1}, as the admin page's Add User does; a body
  // with anything in it must name the user (a stray or malformed object creates nobody).
  if (Object.keys(body).length === 0) {
    const placeholder = await createPlaceholderUser();
    return json(await apiUser(placeholder.id), { status: 201 });
  }
  const parsed = CreateUserSchema.safeParse({
    name: body.name ?? "",
    username: body.username ?? "",
    password: body.password === "" ? undefined : body.password,
    role: body.role,
    bio: body.bio,
    tags: body.tags,
  });
  if (!parsed.success) throw invalid(issuesToErrors(parsed.error));
  const input = parsed.data;
  if (await isUsernameTaken(input.username)) throw usernameTaken();
  const picture = await planOptionalPicture(body.profile, { current: null, fallback: DEFAULT_PROFILE_IMAGE, field: "profile" });
  const { url } = await applyPicture(picture, DEFAULT_PROFILE_IMAGE);
  try {
    const created = await createUser({
      name: input.name,
      username: input.username,
      passwordHash: await hashPassword(input.password ?? randomPassword()),
      role: input.role ?? "USER",
      bio: input.bio ?? "",
      tags: input.tags ?? [],
      profile: url,
    });
    return json(await apiUser(created.id), { status: 201 });
  } catch (error) {
    await deleteImageIfUnreferenced(url);
    if (error instanceof UsernameTakenError) throw usernameTaken();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// PUT /api/users/{id}

const idList = z
  .array(z.union([z.string(), z.looseObject({ _id: z.string() })]).transform((item) => (typeof item === "string" ? item : item._id)))
  .max(100_000);

const UserPutSchema = z.object({
  _id: z.string().optional(),
  name: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  role: z.string().optional(),
  bio: z.string().optional(),
  profile: z.string().optional(),
  tags: z.array(z.string()).max(100).optional(),
  followers: idList.optional(),
  following: idList.optional(),
  posts: idList.optional(),
  saved_recipes: idList.optional(),
  adminPassword: z.string().max(1000).optional(),
});

/** Plain fields that differ from the stored user, validated. */
interface ProfileChanges {
  name?: string;
  username?: string;
  bio?: string;
  tags?: string[];
  role?: "USER" | "ADMIN";
  password?: string;
}

/** User fields, as opposed to `_id`, `__v`, the admin secret and fields we do not know. */
const USER_FIELDS = ["name", "username", "password", "role", "bio", "profile", "tags", "followers", "following", "posts", "saved_recipes"] as const;

interface FollowOp {
  kind: "follow" | "unfollow" | "remove";
  /** follow/unfollow: follower → followee; remove: owner loses follower. */
  a: string;
  b: string;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, i) => item === b[i]);
const minus = (a: readonly string[], b: readonly string[]) => {
  const other = new Set(b);
  return [...new Set(a)].filter((item) => !other.has(item));
};

export async function updateUser({ request, params, context }: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(request);
  const targetId = params.id ?? "";
  const [target] = await readUsersWithLists({ ids: [targetId] });
  if (!target) throw new ApiError(404, NOT_FOUND.user);

  const raw = withoutNulls(await readJsonObject(request));
  if ("password_hash" in raw || "passwordHash" in raw) throw invalid({ password: HASH_FIELD });
  const shape = UserPutSchema.safeParse(raw);
  if (!shape.success) throw invalid(issuesToErrors(shape.error));
  const body = shape.data;
  if (body._id !== undefined && body._id !== targetId) throw invalid({ _id: ID_FIXED });

  const self = actor.id === target.id;
  const admin = isAdmin(actor);
  const mayEdit = canEditProfile(actor, target.id);
  const sentFields = USER_FIELDS.filter((field) => body[field] !== undefined);
  const followersOnly = sentFields.length === 1 && sentFields[0] === "followers";

  const refused = new Map<string, string>();
  const errors: Record<string, string> = {};

  // Plain fields: what differs from the stored user (validated only then, so an unchanged legacy
  // value is never refused by today's limits).
  const changes: ProfileChanges = {};
  const check = <T>(field: keyof typeof changes, value: unknown, stored: unknown, schema: z.ZodType<T>, same: (v: T) => boolean) => {
    if (value === undefined || value === stored) return;
    const parsed = schema.safeParse(value);
    if (!parsed.success) errors[field] = parsed.error.issues[0]?.message ?? "Not valid.";
    else if (!same(parsed.data)) (changes as Record<string, unknown>)[field] = parsed.data;
  };
  check("name", body.name, target.name, nameShape, (v) => v === target.name);
  check("username", body.username, target.username, usernameShape, (v) => v === target.username);
  check("bio", body.bio, target.bio, bioShape, (v) => v === target.bio);
  if (body.tags !== undefined && !sameList(body.tags, target.tags)) {
    check("tags", body.tags, undefined, ProfileTagsSchema, (v) => sameList(v, target.tags));
  }
  check("role", body.role, target.role, z.enum(["USER", "ADMIN"], { error: "Please choose USER or ADMIN." }), (v) => v === target.role);
  if (body.password !== undefined && body.password !== "") check("password", body.password, undefined, passwordShape, () => false);
  const pictureChanged = body.profile !== undefined && body.profile !== target.profile;

  const plainChanged = Object.keys(changes).length > 0 || Object.keys(errors).length > 0 || pictureChanged;
  if (plainChanged && !mayEdit) refused.set("profile", NOT_ALLOWED);

  // Relations: only ever changes of the caller's own follows (see the comment at the top).
  const ops: FollowOp[] = [];
  if (body.followers !== undefined) {
    const added = minus(body.followers, target.followers);
    const removed = minus(target.followers, body.followers);
    for (const id of added) {
      if (id === actor.id && !self) ops.push({ kind: "follow", a: actor.id, b: target.id });
      else if (!followersOnly && (self || admin)) continue;
      else refused.set("followers", followersOnly && (self || admin) ? NO_ADDED_FOLLOWERS : OWN_RELATIONS_ONLY);
    }
    for (const id of removed) {
      if (id === actor.id && !self) ops.push({ kind: "unfollow", a: actor.id, b: target.id });
      else if (followersOnly && (self || admin)) ops.push({ kind: "remove", a: target.id, b: id });
      else if (self || admin) continue;
      else refused.set("followers", OWN_RELATIONS_ONLY);
    }
  }
  if (body.following !== undefined) {
    const added = minus(body.following, target.following);
    const removed = minus(target.following, body.following);
    for (const id of removed) {
      if (id === actor.id && !self) ops.push({ kind: "remove", a: actor.id, b: target.id });
      else if (!self && !admin) refused.set("following", OWN_RELATIONS_ONLY);
    }
    if (added.length > 0 && !self && !admin) refused.set("following", OWN_RELATIONS_ONLY);
  }
  for (const field of ["posts", "saved_recipes"] as const) {
    const sent = body[field];
    if (sent === undefined || self || admin) continue;
    if (minus(sent, target[field]).length > 0 || minus(target[field], sent).length > 0) refused.set(field, OWN_RELATIONS_ONLY);
  }

  // Becoming ADMIN without being one: the admin secret, as in the profile editor.
  if (changes.role === "ADMIN" && mayEdit && !admin) {
    if (!env.ADMIN_SECRET) refused.set("role", ADMIN_SECRET_UNSET);
    else {
      // Guesses are held to the sign-in limits (shared with the profile editor).
      try {
        const typed = typeof body.adminPassword === "string" ? body.adminPassword : "";
        if (!(await checkAdminSecret({ typed, secret: env.ADMIN_SECRET, userId: actor.id, address: clientAddress(context) }))) {
          refused.set("role", INCORRECT_ADMIN_PASSWORD);
        }
      } catch (error) {
        if (!(error instanceof ThrottledError)) throw error;
        throw new ApiError(429, error.message, {}, { "Retry-After": String(error.retryAfterSeconds) });
      }
    }
  }

  if (refused.size > 0) {
    throw new ApiError(403, [...refused.values()][0]!, { refused: [...refused.keys()] });
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  if (changes.username !== undefined && (await isUsernameTakenByOther(changes.username, target.id))) throw usernameTaken();

  const picture = pictureChanged
    ? await planPicture(body.profile!, { current: target.profile, fallback: DEFAULT_PROFILE_IMAGE, field: "profile" })
    : ({ kind: "keep" } as const);

  if (Object.keys(changes).length > 0 || picture.kind !== "keep") {
    await writeProfile(target, changes, picture);
  }
  for (const op of ops) {
    if (op.kind === "follow") await follow({ followerId: op.a, followeeId: op.b });
    else if (op.kind === "unfollow") await unfollow({ followerId: op.a, followeeId: op.b });
    else await removeFollower({ ownerId: op.a, followerId: op.b });
  }
  return json(await apiUser(target.id));
}

/** Writes the plain fields: a role change first (it may be refused: the last ADMIN), then the rest in one transaction. */
async function writeProfile(target: UserWithLists, changes: ProfileChanges, picture: PicturePlan): Promise<void> {
  const role = changes.role ?? target.role;
  if (role !== target.role) {
    try {
      await setUserRole({ userId: target.id, role });
    } catch (error) {
      if (error instanceof LastAdminError) throw new ApiError(409, error.message, { errors: { role: error.message } });
      throw error;
    }
  }
  const { url, uploaded } = await applyPicture(picture, target.profile);
  try {
    await updateUserProfile({
      id: target.id,
      name: changes.name ?? target.name,
      username: changes.username ?? target.username,
      role,
      bio: changes.bio ?? target.bio,
      tags: changes.tags ?? target.tags,
      passwordHash: changes.password ? await hashPassword(changes.password) : undefined,
      profile: url !== target.profile ? url : undefined,
    });
  } catch (error) {
    if (role !== target.role) await setUserRole({ userId: target.id, role: target.role }).catch(() => undefined);
    if (uploaded) await deleteImageIfUnreferenced(url);
    if (error instanceof UsernameTakenError) throw usernameTaken();
    throw error;
  }
  if (url !== target.profile) await deleteImageIfUnreferenced(target.profile);
}

// ---------------------------------------------------------------------------------------------
// DELETE /api/users/{id} (ADMIN)

export async function deleteUserAsAdmin({ request, params }: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(request);
  if (!isAdmin(actor)) throw new ApiError(403, ADMIN_ONLY);
  const id = params.id ?? "";
  const user = await getSessionUserById(id);
  if (!user) throw new ApiError(404, NOT_FOUND.user);
  try {
    await deleteUser(id);
  } catch (error) {
    if (error instanceof LastAdminError) throw new ApiError(409, error.message);
    throw error;
  }
  await deleteImageIfUnreferenced(user.profile);
  return json({ deleted: true, _id: id });
}

// ---------------------------------------------------------------------------------------------
// Saves and follows

const SaveSchema = z.object({ recipeId: z.string({ error: "Please say which recipe (recipeId)." }).min(1, "Please say which recipe (recipeId).") });

/** PUT /api/users/{id}/save and /unsave `{recipeId}`: the user themselves only; answers the updated user. */
export async function setSaved(args: ApiArgs, saved: boolean): Promise<Response> {
  const actor = await requireApiUser(args.request);
  if (param(args, "id") !== actor.id) throw new ApiError(403, SELF_ONLY);
  const parsed = SaveSchema.safeParse(await readJsonObject(args.request));
  if (!parsed.success) throw invalid(issuesToErrors(parsed.error));
  if (!(await recipeExists(parsed.data.recipeId))) throw new ApiError(404, NOT_FOUND.recipe);
  await setRecipeSaved({ userId: actor.id, recipeId: parsed.data.recipeId, saved });
  return json(await apiUser(actor.id));
}

/** POST /api/users/follow/{id} and /unfollow/{id}: answers the caller's updated user. */
export async function setFollowing(args: ApiArgs, following: boolean): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const targetId = param(args, "id");
  if (targetId === actor.id) throw new ApiError(400, CANNOT_FOLLOW_SELF);
  if (!(await getSessionUserById(targetId))) throw new ApiError(404, NOT_FOUND.user);
  if (following) await follow({ followerId: actor.id, followeeId: targetId });
  else await unfollow({ followerId: actor.id, followeeId: targetId });
  return json(await apiUser(actor.id));
}
