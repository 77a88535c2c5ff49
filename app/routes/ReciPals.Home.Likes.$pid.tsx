// Who liked a post, a dialog over Home (/ReciPals/Home/Likes/{pid}); what it shows is
// app/server/pages/likes-page.server.ts.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData, useLocation } from "@remix-run/react";

import { LikersList } from "~/components/likers-list";
import { RouteDialog } from "~/components/route-dialog";
import { paths } from "~/lib/paths";
import { loadHomeLikesPage } from "~/server/pages/likes-page.server";

export const meta: MetaFunction = () => [{ title: "Likes · ReciPals" }];

export const loader = ({ request, params, context }: LoaderFunctionArgs) => loadHomeLikesPage(request, params.pid ?? "", context);

export default function HomeLikesDialog() {
  const { likers, remote } = useLoaderData<typeof loader>();
  const { search } = useLocation();
  return (
    <RouteDialog title="Likes" closeTo={`${paths.home()}${search}`}>
      <LikersList likers={likers} remote={remote} />
    </RouteDialog>
  );
}
