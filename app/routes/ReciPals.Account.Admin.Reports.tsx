import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";

import { Link } from "~/components/link";
import { paths } from "~/lib/paths";
import { REPORT_REASONS, REPORT_TEXT_MAX, type ReportReason } from "~/lib/reports";
import { adminReportsPageAction, loadAdminReportsPage } from "~/server/pages/admin-reports-page.server";
import type { ReportGroup } from "~/server/services/moderation-service.server";

// The moderation queue (docs/rules.md#reports-and-moderation): open reports grouped by what they
// are about, the most recently reported first; per group Dismiss, Remove content, Suspend user,
// each with an optional reason for the log, which is listed at the foot. What it shows and does is
// app/server/pages/admin-reports-page.server.ts.

export const meta: MetaFunction = () => [{ title: "Reports · Admin · ReciPals" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadAdminReportsPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => adminReportsPageAction(request, context);

const KIND_WORDS = {
  post: "Recipe",
  comment: "Comment",
  user: "Person",
  cook: "“I made this” entry",
  remote_user: "Person on another server",
  remote_post: "Post from another server",
  remote_comment: "Reply from another server",
} as const;
// How the log names what an entry was about, before its summary.
const LOG_WORDS = {
  post: "a recipe: ",
  comment: "a comment: ",
  user: "@",
  cook: "an “I made this” entry: ",
  remote_user: "@",
  remote_post: "a post from another server: ",
  remote_comment: "a reply from another server: ",
} as const;
const ACTION_WORDS = {
  dismiss: "dismissed the reports of",
  remove: "removed",
  suspend: "suspended",
  "block-domain": "blocked the domain",
  unsuspend: "lifted the suspension of",
  "password-reset": "sent a password reset to",
  "password-set": "set a one-time password for",
  "create-admin": "created the admin account",
  promote: "made an admin of",
  demote: "took the admin role from",
} as const;
// An entry names no moderator when it came from the operator's command line (npm run admin) or
// its admin's account was deleted since: both leave moderator_id empty, so the log cannot tell them apart.
const NO_MODERATOR = "Command line or a deleted account";

/** Where the reported thing is read: here, or on its author's server for a person or a post from elsewhere. */
function targetHref(group: ReportGroup): string | null {
  const target = group.target;
  if (!target) return null;
  if (target.remote && target.kind !== "remote_comment") return target.remote.url;
  if (target.kind === "user") return paths.profile(target.id);
  if (!target.recipeId) return null;
  if (target.kind === "comment") return `${paths.recipe(target.recipeId)}#comment-${target.id}`;
  return target.kind === "cook" ? `${paths.recipe(target.recipeId)}#cook-${target.id}` : paths.recipe(target.recipeId);
}

function reasonsText(reasons: ReportGroup["reasons"]): string {
  return (Object.entries(reasons) as [ReportReason, number][]).map(([reason, n]) => `${REPORT_REASONS[reason]} ×${n}`).join(", ");
}

export default function AdminReports() {
  const { groups, log } = useLoaderData<typeof loader>();
  const failed = useActionData<typeof action>();
  return (
    <section className="admin-reports" aria-labelledby="reports-heading">
      <h2 id="reports-heading">Open reports</h2>
      {groups.length === 0 ? <p className="muted">No open reports.</p> : null}
      <ul className="report-groups">
        {groups.map((group) => {
          const key = `${group.kind}:${group.targetId}`;
          const href = targetHref(group);
          const title = group.target ? (group.kind === "user" || group.kind === "remote_user" ? `@${group.target.label}` : group.target.label) : "(already gone)";
          const remote = group.target?.remote;
          return (
            <li key={key} className="report-group">
              <p className="report-group__what">
                <strong>{KIND_WORDS[group.kind]}</strong>{" "}
                {href && remote && group.kind !== "remote_comment" ? (
                  <a href={href} rel="noopener noreferrer nofollow">
                    {title}
                  </a>
                ) : href ? (
                  <Link to={href}>{title}</Link>
                ) : (
                  title
                )}
                {group.target?.ownerName && group.kind !== "user" && group.kind !== "remote_user" ? <span className="muted"> by {group.target.ownerName}</span> : null}
                {group.ownerSuspended ? <span className="muted"> (owner suspended)</span> : null}
              </p>
              <p className="report-group__count">
                {group.count === 1 ? "1 report" : `${group.count} reports`}: {reasonsText(group.reasons)}
              </p>
              <ul className="report-group__reports">
                {group.reports.map((report) => (
                  <li key={report.id}>
                    <span className="muted">
                      {report.reporter ?? "Unknown User"}, {report.created_at.slice(0, 10)}, {REPORT_REASONS[report.reason]}
                    </span>
                    {report.text ? <q>{report.text}</q> : null}
                  </li>
                ))}
              </ul>
              {failed && failed.key === key ? (
                <p className="form-alert" role="alert">
                  {failed.error}
                </p>
              ) : null}
              <Form method="post" className="report-group__actions">
                <input type="hidden" name="kind" value={group.kind} />
                <input type="hidden" name="targetId" value={group.targetId} />
                <label className="field">
                  <span>Why (for the log, optional)</span>
                  <input type="text" name="why" maxLength={REPORT_TEXT_MAX} />
                </label>
                <div className="actions">
                  <button type="submit" name="intent" value="dismiss" className="button button--ghost">
                    Dismiss
                  </button>
                  {group.kind !== "user" && group.kind !== "remote_user" && group.target ? (
                    <button type="submit" name="intent" value="remove" className="button button--ghost button--danger">
                      Remove content
                    </button>
                  ) : null}
                  {group.target?.ownerId && !group.ownerSuspended ? (
                    <button type="submit" name="intent" value="suspend" className="button button--danger">
                      Suspend user
                    </button>
                  ) : null}
                  {remote ? (
                    <button type="submit" name="intent" value="block-domain" className="button button--danger">
                      Block domain {new URL(`https://${remote.host}`).hostname}
                    </button>
                  ) : null}
                </div>
              </Form>
            </li>
          );
        })}
      </ul>
      <h2>Moderation log</h2>
      {log.length === 0 ? <p className="muted">Nothing yet.</p> : null}
      <ol className="moderation-log">
        {log.map((entry) => (
          <li key={entry.id}>
            <time dateTime={entry.created_at}>{entry.created_at.slice(0, 16).replace("T", " ")}</time> {entry.moderator ?? NO_MODERATOR}{" "}
            {ACTION_WORDS[entry.action]}{" "}
            {entry.action === "block-domain" ? "" : LOG_WORDS[entry.target_kind]}
            {/* Empty once the account it was about is deleted: the log keeps none of their words. */}
            {entry.summary || <span className="muted">(a deleted account)</span>}
            {entry.why ? <span className="muted"> — {entry.why}</span> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
