// Follow, unfollow and remove-follower (/ReciPals/Account/Follow/{id}): POST only, from the profile
// and its dialogs. The address's contract; what a post does is app/server/pages/follow-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

import { followPageAction, loadFollowPage } from "~/server/pages/follow-page.server";

export type { FollowActionData, FollowIntent } from "~/server/pages/follow-page.server";

export const loader = ({ params }: LoaderFunctionArgs) => loadFollowPage(params.uid ?? "");

export const action = ({ request, params }: ActionFunctionArgs) => followPageAction(request, params.uid ?? "");

// Never shown: the loader and the action always redirect or answer data. Present so a
// refused page post renders its error inside the app shell.
export default function FollowRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
