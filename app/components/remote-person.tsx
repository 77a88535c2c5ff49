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
import { useReturnTo } from "./follow-button";
import { InteractionFields } from "./interaction-fields";

// People on other servers (docs/federation.md): shown by their handle, linking to their profile
// there; followed with a Follow that waits for their server's Accept; blocked and muted as people here.

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
        {LABELS[state]}
      </button>
    </RemotePersonForm>
  );
}

/** Block / Unblock or Mute / Unmute a person on another server (aria-pressed), optimistic with JavaScript. */
function RemoteToggle({ actorId, kind, on: given, anchor }: { actorId: string; kind: "block" | "mute"; on: boolean; anchor: string }) {
  const { fetcher, sending, error } = useRemotePersonFetcher();
  const on = sending ? sending === kind : given;
  const word = kind === "block" ? "Block" : "Mute";
  return (
    <RemotePersonForm actorId={actorId} anchor={anchor} fetcher={fetcher} error={error}>
      <button type="submit" name="intent" value={on ? `un${kind}` : kind} className="button button--ghost" aria-pressed={on}>
        {on ? `Un${kind}` : word}
      </button>
    </RemotePersonForm>
  );
}

/**
 * A person on another server found by their handle: who they are, a link to their profile there,
 * Follow, Mute (their posts kept off one's Home) and Block (follows end both ways, their likes and
 * replies leave one's posts; a blocked person offers only Unblock).
 */
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
      <div className="remote-person__actions">
        {person.blocked ? null : <RemoteFollowButton actorId={person.id} state={person.follow} anchor={anchor} />}
        {person.blocked ? null : <RemoteToggle actorId={person.id} kind="mute" on={person.muted} anchor={anchor} />}
        <RemoteToggle actorId={person.id} kind="block" on={person.blocked} anchor={anchor} />
      </div>
    </article>
  );
}
