// Like and unlike a post from another server (/ReciPals/Account/RemoteLike): POST only, from its
// card on Home. What a post does is app/server/pages/remote-people-page.server.ts.
import type { ActionFunctionArgs } from "@remix-run/node";

import { loadRemoteLikePage, remoteLikePageAction } from "~/server/pages/remote-people-page.server";

export type { RemoteLikeActionData } from "~/server/pages/remote-people-page.server";

export const loader = () => loadRemoteLikePage();

export const action = ({ request }: ActionFunctionArgs) => remoteLikePageAction(request);

// Never shown: the loader and the action always redirect or answer data.
export default function RemoteLikeRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
