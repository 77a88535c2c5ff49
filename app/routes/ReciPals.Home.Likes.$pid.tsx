import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData, useLocation } from "@remix-run/react";

import { LikersList } from "~/components/likers-list";
import { RouteDialog } from "~/components/route-dialog";
import { paths } from "~/lib/paths";
import { invariantResponse } from "~/server/http/responses.server";
import { listLikers } from "~/server/queries/likes.server";
import { getPostOwnership } from "~/server/queries/posts.server";
import { CacheScope } from "~/server/cache/scopes.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { getLens } from "~/server/auth/session.server";
import { isHidden } from "~/server/queries/visibility.server";

export const meta: MetaFunction = () => [{ title: "Likes · ReciPals" }];

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const postId = params.pid ?? "";
  const post = await getPostOwnership(postId);
  const lens = await getLens(request);
  invariantResponse(post && !(await isHidden(lens, post.created_by)), "Post not found.", 404);
  scopeSharedCache(context, [CacheScope.recipe(post.recipe_id)]);
  return { likers: await listLikers(postId, { without: lens.hidden }) };
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
