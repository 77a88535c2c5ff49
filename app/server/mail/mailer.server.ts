import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

import nodemailer, { type Transporter } from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";

import { dataDir, env } from "../env.server";

import { log } from "../observability/log.server";
import { mailMessages } from "../observability/metrics.server";
// Outgoing mail (docs/rules.md#account-email). Over SMTP when SMTP_URL is set; otherwise written
// to `outbox/` beside the database as .eml files, one line in the log per mail, so a newcomer
// running `npm start` can open every link. Links in mail are made from PUBLIC_URL only, never from
// a request's Host (a forged Host must not put someone else's address in a reset link).

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The mail could not be handed over (refused, timed out, no PUBLIC_URL for its links). */
export class MailError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MailError";
  }
}

export const MAIL_FAILED_MESSAGE = "We could not send the mail; try again later.";

/** Where links in mail point: PUBLIC_URL, or nothing (no mail with links is sent then). */
export function mailOrigin(): string | null {
  return env.PUBLIC_URL ?? null;
}

/** "ReciPals <no-reply@recipes.example>", or MAIL_FROM. */
export function mailFrom(): string {
  if (env.MAIL_FROM) return env.MAIL_FROM;
  const host = env.PUBLIC_URL ? new URL(env.PUBLIC_URL).hostname : "localhost";
  return `ReciPals <no-reply@${host}>`;
}

export function outboxDir(): string {
  return path.join(dataDir(), "outbox");
}

let transport: { url: string | undefined; transporter: Transporter } | null = null;

function transporter(): Transporter {
  const key = `${env.SMTP_URL} ${env.SMTP_TIMEOUT_SECONDS}`;
  if (transport && transport.url === key) return transport.transporter;
  // How long the SMTP server may take at each step before the mail counts as not sent.
  const timeout = env.SMTP_TIMEOUT_SECONDS * 1000;
  const made = env.SMTP_URL
    ? nodemailer.createTransport({ url: env.SMTP_URL, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout } as SMTPTransport.Options)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  transport = { url: key, transporter: made };
  return made;
}

let warned = false;

/** Says once, at start, that mail with links cannot be sent (production without PUBLIC_URL). */
export function warnWithoutPublicUrl(warn: (line: string) => void = (line) => log.warn(line)): void {
  if (warned || env.PUBLIC_URL || env.NODE_ENV !== "production") return;
  warned = true;
  warn("ReciPals: PUBLIC_URL is not set, so no mail with links (email confirmation, password reset) will be sent.");
}

/** Sends `mail`, or throws MailError. Without SMTP_URL the mail goes to the outbox folder. */
export async function sendMail(mail: Mail): Promise<void> {
  const message = { from: mailFrom(), to: mail.to, subject: mail.subject, text: mail.text, html: mail.html };
  try {
    const info = await transporter().sendMail(message);
    if (!env.SMTP_URL) {
      const dir = outboxDir();
      await fs.mkdir(dir, { recursive: true });
      const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${crypto.randomBytes(4).toString("hex")}.eml`);
      await fs.writeFile(file, (info as unknown as { message: Buffer }).message);
      log.info({ file }, "mail written to the outbox");
    }
    mailMessages.inc({ result: "sent" });
  } catch (error) {
    mailMessages.inc({ result: "failed" });
    throw new MailError(MAIL_FAILED_MESSAGE, { cause: error });
  }
}
