// Short notes a page shows after a redirect (`?notice=code`): a code, never free text, so a
// crafted link cannot put arbitrary words on the page. Kept free of imports: the layout of every
// page loads this module.

export const NOTICES = {
  "tags-cut": "Only the first three tags were kept.",
  "shopping-added": "Added to your shopping list.",
  "password-changed": "Your password was changed. Every other session was signed out.",
  "email-confirmed": "Your email address is confirmed.",
  "reset-sent": "A link to choose a new password was sent to the account's email address.",
  "email-sent": "We sent a link to confirm your email address.",
  "email-not-sent": "Your email address was saved, but we could not send the mail; try again later.",
} as const;

export type NoticeCode = keyof typeof NOTICES;

/** Notices their control shows beside itself, where the reader is; the page's banner leaves them out. */
const SHOWN_IN_PLACE: ReadonlySet<string> = new Set<NoticeCode>(["shopping-added"]);

/** `path` with a notice to show once it opens. */
export function withNotice(path: string, code: NoticeCode): string {
  return `${path}${path.includes("?") ? "&" : "?"}notice=${code}`;
}

/** The banner's text for `?notice=code`: none for an unknown code or one shown in place. */
export function noticeText(code: string | null): string | null {
  return code !== null && Object.hasOwn(NOTICES, code) && !SHOWN_IN_PLACE.has(code) ? NOTICES[code as NoticeCode] : null;
}
