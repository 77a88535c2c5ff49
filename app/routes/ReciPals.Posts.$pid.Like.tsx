import { redirect, type ActionFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { likePageAction } from "~/server/pages/like-page.server";

// Action only: like or unlike a post as the session user (app/server/pages/like-page.server.ts).
export const loader = () => redirect(paths.home());

export const action = ({ request, params }: ActionFunctionArgs) => likePageAction(request, params.pid ?? "");

// Never shown: the loader redirects and the action answers data or redirects. Present so
// the route is not a resource route and a refused plain post renders its error page.
export default function ActionOnlyRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
