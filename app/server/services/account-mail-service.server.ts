import crypto from "node:crypto";

import { z } from "zod";

import { paths } from "~/lib/paths";

import { hashPassword } from "../auth/password.server";
import { LimitReachedError, takeRateLimited, type RateLimit } from "../auth/limits.server";
import { db, engineOf, writeTransaction, type DB } from "../db/connection.server";
import { log } from "../observability/log.server";
import { MAIL_FAILED_MESSAGE, MailError, mailOrigin, sendMail, type Mail } from "../mail/mailer.server";
import { confirmEmailMail, emailChangedMail, passwordChangedMail, resetPasswordMail } from "../mail/messages.server";
import { writeLog } from "../queries/reports.server";
import { nowIso } from "../queries/seq.server";
import { newPasswordField, PASSWORDS_DONT_MATCH, FILL_ALL_FIELDS } from "../validation/auth-schema.server";
import { done, refusal, type Outcome } from "./outcome-service.server";

// Getting back into an account by email (docs/rules.md#account-email): the address on an account,
// confirmed by a link, and "Forgot password?". Links carry a random token; only its hash is
// stored. A link works once, for 60 minutes, and not after the password changed another way.
// Mail per account and per address is limited; asking for a reset says the same, in the same
// time, whether or not the account exists.

export const ACCOUNT_MAIL_MESSAGES = {
  forgotAnswer: "If that account has a confirmed email, we sent a link to it.",
  loginRequired: "Please enter your username or email.",
  linkInvalid: "This link is no longer valid. Please ask for a new one.",
  emailInvalid: "Please enter a valid email address.",
  emailTaken: "That email address is used by another account.",
  noAddress: "Add an email address first.",
  alreadyConfirmed: "This email address is confirmed already.",
  needsConfirmedAddress: "This account has no confirmed email address.",
  mailFailed: MAIL_FAILED_MESSAGE,
} as const;

export const TOKEN_LIFETIME_MS = 60 * 60 * 1000;
/** Mail with a link, per account and per address, per hour. */
export const MAIL_LIMIT: Omit<RateLimit, "bucket"> = { limit: 3, windowMs: 60 * 60 * 1000 };
/** "Forgot password?" requests from one network address in ten minutes (whatever account they name). */
export const FORGOT_REQUEST_LIMIT: RateLimit = { bucket: "forgot-from", limit: 20, windowMs: 10 * 60 * 1000 };

type Purpose = "verify" | "reset";

/** An address as people type it: trimmed, at most 254 characters, one @ with something on each side. */
const EmailSchema = z
  .string()
  .trim()
  .max(254, ACCOUNT_MAIL_MESSAGES.emailInvalid)
  .regex(/^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:.]+$/, ACCOUNT_MAIL_MESSAGES.emailInvalid);

const hashToken = (token: string) => crypto.createHash("sha256").update(token).digest("base64url");
/** A fingerprint of the password hash: a link made before the password changed no longer works. */
const passwordStamp = (passwordHash: string) => crypto.createHash("sha256").update(passwordHash).digest("base64url").slice(0, 22);

interface AccountRow {
  id: string;
  username: string;
  email: string | null;
  email_confirmed_at: string | null;
  password_hash: string;
  suspended_at: string | null;
}

const accountColumns = ["id", "username", "email", "email_confirmed_at", "password_hash", "suspended_at"] as const;

async function accountById(userId: string, database: DB = db): Promise<AccountRow | undefined> {
  return database.selectFrom("users").select(accountColumns).where("id", "=", userId).executeTakeFirst();
}

/** The account a username or an address names (either without case). */
async function accountByLogin(login: string, database: DB = db): Promise<AccountRow | undefined> {
  const equals = engineOf(database).equalsIgnoringCase;
  const column = login.includes("@") ? "email" : "username";
  return database.selectFrom("users").select(accountColumns).where(equals(column, login)).executeTakeFirst();
}

/** The account's address and whether it is confirmed (for its owner and ADMINs only). */
export async function emailStateOf(userId: string, database: DB = db): Promise<{ email: string | null; emailConfirmed: boolean }> {
  const row = await database.selectFrom("users").select(["email", "email_confirmed_at"]).where("id", "=", userId).executeTakeFirst();
  return { email: row?.email ?? null, emailConfirmed: Boolean(row?.email && row.email_confirmed_at) };
}

