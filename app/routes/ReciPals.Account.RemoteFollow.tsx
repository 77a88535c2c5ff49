// Follow and unfollow a person on another server (/ReciPals/Account/RemoteFollow): POST only, from
// the search's result for @name@host. What a post does is app/server/pages/remote-follow-page.server.ts.
import type { ActionFunctionArgs } from "@remix-run/node";

import { loadRemoteFollowPage, remoteFollowPageAction } from "~/server/pages/remote-people-page.server";

export type { RemoteFollowActionData } from "~/server/pages/remote-people-page.server";

export const loader = () => loadRemoteFollowPage();

export const action = ({ request }: ActionFunctionArgs) => remoteFollowPageAction(request);

// Never shown: the loader and the action always redirect or answer data.
export default function RemoteFollowRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
