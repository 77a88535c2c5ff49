import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse, useLoaderData, useRouteError } from "@remix-run/react";

import { ErrorPage } from "~/components/error-page";
import { FollowListDialog } from "~/components/profile-follow-list";
import { getFollowList } from "~/server/queries/profiles.server";
import { getLens, requireUser } from "~/server/auth/session.server";
import { invariantResponse } from "~/server/http/responses.server";
import { isHidden, UNAVAILABLE_ACCOUNT } from "~/server/queries/visibility.server";

export const meta: MetaFunction = () => [{ title: "Followers · ReciPals" }];

// A dialog over the profile with its own URL (docs/rules.md#dialogs): works without JavaScript.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const viewer = await requireUser(request);
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, params.uid)), UNAVAILABLE_ACCOUNT, 404);
  const list = await getFollowList({ kind: "followers", userId: params.uid ?? "", viewerId: viewer.id, without: lens.hidden });
  if (!list) throw new Response("User not found.", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return list;
}

export default function FollowersRoute() {
  return <FollowListDialog kind="followers" data={useLoaderData<typeof loader>()} />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <ErrorPage status={404} message="User not found." />;
  throw error;
}
