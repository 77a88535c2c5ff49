import { z } from "zod";

import { DEFAULT_PROFILE_IMAGE } from "~/lib/paths";
import { canActFor, isAdmin } from "~/lib/permissions";

import { checkCredentials, LoginError, throttledSignIn } from "../auth/sign-in.server";
import { CacheScope } from "../cache/scopes.server";
import { searchUsers } from "../queries/search.server";
import { readUsersWithLists, type SessionUser } from "../queries/users.server";
import { readLens } from "../queries/visibility.server";
import { removeFollower, setFollowing as setFollowingService } from "../services/follows-service.server";
import { INTERACTION_MESSAGES, setSaved as setSavedService } from "../services/interactions-service.server";
import { changeEmail, checkNewEmail, emailStateOf } from "../services/account-mail-service.server";
import { addPlaceholderUser, checkEmailChange, createAccount, deleteUser, updateProfile, USER_MESSAGES } from "../services/users-service.server";
import { endSession, getLens, SIGNED_OUT_HEADERS, startSession } from "../auth/session.server";
import { scopeSharedCache } from "../cache/shared-cache.server";
import { clientAddress } from "../http/ip.server";
import { LimitReachedError } from "../auth/limits.server";
import { NOT_ALLOWED } from "../validation/profile-schema.server";
import { apiUser, apiUsersByIds, jsonList, NOT_FOUND, parseListWindow, streamUsers, type ApiUser } from "./entities-api.server";
import { ApiError, invalid, json, param, readJsonObject, requireApiUser, type ApiArgs } from "../http/api.server";
import { unwrap } from "./outcome-api.server";
import type { PicturePlan } from "../media/pictures.server";
import { planPicture } from "./pictures-api.server";
import { issuesToErrors, withoutNulls } from "./validation-api.server";

// /api/users (docs/rules.md#users-calls), on the same rules and query modules as the pages.
// PUT /api/users/{id} merges the sent object into the stored user field by field
// (docs/rules.md#whole-object-put-merge-rules). Lists are never written as lists: a stale copy
// must never undo someone's follow or post, so on someone else's user a non-admin may change only
// their own place. A request with any refused part is refused whole (403, `refused` names the
// parts) and changes nothing; the original client's follow, unfollow and remove-follower calls
// each change only the caller's own relations, so they pass.

const HASH_FIELD = "The password hash cannot be sent; send `password` to set a new password.";
const ID_FIXED = "The _id in the body does not match the URL; ids cannot be changed.";
const OWN_RELATIONS_ONLY = "You may only follow or unfollow as yourself, or stop someone following you.";
const NO_ADDED_FOLLOWERS = "Followers cannot be added; people follow you themselves.";


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
    if (error instanceof LimitReachedError) {
      throw new ApiError(429, error.message, {}, { "Retry-After": String(error.retryAfterSeconds) });
    }
    if (error instanceof LoginError) {
      throw new ApiError(error.status, error.message, error.status === 400 && error.field ? { errors: { [error.field]: error.message } } : {});
    }
    throw error;
  }
  return json(await ownApiUser(user), { headers: { "Set-Cookie": await startSession(request, user.id) } });
}

/** The caller's own user as they see it: their lists without the people hidden from them. */
async function ownApiUser(user: SessionUser): Promise<ApiUser> {
  return apiUser(user.id, await readLens(user.id, { admin: user.role === "ADMIN" }));
}

/** POST /api/users/signout: ends the session (if any). */
export async function signOut({ request }: ApiArgs): Promise<Response> {
  return json({ signedOut: true }, { headers: { ...SIGNED_OUT_HEADERS, "Set-Cookie": await endSession(request) } });
}

/** GET or POST /api/users/profile: the session user, or 401 (never `{}`). */
export async function profile({ request }: ApiArgs): Promise<Response> {
  const user = await requireApiUser(request);
  // With the account's address and whether it is confirmed (docs/rules.md#account-email): the caller's own.
  return json({ ...(await ownApiUser(user)), ...(await emailStateOf(user.id)) });
}

