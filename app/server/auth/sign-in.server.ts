import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";

import { SUSPENDED_MESSAGE } from "~/lib/reports";

import { verifyLogin, type SessionUser } from "../queries/users.server";
import { signInRefusals } from "../observability/metrics.server";
import { beginSignInAttempt, clearSignInFailures, forgetSignInAttempt, LimitReachedError, type SignInSubject } from "./limits.server";
import { FILL_ALL_FIELDS, LoginSchema } from "../validation/auth-schema.server";
import { log } from "../observability/log.server";

export const LOGIN_MESSAGES = {
  invalid: "Invalid username or password. Please try again.",
  unknownUser: "User not found. Please check your username.",
  failed: "Login failed. Please try again later.",
} as const;

/** A refused sign-in: the status and message (docs/rules.md#sign-in) the login page and the API show. */
export class LoginError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 401 | 403 | 404 | 500,
    readonly field?: "username" | "password",
  ) {
    super(message);
    this.name = "LoginError";
  }
}

/** Checks credentials only; sessions, redirects and cookies are ours (session.server.ts). */
export async function checkCredentials(input: { username: unknown; password: unknown }): Promise<SessionUser> {
  const parsed = LoginSchema.safeParse({
    username: typeof input.username === "string" ? input.username : "",
    password: typeof input.password === "string" ? input.password : "",
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path[0] === "password" ? "password" : "username";
    throw new LoginError(issue?.message ?? FILL_ALL_FIELDS, 400, field);
  }
  const result = await verifyLogin(parsed.data);
  if (result.ok) return result.user;
  if (result.reason === "unknown-user") throw new LoginError(LOGIN_MESSAGES.unknownUser, 404, "username");
  if (result.reason === "suspended") throw new LoginError(SUSPENDED_MESSAGE, 403);
  throw new LoginError(LOGIN_MESSAGES.invalid, 401, "password");
}

export const authenticator = new Authenticator<SessionUser>();

authenticator.use(
  new FormStrategy(async ({ form }) =>
    checkCredentials({ username: form.get("username"), password: form.get("password") }),
  ),
  "form",
);

/**
 * Runs the form strategy on a form the action has already read (within its size limit): the
 * strategy reads the body of the request it is given, so it gets a small copy, never the
 * network body a second time. Any failure that is not a LoginError becomes the generic message.
 */
export async function authenticateForm(request: Request, formData: FormData): Promise<SessionUser> {
  const fields = new URLSearchParams();
  for (const [name, value] of formData) if (typeof value === "string") fields.append(name, value);
  const copy = new Request(request.url, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: fields });
  try {
    return await authenticator.authenticate("form", copy);
  } catch (error) {
    if (error instanceof LoginError) throw error;
    log.error({ err: error }, "sign-in failed unexpectedly");
    throw new LoginError(LOGIN_MESSAGES.failed, 500);
  }
}

/** How the sign-in refusals metric names each refusal. */
const REFUSAL_REASONS = { 400: "incomplete", 401: "wrong-password", 403: "suspended", 404: "unknown-user" } as const;

/**
 * Runs a sign-in attempt under the throttle (limits.server.ts): refused at once when the
 * username or address is over its limit, and counted before the password is checked; a wrong
 * password or unknown user stays counted as a failure; a success forgets the username's failures,
 * and a form refused before any check (empty fields) is not counted. Used by the page and the API.
 */
export async function throttledSignIn(subject: SignInSubject, attempt: () => Promise<SessionUser>): Promise<SessionUser> {
  let id: number;
  try {
    id = await beginSignInAttempt(subject);
  } catch (error) {
    if (error instanceof LimitReachedError) signInRefusals.inc({ reason: "throttled" });
    throw error;
  }
  let user: SessionUser;
  try {
    user = await attempt();
  } catch (error) {
    const failed = error instanceof LoginError && (error.status === 401 || error.status === 404);
    if (error instanceof LoginError && error.status !== 500) signInRefusals.inc({ reason: REFUSAL_REASONS[error.status] });
    if (!failed) await forgetSignInAttempt(id);
    throw error;
  }
  await clearSignInFailures(subject);
  return user;
}
