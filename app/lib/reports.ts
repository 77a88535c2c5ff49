import { BASE } from "./paths";

// Reports (docs/rules.md#reports-and-moderation): what pages and the server both need. Kept out of
// paths.ts so pages without a Report link (the recipe page above all) do not download any of it.

export const REPORT_KINDS = ["post", "comment", "user", "cook", "remote_user", "remote_post", "remote_comment"] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
/** What people on other servers are and send (docs/federation.md): an actor, a post on Home, a reply under a recipe. */
export type RemoteReportKind = Extract<ReportKind, `remote_${string}`>;

export function isRemoteKind(kind: ReportKind): kind is RemoteReportKind {
  return kind.startsWith("remote_");
}

export const REPORT_REASONS = { spam: "Spam", harassment: "Harassment", inappropriate: "Inappropriate", other: "Other" } as const;
export type ReportReason = keyof typeof REPORT_REASONS;

/** The admin area's moderation queue. */
export const ADMIN_REPORTS_PATH = `${BASE}/Account/Admin/Reports`;

/** The report form for a post, a comment, a person or an "I made this" entry, here or from another server. */
export function reportPath(kind: ReportKind, id: string): string {
  return `${BASE}/Report?kind=${kind}&id=${encodeURIComponent(id)}`;
}

export const REPORT_TEXT_MAX = 500;
/** Reports one person may send in a day (a day: the last 24 hours). */
export const REPORTS_PER_DAY = 20;

export const REPORT_MESSAGES = {
  thanks: "Thanks — an admin will look at it.",
  reason: "Please choose a reason.",
  tooLong: `Please keep it to ${REPORT_TEXT_MAX} characters.`,
  gone: "That is no longer there.",
  own: "You cannot report yourself or your own posts and comments.",
  twice: "You have already reported this. An admin will look at it.",
  limit: "You have sent many reports today. Please try again tomorrow.",
  handled: "These reports were already handled.",
  resolved: "An admin looked at something you reported. Thanks for helping keep ReciPals kind.",
} as const;

export const SUSPENDED_MESSAGE = "This account is suspended. Please contact an administrator.";
