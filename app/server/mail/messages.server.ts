import type { Mail } from "./mailer.server";
import { escapeHtml } from "../http/html-text.server";

// What ReciPals writes in mail (docs/rules.md#account-email): a plain-text part and an HTML part
// saying the same, the site's name, and links made from PUBLIC_URL by the caller.

const SITE = "ReciPals";

function mail(to: string, subject: string, paragraphs: string[], link?: { href: string; label: string }): Mail {
  const text = [`${SITE}`, "", ...paragraphs.flatMap((paragraph) => [paragraph, ""]), ...(link ? [`${link.label}: ${link.href}`, ""] : []), `— ${SITE}`].join("\n");
  const html = [
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#2a1a12">`,
    `<p style="font-weight:700;color:#c2410c">${SITE}</p>`,
    ...paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    ...(link ? [`<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>`, `<p style="color:#6b5b52;font-size:0.875em">${escapeHtml(link.href)}</p>`] : []),
    `<p>— ${SITE}</p></body></html>`,
  ].join("");
  return { to, subject: `${subject} · ${SITE}`, text, html };
}

export function confirmEmailMail(to: string, username: string, link: string): Mail {
  return mail(
    to,
    "Confirm your email",
    [`Hello ${username},`, "Please confirm that this is your email address. The link works once, for 60 minutes.", "If you did not ask for this, you can ignore this mail."],
    { href: link, label: "Confirm your email" },
  );
}

export function resetPasswordMail(to: string, username: string, link: string): Mail {
  return mail(
    to,
    "Choose a new password",
    [`Hello ${username},`, "Someone asked to reset the password of your account. The link works once, for 60 minutes.", "If it was not you, ignore this mail: your password stays as it is."],
    { href: link, label: "Choose a new password" },
  );
}

export function passwordChangedMail(to: string, username: string): Mail {
  return mail(to, "Your password was changed", [
    `Hello ${username},`,
    "The password of your account was just changed, and every other session was signed out.",
    "If it was not you, ask for a new password with “Forgot password?” on the sign-in page.",
  ]);
}

export function emailChangedMail(to: string, username: string, newAddress: string): Mail {
  return mail(to, "Your email address was changed", [
    `Hello ${username},`,
    `The email address of your account was changed to ${newAddress}. This address will no longer receive mail from us.`,
    "If it was not you, sign in and change your password.",
  ]);
}
