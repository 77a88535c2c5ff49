import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData, useParams } from "@remix-run/react";

import { LikersList } from "~/components/likers-list";
import { RouteDialog } from "~/components/route-dialog";
import { paths } from "~/lib/paths";
import { invariantResponse } from "~/server/http/responses.server";
import { listLikers } from "~/server/queries/likes.server";
import { postExists } from "~/server/queries/posts.server";
import { requireUser } from "~/server/auth/session.server";

export const meta: MetaFunction = () => [{ title: "Likes · ReciPals" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request);
  const postId = params.pid ?? "";
  invariantResponse(await postExists(postId), "Post not found.", 404);
  return { likers: await listLikers(postId) };
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
