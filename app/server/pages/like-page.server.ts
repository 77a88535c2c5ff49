// Liking a post (/ReciPals/Posts/{pid}/Like): an address that only takes the posts of the like
// buttons, and answers the button's fetcher or goes back to the page it was on.
import { paths } from "~/lib/paths";
import { requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { isFetcherSubmission, redirectBack, refuseInteraction } from "~/server/http/interaction.server";
import { readIntent } from "~/server/http/responses.server";
import { readPostForLike, setLike } from "~/server/services/interactions-service.server";

/** Like or unlike a post as the session user. */
export async function likePageAction(request: Request, postId: string) {
  const formData = await readForm(request);
  const back = formData.get("redirectTo");
  // The post is read side by side with the session (docs/scaling.md, "Round trips").
  const post = readPostForLike(postId);
  // Visitors are sent to Login and brought back to the page they were on.
  const user = await requireUser(request, { redirectTo: typeof back === "string" ? back : paths.home() });
  const intent = readIntent(formData);
  if (intent !== "like" && intent !== "unlike") return refuseInteraction(formData, "Unknown action.", 400);
  const outcome = await setLike({ actor: user, postId, liked: intent === "like", post });
  if (!outcome.ok) return refuseInteraction(formData, outcome.message, outcome.status);
  if (isFetcherSubmission(formData)) return { liked: intent === "like", likes: outcome.value.likes };
  return redirectBack(formData, paths.home());
}
