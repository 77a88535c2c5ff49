import { Form, useLocation, useNavigation } from "@remix-run/react";
import clsx from "clsx";

import { paths } from "~/lib/paths";
import { shownRemoteImage } from "~/lib/remote-images";
import type { FoundRemotePerson } from "~/server/services/federation-service.server";

import { Avatar } from "./avatar";
import { Link } from "./link";

// The search's card for a person on another server (docs/federation.md). Its buttons are plain
// form posts that come back to the search (with JavaScript, a Remix navigation reads it again):
// the search carries none of the fetcher forms' code, and each answer is the server's own word.

const ANCHOR = "remote-person";
const FOLLOW_LABELS: Record<FoundRemotePerson["follow"], string> = { none: "Follow", pending: "Requested", following: "Unfollow" };

/** One button about the person: `intent` posted with them, back to this search. */
function RemotePersonButton({ actorId, intent, pressed, primary = false, title, children }: { actorId: string; intent: string; pressed: boolean; primary?: boolean; title?: string; children: string }) {
  const location = useLocation();
  const navigation = useNavigation();
  const sending = navigation.formAction === paths.remotePeople() && navigation.formData?.get("intent") === intent && navigation.formData.get("actor") === actorId;
  return (
    <Form method="post" action={paths.remotePeople()} className="follow-form" preventScrollReset>
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}#${ANCHOR}`} />
      <input type="hidden" name="actor" value={actorId} />
      <button type="submit" name="intent" value={intent} className={clsx("button", primary ? "follow-button" : "button--ghost")} aria-pressed={pressed} aria-busy={sending || undefined} title={title}>
        {children}
      </button>
    </Form>
  );
}

/**
 * A person on another server found by their handle: who they are, a link to their profile there,
 * Follow (Requested until their server accepts; pressing it withdraws), Mute (their posts kept off
 * one's Home) and Block (follows end both ways, their likes and replies leave one's posts; a
 * blocked person offers only Unblock), and Report.
 */
export function RemotePersonCard({ person }: { person: FoundRemotePerson & { reportHref?: string } }) {
  const following = person.follow !== "none";
  return (
    <article className="remote-person" id={ANCHOR} aria-label={`@${person.handle}`}>
      <Avatar src={shownRemoteImage(person.icon_url)} size={56} />
      <div className="remote-person__names">
        <span className="remote-person__name">{person.name}</span>
        <span className="remote-person__handle">@{person.handle}</span>
        {person.url ? (
          <a className="remote-person__link" href={person.url} rel="noopener noreferrer nofollow">
            Profile on {new URL(person.url).host}
          </a>
        ) : null}
        {person.reportHref ? (
          <Link className="remote-person__report" to={person.reportHref} aria-label={`Report @${person.handle}`}>
            Report
          </Link>
        ) : null}
      </div>
      <div className="remote-person__actions">
        {person.blocked ? null : (
          <RemotePersonButton
            actorId={person.id}
            intent={following ? "unfollow" : "follow"}
            pressed={following}
            primary={!following}
            title={person.follow === "pending" ? "Waiting for their server to accept; press to withdraw" : undefined}
          >
            {FOLLOW_LABELS[person.follow]}
          </RemotePersonButton>
        )}
        {person.blocked ? null : (
          <RemotePersonButton actorId={person.id} intent={person.muted ? "unmute" : "mute"} pressed={person.muted}>
            {person.muted ? "Unmute" : "Mute"}
          </RemotePersonButton>
        )}
        <RemotePersonButton actorId={person.id} intent={person.blocked ? "unblock" : "block"} pressed={person.blocked}>
          {person.blocked ? "Unblock" : "Block"}
        </RemotePersonButton>
      </div>
    </article>
  );
}
