import { data, redirect, type ActionFunctionArgs } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { readIntent } from "~/server/http.server";
import { isFetcherSubmission, redirectBack } from "~/server/interaction.server";
import { setPostLiked } from "~/server/queries/likes.server";
import { postExists } from "~/server/queries/posts.server";
import { requireUser } from "~/server/session.server";

// Action only: like or unlike a post as the session user.
export const loader = () => redirect(paths.home());

export async function action({ request, params }: ActionFunctionArgs) {
  const formData = await request.formData();
  const back = formData.get("redirectTo");
  // Visitors are sent to Login and brought back to the page they were on.
  const user = await requireUser(request, { redirectTo: typeof back === "string" ? back : paths.home() });
  const postId = params.pid ?? "";
  const intent = readIntent(formData);
  if (intent !== "like" && intent !== "unlike") return data({ error: "Unknown action." }, { status: 400 });
  if (!(await postExists(postId))) return data({ error: "Post not found." }, { status: 404 });
  const likes = await setPostLiked({ postId, userId: user.id, liked: intent === "like" });
  if (isFetcherSubmission(formData)) return { liked: intent === "like", likes };
  return redirectBack(formData, paths.home());
}
