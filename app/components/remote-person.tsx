import { useFetcher } from "@remix-run/react";
import clsx from "clsx";

import { paths } from "~/lib/paths";
import { shownRemoteImage } from "~/lib/remote-images";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import type { action as remoteFollowAction } from "~/routes/ReciPals.Account.RemoteFollow";
import type { FoundRemotePerson } from "~/server/services/federation-service.server";

import { Avatar } from "./avatar";
import { FetcherForm, InlineError } from "./fetcher-form";
import { useReturnTo } from "./follow-button";
import { InteractionFields } from "./interaction-fields";

// People on other servers (docs/federation.md): shown by their handle, linking to their profile
// there; followed with a Follow that waits for their server's Accept.

type FollowState = FoundRemotePerson["follow"];

const LABELS: Record<FollowState, string> = { none: "Follow", pending: "Requested", following: "Unfollow" };

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

/**
 * Follow / Requested / Unfollow for a person on another server. "Requested" waits for their
 * server's Accept; pressing it withdraws the follow. Optimistic with JavaScript, a plain post without.
 */
export function RemoteFollowButton({ actorId, state: given, anchor }: { actorId: string; state: FollowState; anchor: string }) {
  const returnTo = useReturnTo();
  const fetcher = useFetcher<typeof remoteFollowAction>();
  const pending = fetcher.formData ? String(fetcher.formData.get("intent")) : null;
  const answered = fetcher.state === "idle" && fetcher.data && !isEarlyRefusal(fetcher.data) && fetcher.data.ok ? fetcher.data.follow : null;
  const state: FollowState = pending ? (pending === "follow" ? "pending" : "none") : (answered ?? given);
  const error =
    earlyRefusalMessage(fetcher.state === "idle" ? fetcher.data : null) ??
    (fetcher.state === "idle" && fetcher.data && !isEarlyRefusal(fetcher.data) && !fetcher.data.ok ? fetcher.data.message : null);
  return (
    <FetcherForm fetcher={fetcher} action={paths.remoteFollow()} className="follow-form" preventScrollReset>
      <InteractionFields redirectTo={returnTo} anchor={anchor} />
      <input type="hidden" name="actor" value={actorId} />
      <button
        type="submit"
        name="intent"
        value={state === "none" ? "follow" : "unfollow"}
        className={clsx("button", "follow-button", state !== "none" && "button--ghost")}
        aria-pressed={state !== "none"}
        title={state === "pending" ? "Waiting for their server to accept; press to withdraw" : undefined}
      >
        {LABELS[state]}
      </button>
      <InlineError message={error} />
    </FetcherForm>
  );
}

/** A person on another server found by their handle: who they are, a link to their profile there, and Follow. */
export function RemotePersonCard({ person }: { person: FoundRemotePerson }) {
  const anchor = "remote-person";
  return (
    <article className="remote-person" id={anchor} aria-label={`@${person.handle}`}>
      <Avatar src={shownRemoteImage(person.icon_url)} size={56} />
      <div className="remote-person__names">
        <span className="remote-person__name">{person.name}</span>
        <span className="remote-person__handle">@{person.handle}</span>
        {person.url ? (
          <a className="remote-person__link" href={person.url} rel="noopener noreferrer nofollow">
            Profile on {new URL(person.url).host}
          </a>
        ) : null}
      </div>
      <RemoteFollowButton actorId={person.id} state={person.follow} anchor={anchor} />
    </article>
  );
}