/** Whether another account holds `email` (compared without case). */
export async function isEmailTaken(email: string, exceptUserId: string | null = null, database: DB = db): Promise<boolean> {
  let query = database.selectFrom("users").select("id").where(engineOf(database).equalsIgnoringCase("email", email));
  if (exceptUserId) query = query.where("id", "<>", exceptUserId);
  return (await query.executeTakeFirst()) !== undefined;
}

/**
 * Makes a link for `account` and mails it: counted against the account's and the address's
 * mail limits first; the token is stored (as a hash) before the mail goes and removed again when
 * it could not be sent, so nothing half-done stays.
 */
async function mailLink(account: AccountRow, purpose: Purpose, email: string, database: DB = db): Promise<Outcome> {
  const origin = mailOrigin();
  if (!origin) return refusal(503, ACCOUNT_MAIL_MESSAGES.mailFailed);
  try {
    await takeRateLimited({ bucket: `mail-account`, ...MAIL_LIMIT }, account.id, database);
    await takeRateLimited({ bucket: `mail-address`, ...MAIL_LIMIT }, email.toLowerCase(), database);
  } catch (error) {
    if (error instanceof LimitReachedError) return refusal(429, error.message);
    throw error;
  }
  const token = crypto.randomBytes(32).toString("base64url");
  const tokenHash = hashToken(token);
  const now = Date.now();
  await writeTransaction(database, async (trx) => {
    // Only the newest link of a kind works.
    await trx.deleteFrom("account_tokens").where("user_id", "=", account.id).where("purpose", "=", purpose).execute();
    await trx
      .insertInto("account_tokens")
      .values({ token_hash: tokenHash, user_id: account.id, purpose, email, password_stamp: passwordStamp(account.password_hash), created_at: now, expires_at: now + TOKEN_LIFETIME_MS, used_at: null })
      .execute();
  });
  const link = `${origin}${purpose === "verify" ? paths.verifyEmail(token) : paths.resetPassword(token)}`;
  const message: Mail = purpose === "verify" ? confirmEmailMail(email, account.username, link) : resetPasswordMail(email, account.username, link);
  try {
    await sendMail(message);
  } catch (error) {
    await database.deleteFrom("account_tokens").where("token_hash", "=", tokenHash).execute();
    if (error instanceof MailError) {
      log.error({ err: error.cause ?? error, purpose }, "mail not sent");
      return refusal(503, ACCOUNT_MAIL_MESSAGES.mailFailed);
    }
    throw error;
  }
  return done();
}

/** A mail that says something happened (no link): sent when possible, never holding anything up. */
function tell(message: Mail): void {
  sendMail(message).catch((error: unknown) => log.error({ err: (error as Error).cause ?? error }, "mail not sent"));
}

// ---------------------------------------------------------------------------------------------
// Forgot password

/**
 * "Forgot password?": for an account with a confirmed address (named by username or address),
 * a link to choose a new password. The answer is the same whether or not there is one, and it
 * does not wait for the mail (which would tell the two apart by time); a mail that cannot be
 * sent voids its link and is logged.
 */
export async function requestPasswordReset({ login, from }: { login: unknown; from: string | null }, database: DB = db): Promise<Outcome<{ message: string }>> {
  const parsed = z.string().trim().min(1).max(254).safeParse(login);
  if (!parsed.success) return refusal(400, ACCOUNT_MAIL_MESSAGES.loginRequired, { errors: { login: ACCOUNT_MAIL_MESSAGES.loginRequired } });
  if (from) {
    try {
      await takeRateLimited(FORGOT_REQUEST_LIMIT, from, database);
    } catch (error) {
      if (error instanceof LimitReachedError) return refusal(429, error.message);
      throw error;
    }
  }
  void (async () => {
    const account = await accountByLogin(parsed.data, database);
    if (!account?.email || !account.email_confirmed_at || account.suspended_at) return;
    await mailLink(account, "reset", account.email, database);
  })().catch((error: unknown) => log.error({ err: error }, "password reset mail failed"));
  return done({ message: ACCOUNT_MAIL_MESSAGES.forgotAnswer });
}

