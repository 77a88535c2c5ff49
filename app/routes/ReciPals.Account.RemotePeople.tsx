// Follow, block and mute a person on another server, and lift it (/ReciPals/Account/RemotePeople):
// POST only, from the search's result for @name@host and from Following. What a post does is
// app/server/pages/remote-people-page.server.ts.
import type { ActionFunctionArgs } from "@remix-run/node";

import { loadRemotePeoplePage, remotePeoplePageAction } from "~/server/pages/remote-people-page.server";

export type { RemotePeopleActionData } from "~/server/pages/remote-people-page.server";

export const loader = () => loadRemotePeoplePage();

export const action = ({ request }: ActionFunctionArgs) => remotePeoplePageAction(request);

// Never shown: the loader and the action always redirect or answer data.
export default function RemotePeopleRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
