// Who liked a post, a dialog over the post viewer (/ReciPals/Account/Profile/{uid}/Posts/{pid}/Likes);
// what it shows is app/server/pages/likes-page.server.ts.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData, useParams } from "@remix-run/react";

import { LikersList } from "~/components/likers-list";
import { RouteDialog } from "~/components/route-dialog";
import { paths } from "~/lib/paths";
import { loadPostLikesPage } from "~/server/pages/likes-page.server";

export const meta: MetaFunction = () => [{ title: "Likes · ReciPals" }];

export const loader = ({ request, params }: LoaderFunctionArgs) => loadPostLikesPage(request, params.uid ?? "", params.pid ?? "");

export default function PostLikesDialog() {
  const { likers, remote } = useLoaderData<typeof loader>();
  const { uid = "", pid = "" } = useParams();
  return (
    <RouteDialog title="Likes" closeTo={paths.post(uid, pid)}>
      <LikersList likers={likers} remote={remote} />
    </RouteDialog>
  );
}
