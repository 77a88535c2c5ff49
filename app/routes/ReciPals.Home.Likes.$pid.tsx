import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData, useLocation } from "@remix-run/react";

import { LikersList } from "~/components/likers-list";
import { RouteDialog } from "~/components/route-dialog";
import { paths } from "~/lib/paths";
import { invariantResponse } from "~/server/http.server";
import { listLikers } from "~/server/queries/likes.server";
import { postExists } from "~/server/queries/posts.server";

export const meta: MetaFunction = () => [{ title: "Likes · ReciPals" }];

export async function loader({ params }: LoaderFunctionArgs) {
  const postId = params.pid ?? "";
  invariantResponse(await postExists(postId), "Post not found.", 404);
  return { likers: await listLikers(postId) };
}

export default function HomeLikesDialog() {
  const { likers } = useLoaderData<typeof loader>();
  const { search } = useLocation();
  return (
    <RouteDialog title="Likes" closeTo={`${paths.home()}${search}`}>
      <LikersList likers={likers} />
    </RouteDialog>
  );
}