/** Whether `token` opens "Choose a new password" now (for the page, before anything is typed). */
export async function resetTokenIsUsable(token: string, database: DB = db): Promise<boolean> {
  return (await usableToken(token, "reset", database)) !== null;
}

async function usableToken(token: string, purpose: Purpose, database: DB = db): Promise<{ row: { user_id: string; email: string }; account: AccountRow } | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const row = await database
    .selectFrom("account_tokens")
    .select(["user_id", "email", "password_stamp", "expires_at", "used_at", "purpose"])
    .where("token_hash", "=", hashToken(token))
    .executeTakeFirst();
  if (!row || row.purpose !== purpose || row.used_at !== null || Number(row.expires_at) <= Date.now()) return null;
  const account = await accountById(row.user_id, database);
  if (!account || account.suspended_at || passwordStamp(account.password_hash) !== row.password_stamp) return null;
  return { row, account };
}

const NewPasswordSchema = z
  .object({ password: newPasswordField, verifyPassword: z.string().min(1, FILL_ALL_FIELDS) })
  .refine((value) => value.password === value.verifyPassword, { message: PASSWORDS_DONT_MATCH, path: ["verifyPassword"] });

/**
 * "Choose a new password": sets it, uses the link up, ends every session of the account (the
 * caller then signs this browser in) and says so by mail.
 */
export async function resetPassword({ token, password, verifyPassword }: { token: string; password: unknown; verifyPassword: unknown }, database: DB = db): Promise<Outcome<{ userId: string }>> {
  const parsed = NewPasswordSchema.safeParse({ password, verifyPassword });
  if (!parsed.success) {
    const errors: Record<string, string> = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "password")] ??= issue.message;
    return refusal(400, Object.values(errors)[0] ?? FILL_ALL_FIELDS, { errors });
  }
  const usable = await usableToken(token, "reset", database);
  if (!usable) return refusal(400, ACCOUNT_MAIL_MESSAGES.linkInvalid);
  const passwordHash = await hashPassword(parsed.data.password);
  const changed = await writeTransaction(database, async (trx) => {
    // Used once: the update counts only for the first of two saves arriving together.
    const used = await trx.updateTable("account_tokens").set({ used_at: Date.now() }).where("token_hash", "=", hashToken(token)).where("used_at", "is", null).executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) return false;
    await trx.updateTable("users").set({ password_hash: passwordHash }).where("id", "=", usable.account.id).execute();
    await trx.deleteFrom("account_tokens").where("user_id", "=", usable.account.id).where("purpose", "=", "reset").where("used_at", "is", null).execute();
    await trx.deleteFrom("sessions").where("user_id", "=", usable.account.id).execute();
    return true;
  });
  if (!changed) return refusal(400, ACCOUNT_MAIL_MESSAGES.linkInvalid);
  if (usable.account.email) tell(passwordChangedMail(usable.account.email, usable.account.username));
  return done({ userId: usable.account.id });
}

// ---------------------------------------------------------------------------------------------
// The address on the account

/** Mails a link confirming the account's (unconfirmed) address: "Send again", and after a sign-up or a change. */
export async function sendEmailConfirmation(userId: string, database: DB = db): Promise<Outcome> {
  const account = await accountById(userId, database);
  if (!account?.email) return refusal(400, ACCOUNT_MAIL_MESSAGES.noAddress);
  if (account.email_confirmed_at) return refusal(409, ACCOUNT_MAIL_MESSAGES.alreadyConfirmed);
  return mailLink(account, "verify", account.email, database);
}

/** Whether `token` confirms an address now, and which (for the page that asks to confirm it). */
export async function verifyTokenAddress(token: string, database: DB = db): Promise<string | null> {
  const usable = await usableToken(token, "verify", database);
  if (!usable || !sameAddress(usable.account.email, usable.row.email)) return null;
  return usable.row.email;
}

const sameAddress = (a: string | null, b: string | null) => a !== null && b !== null && a.toLowerCase() === b.toLowerCase();

