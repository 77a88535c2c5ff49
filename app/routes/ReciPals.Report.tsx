import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";

import { Link } from "~/components/link";
import { paths } from "~/lib/paths";
import { REPORT_MESSAGES, REPORT_REASONS, REPORT_TEXT_MAX, type ReportKind } from "~/lib/reports";
import { loadReportPage, reportPageAction } from "~/server/pages/report-page.server";

// Reporting a post, a comment, a person or an "I made this" entry (docs/rules.md#reports-and-moderation): a plain page with
// a form, the same with and without JavaScript. /ReciPals/Report?kind=post|comment|user|cook|remote_user|remote_post|remote_comment&id=…
// What it shows and what its post does is app/server/pages/report-page.server.ts.

export const meta: MetaFunction = () => [{ title: "Report · ReciPals" }];

const WHAT: Record<ReportKind, string> = {
  post: "Report a recipe",
  comment: "Report a comment",
  user: "Report a person",
  cook: "Report an “I made this” entry",
  remote_user: "Report a person on another server",
  remote_post: "Report a post from another server",
  remote_comment: "Report a reply from another server",
};

export const loader = ({ request }: LoaderFunctionArgs) => loadReportPage(request);

export const action = ({ request }: ActionFunctionArgs) => reportPageAction(request);

/** Where "Back" goes: the recipe (a post, a comment or an entry on it), the person's profile, or Home (a post from elsewhere). */
function backHref(kind: ReportKind, id: string, recipeId: string | null): string {
  if (kind === "user") return paths.profile(id);
  if (kind === "remote_user") return paths.home();
  if (!recipeId) return paths.home();
  return kind === "comment" ? `${paths.recipe(recipeId)}#comment-${id}` : kind === "cook" ? `${paths.recipe(recipeId)}#cook-${id}` : paths.recipe(recipeId);
}

export default function ReportPage() {
  const { kind, id, label, owner, recipeId } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const back = backHref(kind, id, recipeId);
  if (answer?.sent) {
    return (
      <section className="auth-card" aria-labelledby="report-heading">
        <h1 id="report-heading">{WHAT[kind]}</h1>
        <p role="status">{REPORT_MESSAGES.thanks}</p>
        <Link to={back} className="button button--ghost">
          Back
        </Link>
      </section>
    );
  }
  const failed = answer && !answer.sent ? answer : undefined;
  return (
    <section className="auth-card auth-card--wide" aria-labelledby="report-heading">
      <h1 id="report-heading">{WHAT[kind]}</h1>
      <blockquote className="report__target">
        {kind === "user" || kind === "remote_user" ? `@${label}` : label}
        {kind !== "user" && kind !== "remote_user" && owner ? <footer>by {owner}</footer> : null}
      </blockquote>
      {failed ? (
        <p className="form-alert" role="alert">
          {failed.message}
        </p>
      ) : null}
      <Form method="post" className="stack">
        <fieldset className="field">
          <legend>Reason</legend>
          {Object.entries(REPORT_REASONS).map(([value, text]) => (
            <label key={value} className="radio">
              <input type="radio" name="reason" value={value} defaultChecked={failed?.fields.reason === value} required /> {text}
            </label>
          ))}
          {failed?.errors.reason ? <p className="field__error">{failed.errors.reason}</p> : null}
        </fieldset>
        <div className="field">
          <label htmlFor="report-text">What happened (optional)</label>
          <textarea id="report-text" name="text" rows={4} maxLength={REPORT_TEXT_MAX} defaultValue={failed?.fields.text ?? ""} />
          <p className={failed?.errors.text ? "field__error" : "field__hint"}>{failed?.errors.text ?? `At most ${REPORT_TEXT_MAX} characters.`}</p>
        </div>
        <div className="actions">
          <Link to={back} className="button button--ghost">
            Cancel
          </Link>
          <button type="submit" className="button">
            Send report
          </button>
        </div>
      </Form>
    </section>
  );
}