/** POST /api/users/signup: creates a USER and signs them in (201). */
export async function signUp({ request, context }: ApiArgs): Promise<Response> {
  const body = withoutNulls(await readJsonObject(request));
  // An optional address (docs/rules.md#account-email), checked before the account is made.
  const email = unwrap(await checkNewEmail(body.email, null));
  // The picture is decoded only once the rest is known to be valid and the sign-up counted.
  const picture = () => planOptionalPicture(body.profile, { current: null, fallback: DEFAULT_PROFILE_IMAGE, field: "profile" });
  const created = unwrap(
    await createAccount(
      { name: body.name, username: body.username, password: body.password, bio: body.bio, tags: body.tags, role: body.role, picture },
      null,
      { signupFrom: clientAddress(context) },
    ),
  );
  if (email) await changeEmail({ userId: created.id, email });
  return json(await apiUser(created.id), { status: 201, headers: { "Set-Cookie": await startSession(request, created.id) } });
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
export async function listUsers({ request, context }: ApiArgs): Promise<Response> {
  const url = new URL(request.url);
  const window = parseListWindow(url);
  const name = url.searchParams.get("name");
  if (name !== null && name.trim() !== "") {
    const lens = await getLens(request);
    const cards = await searchUsers({ q: name.slice(0, 200), without: lens.hidden });
    const users = await apiUsersByIds(cards.map((card) => card.id), lens);
    scopeSharedCache(context, [CacheScope.people, ...users.flatMap(userScopes)]);
    return jsonList(users, window);
  }
  // Everyone, with every list: names no scope, so any write drops it.
  return streamUsers(window, await getLens(request));
}

/**
 * The page-cache scopes of a user as the API shows them: their own (lists and profile), and
 * each saved recipe's (deleting a recipe takes it out of its savers' lists).
 */
function userScopes(user: ApiUser): string[] {
  return [CacheScope.user(user._id), ...user.saved_recipes.map((recipeId) => CacheScope.recipe(recipeId))];
}

/** GET /api/users/{id}. */
export async function getUserById(args: ApiArgs): Promise<Response> {
  const user = await apiUser(param(args, "id"), await getLens(args.request));
  scopeSharedCache(args.context, userScopes(user));
  return json(user);
}

// ---------------------------------------------------------------------------------------------
// POST /api/users (ADMIN): create a user

/**
 * Creates a user as an ADMIN (201). With `name` and `username` it creates that user (a random
 * password when none is sent; it is never shown); `{}` makes the placeholder User{n+1}/user{n+1}.
 */
export async function createUserAsAdmin({ request }: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(request);
  if (!isAdmin(actor)) throw new ApiError(403, USER_MESSAGES.adminOnly);
  const body = withoutNulls(await readJsonObject(request));
  // An empty object asks for the placeholder User{n+1}, as the admin page's Add User does; a body
  // with anything in it must name the user (a stray or malformed object creates nobody).
  if (Object.keys(body).length === 0) return json(await apiUser(unwrap(await addPlaceholderUser({ actor })).id), { status: 201 });
  const picture = await planOptionalPicture(body.profile, { current: null, fallback: DEFAULT_PROFILE_IMAGE, field: "profile" });
  const created = unwrap(
    await createAccount({ name: body.name, username: body.username, password: body.password, role: body.role, bio: body.bio, tags: body.tags, picture }, actor),
  );
  return json(await apiUser(created.id), { status: 201 });
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
  // Asked of someone changing their own password (docs/rules.md#passwords) or address.
  currentPassword: z.string().max(1000).optional(),
  // The account's email address (docs/rules.md#account-email); "" removes it.
  email: z.string().max(1000).optional(),
});

/** User fields, as opposed to `_id`, `__v`, the admin secret, the current password and fields we do not know. */
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

/**
 * What a PUT's `followers`, `following`, `posts` and `saved_recipes` ask for: only ever changes of
 * the caller's own follows (see the comment at the top), as follow operations, and the parts that
 * ask for anything else.
 */
function relationChangesOf(
  actor: SessionUser,
  target: Awaited<ReturnType<typeof readUsersWithLists>>[number],
  body: z.infer<typeof UserPutSchema>,
  followersOnly: boolean,
): { ops: FollowOp[]; refused: Map<string, string> } {
  const ops: FollowOp[] = [];
  const refused = new Map<string, string>();
  const self = actor.id === target.id;
  const admin = isAdmin(actor);
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
  return { ops, refused };
}

