import { useFetcher } from "@remix-run/react";
import clsx from "clsx";
import type { ReactNode } from "react";

import { paths } from "~/lib/paths";
import { shownRemoteImage } from "~/lib/remote-images";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import type { action as remotePeopleAction } from "~/routes/ReciPals.Account.RemotePeople";
import type { FoundRemotePerson } from "~/server/services/federation-service.server";

import { Avatar } from "./avatar";
import { FetcherForm, InlineError } from "./fetcher-form";
import { InteractionFields, useReturnTo } from "./interaction-fields";

// People on other servers (docs/federation.md) in lists (Likes, Followers, Following): shown by
// their handle, linking to their profile there; one's own follow of them ended with a fetcher.
// The search's card for one of them is remote-person-card.tsx.

type FollowState = FoundRemotePerson["follow"];

const FOLLOW_LABELS: Record<FollowState, string> = { none: "Follow", pending: "Requested", following: "Unfollow" };

/** A person on another server as a list row: picture, handle and name, linking to their profile there. */
export function RemotePersonLink({ person, size = 40 }: { person: { handle: string; name: string; url: string | null; icon_url: string | null }; size?: number }) {
  const names = (
    <>
      <Avatar src={shownRemoteImage(person.icon_url)} size={size} />
      <span className="person-link__names">
        <span className="person-link__username">@{person.handle}</span>
        <span className="person-link__name">{person.name}</span>
      </span>
    </>
  );
  return person.url ? (
    <a className="person-link" href={person.url} rel="noopener noreferrer nofollow">
      {names}
    </a>
  ) : (
    <span className="person-link">{names}</span>
  );
}

/** A post of one intent about a person elsewhere (follow, block, mute…): the intent being sent, and a refusal to show. */
function useRemotePersonFetcher() {
  const fetcher = useFetcher<typeof remotePeopleAction>();
  const sending = fetcher.formData ? String(fetcher.formData.get("intent")) : null;
  const error =
    earlyRefusalMessage(fetcher.state === "idle" ? fetcher.data : null) ??
    (fetcher.state === "idle" && fetcher.data && !isEarlyRefusal(fetcher.data) && !fetcher.data.ok ? fetcher.data.message : null);
  return { fetcher, sending, error };
}

/** The form around one button about a person elsewhere; the page's data is read again after it (the shown state follows). */
function RemotePersonForm({ actorId, anchor, fetcher, error, children }: { actorId: string; anchor: string; fetcher: ReturnType<typeof useRemotePersonFetcher>["fetcher"]; error: string | null; children: ReactNode }) {
  const returnTo = useReturnTo();
  return (
    <FetcherForm fetcher={fetcher} action={paths.remotePeople()} className="follow-form" preventScrollReset>
      <InteractionFields redirectTo={returnTo} anchor={anchor} />
      <input type="hidden" name="actor" value={actorId} />
      {children}
      <InlineError message={error} />
    </FetcherForm>
  );
}

/**
 * Follow / Requested / Unfollow for a person on another server. "Requested" waits for their
 * server's Accept; pressing it withdraws the follow. Optimistic with JavaScript, a plain post without.
 */
export function RemoteFollowButton({ actorId, state: given, anchor }: { actorId: string; state: FollowState; anchor: string }) {
  const { fetcher, sending, error } = useRemotePersonFetcher();
  const state: FollowState = sending ? (sending === "follow" ? "pending" : "none") : given;
  return (
    <RemotePersonForm actorId={actorId} anchor={anchor} fetcher={fetcher} error={error}>
      <button
        type="submit"
        name="intent"
        value={state === "none" ? "follow" : "unfollow"}
        className={clsx("button", "follow-button", state !== "none" && "button--ghost")}
        aria-pressed={state !== "none"}
        title={state === "pending" ? "Waiting for their server to accept; press to withdraw" : undefined}
      >
        {FOLLOW_LABELS[state]}
      </button>
    </RemotePersonForm>
  );
}
