// Block, unblock, mute and unmute (/ReciPals/Account/People/{id}, docs/rules.md#blocking-and-muting),
// posted from a profile and the profile editor's lists as plain forms. A block asks first: with
// JavaScript in a confirm dialog (the form then carries confirm=yes), without it on this page,
// which posts again. The address's contract and the question; what the posts do is
// app/server/pages/people-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";

import { ConfirmStep } from "~/components/confirm";
import { Link } from "~/components/link";
import { blockQuestion } from "~/components/person-actions";
import { personPath } from "~/lib/blocking";
import { loadPeoplePage, peoplePageAction } from "~/server/pages/people-page.server";

export const meta: MetaFunction = () => [{ title: "Block · ReciPals" }];

export const loader = ({ request, params }: LoaderFunctionArgs) => loadPeoplePage(request, params.uid ?? "");

export const action = ({ request, params }: ActionFunctionArgs) => peoplePageAction(request, params.uid ?? "");

export default function BlockQuestionPage() {
  const { userId, username, returnTo } = useLoaderData<typeof loader>();
  return (
    <section className="auth-card" aria-labelledby="block-heading">
      <h1 id="block-heading">Block {username}</h1>
      <ConfirmStep
        action={personPath(userId)}
        intent="block"
        message={blockQuestion(username)}
        label="Block"
        fields={{ returnTo }}
        cancel={
          <Link to={returnTo} className="button button--ghost">
            Cancel
          </Link>
        }
      />
    </section>
  );
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
