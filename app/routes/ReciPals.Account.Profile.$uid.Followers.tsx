// The Followers dialog of a profile (/ReciPals/Account/Profile/{id}/Followers); what it lists is
// app/server/pages/follow-list-page.server.ts.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse, useLoaderData, useRouteError } from "@remix-run/react";

import { ErrorPage } from "~/components/error-page";
import { FollowListDialog } from "~/components/profile-follow-list";
import { loadFollowersPage } from "~/server/pages/follow-list-page.server";

export const meta: MetaFunction = () => [{ title: "Followers · ReciPals" }];

// A dialog over the profile with its own URL (docs/rules.md#dialogs): works without JavaScript.
export const loader = ({ request, params }: LoaderFunctionArgs) => loadFollowersPage(request, params.uid ?? "");

export default function FollowersRoute() {
  return <FollowListDialog kind="followers" data={useLoaderData<typeof loader>()} />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <ErrorPage status={404} message="User not found." />;
  throw error;
}
