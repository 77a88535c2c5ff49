import { reportPath } from "~/lib/reports";
import { personPath } from "~/lib/blocking";

import { Avatar } from "./avatar";
import { ConfirmButton } from "./confirm";

/** The question asked before a block (docs/rules.md#confirmations). */
export function blockQuestion(username: string): string {
  return `Block ${username}? You will stop following each other, and neither of you will see the other's profile, recipes or comments until you unblock.`;
}

/**
 * Mute / Unmute and Block on someone's profile (docs/rules.md#blocking-and-muting): plain form
 * posts, so they work without JavaScript; Block asks first (a confirm dialog, or a page without
 * JavaScript).
 */
export function PersonActions({ userId, username, muted, returnTo }: { userId: string; username: string; muted: boolean; returnTo: string }) {
  return (
    <div className="person-actions">
      <form method="post" action={personPath(userId)} className="inline-form">
        <input type="hidden" name="returnTo" value={returnTo} />
        <button type="submit" name="intent" value={muted ? "unmute" : "mute"} className="button button--ghost">
          {muted ? "Unmute" : "Mute"}
        </button>
      </form>
      <ConfirmButton
        action={personPath(userId)}
        intent="block"
        message={blockQuestion(username)}
        label="Block"
        fields={{ returnTo }}
        className="button button--ghost button--danger"
      />
      <a href={reportPath("user", userId)} className="button button--ghost" aria-label={`Report ${username}`}>
        Report
      </a>
    </div>
  );
}

/** Unblock, where a blocked person is shown (their profile, the blocked accounts list). */
export function UnblockButton({ userId, returnTo, label = "Unblock" }: { userId: string; returnTo: string; label?: string }) {
  return (
    <form method="post" action={personPath(userId)} className="inline-form">
      <input type="hidden" name="returnTo" value={returnTo} />
      <button type="submit" name="intent" value="unblock" className="button button--ghost">
        {label}
      </button>
    </form>
  );
}

interface ListedPerson {
  id: string;
  username: string;
  name: string;
  profile: string;
}

function PeopleList({ title, people, empty, intent, label, returnTo }: { title: string; people: ListedPerson[]; empty: string; intent: string; label: string; returnTo: string }) {
  const id = `${intent}-list-title`;
  return (
    <section className="people-list" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {people.length === 0 ? (
        <p className="people-list__muted">{empty}</p>
      ) : (
        <ul>
          {people.map((person) => (
            <li key={person.id} className="people-list__row">
              <Avatar src={person.profile} size={32} />
              <span className="people-list__name">
                <strong>{person.username}</strong> <span className="people-list__muted">{person.name}</span>
              </span>
              <form method="post" action={personPath(person.id)} className="inline-form">
                <input type="hidden" name="returnTo" value={returnTo} />
                <button type="submit" name="intent" value={intent} className="button button--ghost" aria-label={`${label} ${person.username}`}>
                  {label}
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** "Blocked accounts" and "Muted accounts" in one's own profile editor, each with its undo. */
export function BlockedAndMuted({ blocked, muted, returnTo }: { blocked: ListedPerson[]; muted: ListedPerson[]; returnTo: string }) {
  return (
    <>
      <PeopleList title="Blocked accounts" people={blocked} empty="You have not blocked anyone." intent="unblock" label="Unblock" returnTo={returnTo} />
      <PeopleList title="Muted accounts" people={muted} empty="You have not muted anyone." intent="unmute" label="Unmute" returnTo={returnTo} />
    </>
  );
}
