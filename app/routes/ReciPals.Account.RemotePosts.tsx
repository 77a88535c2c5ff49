// Like, unlike and reply to a post from another server (/ReciPals/Account/RemotePosts): POST only,
// from its card on Home. What a post does is app/server/pages/remote-people-page.server.ts.
import type { ActionFunctionArgs } from "@remix-run/node";

import { loadRemotePostsPage, remotePostsPageAction } from "~/server/pages/remote-people-page.server";

export type { RemotePostsActionData } from "~/server/pages/remote-people-page.server";

export const loader = () => loadRemotePostsPage();

export const action = ({ request }: ActionFunctionArgs) => remotePostsPageAction(request);

// Never shown: the loader and the action always redirect or answer data.
export default function RemotePostsRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
