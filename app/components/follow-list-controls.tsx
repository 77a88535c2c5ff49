import { useFetchers } from "@remix-run/react";

import { paths } from "~/lib/paths";

import { InteractionFields } from "./interaction-fields";
import { FetcherForm, InlineError } from "./fetcher-form";
import { useFollowFetcher } from "./follow-button";
import { useReturnTo } from "./interaction-fields";

// The owner's side of the follow lists (a profile's Followers and Following): ending a follow
// from a row, and the counts that move while follow requests run. Apart from the Follow button,
// which pages without these lists (a recipe, notifications) carry alone.

/**
 * A button that ends a follow from the owner's side of a dialog row: `Remove` (a follower)
 * or `Unfollow` (someone followed). The dialog hides the row while the request runs
 * (usePendingFollowDelta); the reloaded list then no longer has it.
 */
export function EndFollowButton({ userId, intent }: { userId: string; intent: "remove" | "unfollow" }) {
  const returnTo = useReturnTo();
  const { fetcher, error } = useFollowFetcher();
  return (
    <FetcherForm fetcher={fetcher} action={paths.follow(userId)} className="follow-form" preventScrollReset>
      <InteractionFields redirectTo={returnTo} />
      <button type="submit" name="intent" value={intent} className="button button--ghost follow-button">
        {intent === "remove" ? "Remove" : "Unfollow"}
      </button>
      <InlineError message={error} />
    </FetcherForm>
  );
}

/**
 * Pending follow submissions of this page, for optimistic counts: how the counts of
 * `profileId` move while requests run (they settle when the page's data reloads).
 */
export function usePendingFollowDelta({
  profileId,
  isOwn,
  viewerFollows,
}: {
  profileId: string;
  isOwn: boolean;
  viewerFollows: boolean;
}): { followers: number; following: number; hidden: Set<string> } {
  const fetchers = useFetchers();
  let followers = 0;
  let following = 0;
  const hidden = new Set<string>();
  const prefix = paths.follow("");
  for (const f of fetchers) {
    if (!f.formData || !f.formAction?.startsWith(prefix)) continue;
    const target = decodeURIComponent(f.formAction.slice(prefix.length));
    const intent = f.formData.get("intent");
    if (!isOwn) {
      if (target !== profileId) continue;
      if (intent === "follow" && !viewerFollows) followers += 1;
      if (intent === "unfollow" && viewerFollows) followers -= 1;
    } else if (intent === "remove") {
      followers -= 1;
      hidden.add(`followers:${target}`);
    } else if (intent === "unfollow") {
      following -= 1;
      hidden.add(`following:${target}`);
    }
  }
  return { followers, following, hidden };
}
