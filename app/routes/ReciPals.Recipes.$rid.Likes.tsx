// Who liked a recipe's post, a dialog over the recipe page (/ReciPals/Recipes/{rid}/Likes); what
// it shows is app/server/pages/likes-page.server.ts.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData, useParams } from "@remix-run/react";

import { LikersList } from "~/components/likers-list";
import { RouteDialog } from "~/components/route-dialog";
import { paths } from "~/lib/paths";
import { loadRecipeLikesPage } from "~/server/pages/likes-page.server";

export const meta: MetaFunction = () => [{ title: "Likes · ReciPals" }];

export const loader = ({ request, params, context }: LoaderFunctionArgs) => loadRecipeLikesPage(request, params.rid ?? "", context);

export default function RecipeLikesDialog() {
  const { likers, remote } = useLoaderData<typeof loader>();
  const { rid = "" } = useParams();
  return (
    <RouteDialog title="Likes" closeTo={paths.recipe(rid)}>
      <LikersList likers={likers} remote={remote} />
    </RouteDialog>
  );
}
