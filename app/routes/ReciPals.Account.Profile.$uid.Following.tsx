// The Following dialog of a profile (/ReciPals/Account/Profile/{id}/Following); what it lists is
// app/server/pages/follow-list-page.server.ts.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse, useLoaderData, useRouteError } from "@remix-run/react";

import { ErrorPage } from "~/components/error-page";
import { FollowListDialog } from "~/components/profile-follow-list";
import { loadFollowingPage } from "~/server/pages/follow-list-page.server";

export const meta: MetaFunction = () => [{ title: "Following · ReciPals" }];

// A dialog over the profile with its own URL (docs/rules.md#dialogs): works without JavaScript.
export const loader = ({ request, params }: LoaderFunctionArgs) => loadFollowingPage(request, params.uid ?? "");

export default function FollowingRoute() {
  return <FollowListDialog kind="following" data={useLoaderData<typeof loader>()} />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <ErrorPage status={404} message="User not found." />;
  throw error;
}