export async function updateUser({ request, params, context }: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(request);
  const targetId = params.id ?? "";
  const lens = await getLens(request);
  const [stored] = await readUsersWithLists({ ids: [targetId], without: lens.hidden });
  if (!stored) throw new ApiError(404, NOT_FOUND.user);
  // The lists as the caller sees them (read without the people hidden from them): those are neither sent back nor taken away.
  const target = stored;

  const raw = withoutNulls(await readJsonObject(request));
  if ("password_hash" in raw || "passwordHash" in raw) throw invalid({ password: HASH_FIELD });
  const shape = UserPutSchema.safeParse(raw);
  if (!shape.success) throw invalid(issuesToErrors(shape.error));
  const body = shape.data;
  if (body._id !== undefined && body._id !== targetId) throw invalid({ _id: ID_FIXED });

  const sentFields = USER_FIELDS.filter((field) => body[field] !== undefined);
  const followersOnly = sentFields.length === 1 && sentFields[0] === "followers";
  const refused = new Map<string, string>();

  // The person's own fields: what differs from the stored user goes to the profile service,
  // which checks, writes and decides about roles (once, for the profile page too).
  const pictureChanged = body.profile !== undefined && body.profile !== target.profile;
  const plainChanged =
    (body.name !== undefined && body.name !== target.name) ||
    (body.username !== undefined && body.username !== target.username) ||
    (body.bio !== undefined && body.bio !== target.bio) ||
    (body.tags !== undefined && !sameList(body.tags, target.tags)) ||
    (body.role !== undefined && body.role !== target.role) ||
    (body.password !== undefined && body.password !== "") ||
    pictureChanged;
  if (plainChanged && !canActFor(actor, target.id)) refused.set("profile", NOT_ALLOWED);

  const relations = relationChangesOf(actor, target, body, followersOnly);
  for (const [part, message] of relations.refused) refused.set(part, message);
  const ops = relations.ops;
  // A new address: checked before anything is written; one's own needs the current password.
  const emailChange = await checkEmailChange({ actor, userId: target.id, email: body.email, currentPassword: body.currentPassword, address: clientAddress(context) });
  if (!emailChange.ok && emailChange.refused) for (const part of emailChange.refused) refused.set(part, emailChange.message);
  if (refused.size > 0) throw new ApiError(403, [...refused.values()][0]!, { refused: [...refused.keys()] });
  const newEmail = unwrap(emailChange);

  let renewed: string | null = null;
  if (plainChanged) {
    const picture = pictureChanged
      ? await planPicture(body.profile!, { current: target.profile, fallback: DEFAULT_PROFILE_IMAGE, field: "profile", uploader: actor.id })
      : ({ kind: "keep" } as const);
    const updated = unwrap(
      await updateProfile({
        actor,
        userId: target.id,
        changes: {
          name: body.name,
          username: body.username,
          bio: body.bio,
          tags: body.tags,
          role: body.role,
          password: body.password,
          currentPassword: body.currentPassword,
        },
        picture,
        adminSecret: body.adminPassword ?? "",
        address: clientAddress(context),
      }),
    );
    // A new password ended every session of the account: whoever changed their own gets a fresh one.
    if (updated.passwordChanged && actor.id === target.id) renewed = await startSession(request, actor.id);
  }
  for (const op of ops) {
    if (op.kind === "remove") unwrap(await removeFollower({ actor, ownerId: op.a, followerId: op.b }));
    else unwrap(await setFollowingService({ actor, targetId: op.b, following: op.kind === "follow" }));
  }
  if (newEmail.changing) unwrap(await changeEmail({ userId: target.id, email: newEmail.email ?? "" }));
  return json(await apiUser(target.id, lens), renewed ? { headers: { "Set-Cookie": renewed } } : {});
}

// ---------------------------------------------------------------------------------------------
// DELETE /api/users/{id} (ADMIN)

export async function deleteUserAsAdmin({ request, params }: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(request);
  const id = params.id ?? "";
  unwrap(await deleteUser({ actor, userId: id }));
  return json({ deleted: true, _id: id });
}

// ---------------------------------------------------------------------------------------------
// Saves and follows

const SaveSchema = z.object({ recipeId: z.string({ error: "Please say which recipe (recipeId)." }).min(1, "Please say which recipe (recipeId).") });

/** PUT /api/users/{id}/save and /unsave `{recipeId}`: the user themselves only; answers the updated user. */
export async function setSaved(args: ApiArgs, saved: boolean): Promise<Response> {
  const actor = await requireApiUser(args.request);
  const userId = param(args, "id");
  if (userId !== actor.id) throw new ApiError(403, INTERACTION_MESSAGES.ownSavesOnly);
  const parsed = SaveSchema.safeParse(await readJsonObject(args.request));
  if (!parsed.success) throw invalid(issuesToErrors(parsed.error));
  unwrap(await setSavedService({ actor, userId, recipeId: parsed.data.recipeId, saved }));
  return json(await ownApiUser(actor));
}

/** POST /api/users/follow/{id} and /unfollow/{id}: answers the caller's updated user. */
export async function setFollowing(args: ApiArgs, following: boolean): Promise<Response> {
  const actor = await requireApiUser(args.request);
  unwrap(await setFollowingService({ actor, targetId: param(args, "id"), following }));
  return json(await ownApiUser(actor));
}
