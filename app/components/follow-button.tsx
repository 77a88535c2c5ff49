import { useFetcher } from "@remix-run/react";
import clsx from "clsx";

import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import type { action as followAction } from "~/routes/ReciPals.Account.Follow.$uid";

import { InteractionFields, useReturnTo } from "./interaction-fields";
import { FetcherForm, InlineError } from "./fetcher-form";


type FollowIntent = "follow" | "unfollow" | "remove";


export function useFollowFetcher() {
  const fetcher = useFetcher<typeof followAction>();
  const pendingIntent = fetcher.formData ? (String(fetcher.formData.get("intent")) as FollowIntent) : null;
  // The action's own refusal ({ ok: false, message }), or one the server gave before it ran (app/lib/refusal.ts).
  const error =
    earlyRefusalMessage(fetcher.state === "idle" ? fetcher.data : null) ??
    (fetcher.state === "idle" && fetcher.data && !isEarlyRefusal(fetcher.data) && !fetcher.data.ok ? fetcher.data.message : null);
  return { fetcher, pendingIntent, error };
}

/**
 * A Follow toggle (aria-pressed). Optimistic: while the request runs the button already shows
 * the new state, derived from the submission so a failure falls back to the server's truth.
 * `variant="profile"` reads Follow / Unfollow, `variant="row"` Follow / Following, `variant="back"`
 * (a new follower) Follow back / Following; `whom` adds the person's name where several are listed.
 */
export function FollowButton({
  userId,
  following,
  variant = "profile",
  whom,
}: {
  userId: string;
  following: boolean;
  variant?: "profile" | "row" | "back";
  whom?: string;
}) {
  const returnTo = useReturnTo();
  const { fetcher, pendingIntent, error } = useFollowFetcher();
  const on = pendingIntent ? pendingIntent === "follow" : following;
  const label = `${on ? (variant === "profile" ? "Unfollow" : "Following") : variant === "back" ? "Follow back" : "Follow"}${whom ? ` ${whom}` : ""}`;
  return (
    <FetcherForm fetcher={fetcher} action={paths.follow(userId)} className="follow-form" id={`follow-${userId}`} preventScrollReset>
      <InteractionFields redirectTo={returnTo} anchor={`follow-${userId}`} />
      <button
        type="submit"
        name="intent"
        value={on ? "unfollow" : "follow"}
        className={clsx("button", "follow-button", on && "button--ghost")}
        aria-pressed={on}
      >
        {label}
      </button>
      <InlineError message={error} />
    </FetcherForm>
  );
}
