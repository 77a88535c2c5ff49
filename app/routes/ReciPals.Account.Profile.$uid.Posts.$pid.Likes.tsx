import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData, useParams } from "@remix-run/react";

import { LikersList } from "~/components/likers-list";
import { RouteDialog } from "~/components/route-dialog";
import { paths } from "~/lib/paths";
import { invariantResponse } from "~/server/http/responses.server";
import { listLikers } from "~/server/queries/likes.server";
import { getPostOwnership } from "~/server/queries/posts.server";
import { getLens, requireUser } from "~/server/auth/session.server";
import { isHidden, UNAVAILABLE_ACCOUNT } from "~/server/queries/visibility.server";

export const meta: MetaFunction = () => [{ title: "Likes · ReciPals" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request);
  const postId = params.pid ?? "";
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, params.uid)), UNAVAILABLE_ACCOUNT, 404);
  // The post must be this profile's, so the profile's check above covers its author.
  const post = await getPostOwnership(postId);
  invariantResponse(post && post.created_by === params.uid, "Post not found.", 404);
  return { likers: await listLikers(postId, { without: lens.hidden }) };
}

export default function PostLikesDialog() {
  const { likers } = useLoaderData<typeof loader>();
  const { uid = "", pid = "" } = useParams();
  return (
    <RouteDialog title="Likes" closeTo={paths.post(uid, pid)}>
      <LikersList likers={likers} />
    </RouteDialog>
  );
}
