import { redirect, type ActionFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { savePageAction } from "~/server/pages/save-page.server";

// Action only: save or unsave a recipe for the session user (idempotent both ways;
// app/server/pages/save-page.server.ts).
export const loader = ({ params }: { params: { rid?: string } }) => redirect(paths.recipe(params.rid ?? ""));

export const action = ({ request, params }: ActionFunctionArgs) => savePageAction(request, params.rid ?? "");

// Never shown: the loader redirects and the action answers data or redirects. Present so
// the route is not a resource route and a refused plain post renders its error page.
export default function ActionOnlyRoute() {
  return null;
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