/** Confirms the address the link was sent to, while it is still the account's. */
export async function confirmEmail(token: string, database: DB = db): Promise<Outcome<{ userId: string }>> {
  const usable = await usableToken(token, "verify", database);
  if (!usable || !sameAddress(usable.account.email, usable.row.email)) return refusal(400, ACCOUNT_MAIL_MESSAGES.linkInvalid);
  const confirmed = await writeTransaction(database, async (trx) => {
    const used = await trx.updateTable("account_tokens").set({ used_at: Date.now() }).where("token_hash", "=", hashToken(token)).where("used_at", "is", null).executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) return false;
    await trx.updateTable("users").set({ email_confirmed_at: nowIso() }).where("id", "=", usable.account.id).execute();
    return true;
  });
  return confirmed ? done({ userId: usable.account.id }) : refusal(400, ACCOUNT_MAIL_MESSAGES.linkInvalid);
}

const EMAIL_TAKEN = refusal(409, ACCOUNT_MAIL_MESSAGES.emailTaken, { errors: { email: ACCOUNT_MAIL_MESSAGES.emailTaken } });

/**
 * An address as typed for an account (sign-up, profile, API): the one to store, null for none
 * ("" or nothing typed), or why not (malformed 400, another account's 409). Writes nothing.
 */
export async function checkNewEmail(email: unknown, exceptUserId: string | null, database: DB = db): Promise<Outcome<string | null>> {
  if (email !== undefined && email !== null && typeof email !== "string") return refusal(400, ACCOUNT_MAIL_MESSAGES.emailInvalid, { errors: { email: ACCOUNT_MAIL_MESSAGES.emailInvalid } });
  const raw = (email ?? "").trim();
  if (raw === "") return done(null);
  const parsed = EmailSchema.safeParse(raw);
  if (!parsed.success) return refusal(400, ACCOUNT_MAIL_MESSAGES.emailInvalid, { errors: { email: ACCOUNT_MAIL_MESSAGES.emailInvalid } });
  if (await isEmailTaken(parsed.data, exceptUserId, database)) return EMAIL_TAKEN;
  return done(parsed.data);
}

/**
 * Sets (or clears, with "") the account's address, unconfirmed; a new address gets its link and
 * the old one is told. The caller has checked the current password.
 */
export async function changeEmail({ userId, email }: { userId: string; email: unknown }, database: DB = db): Promise<Outcome<{ email: string | null; mailed: boolean; mailError: string | null }>> {
  const checked = await checkNewEmail(email, userId, database);
  if (!checked.ok) return checked;
  const next = checked.value;
  const account = await accountById(userId, database);
  if (!account) return refusal(404, "User not found.");
  if (sameAddress(account.email, next) || (account.email === null && next === null)) return done({ email: account.email, mailed: false, mailError: null });
  try {
    await writeTransaction(database, async (trx) => {
      await trx.updateTable("users").set({ email: next, email_confirmed_at: null }).where("id", "=", userId).execute();
      await trx.deleteFrom("account_tokens").where("user_id", "=", userId).execute();
    });
  } catch (error) {
    // Two accounts taking one address at once: the unique index keeps one.
    if (next && (await isEmailTaken(next, userId, database))) return EMAIL_TAKEN;
    throw error;
  }
  if (account.email && account.email_confirmed_at) tell(emailChangedMail(account.email, account.username, next ?? "(none)"));
  if (!next) return done({ email: null, mailed: false, mailError: null });
  const sent = await mailLink({ ...account, email: next, email_confirmed_at: null }, "verify", next, database);
  return done({ email: next, mailed: sent.ok, mailError: sent.ok ? null : sent.message });
}

/**
 * An admin's "Send password reset" (the account needs a confirmed address), written to the
 * moderation log once the mail went.
 */
export async function sendPasswordResetFor(userId: string, moderatorId: string | null = null, database: DB = db): Promise<Outcome<{ email: string }>> {
  const account = await accountById(userId, database);
  if (!account) return refusal(404, "User not found.");
  if (!account.email || !account.email_confirmed_at) return refusal(409, ACCOUNT_MAIL_MESSAGES.needsConfirmedAddress);
  const sent = await mailLink(account, "reset", account.email, database);
  if (!sent.ok) return sent;
  if (moderatorId) {
    await writeLog({ moderatorId, action: "password-reset", kind: "user", targetId: account.id, targetUserId: account.id, summary: account.username, why: "" }, database);
  }
  return done({ email: account.email });
}
