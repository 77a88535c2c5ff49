import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useFetcher, useLoaderData } from "@remix-run/react";
import clsx from "clsx";
import { useEffect, useRef } from "react";

import { Avatar } from "~/components/avatar";
import { EmptyState } from "~/components/empty-state";
import { FollowButton } from "~/components/follow-button";
import { FormAlert } from "~/components/forms";
import { Link } from "~/components/link";
import { Photo } from "~/components/photo";
import { RelativeTime } from "~/components/relative-time";
import { FETCHER_FIELD } from "~/lib/interaction";
import { DEFAULT_PROFILE_IMAGE, paths } from "~/lib/paths";
import { earlyRefusalMessage } from "~/lib/refusal";
import { stylesheetLinks, type StyledRoute } from "~/root";
import { loadNotificationsPage, notificationsPageAction } from "~/server/pages/notifications-page.server";
import notificationStyles from "~/styles/notifications.css";

// Notifications (docs/rules.md#notifications): newest first, grouped, a page at a time. Opening
// the page marks what it shows as read — a POST, never a side effect of the GET: with JavaScript
// the page sends it as soon as it is shown; without, it offers "Mark all as read". What it shows
// and what its posts do is app/server/pages/notifications-page.server.ts.

export const meta: MetaFunction = () => [{ title: "Notifications · ReciPals" }];
export const handle: StyledRoute = { styles: [notificationStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const loader = ({ request }: LoaderFunctionArgs) => loadNotificationsPage(request);

export const action = ({ request }: ActionFunctionArgs) => notificationsPageAction(request);

export default function NotificationsRoute() {
  const { groups, ids, unread, page, hasMore } = useLoaderData<typeof loader>();
  const reader = useFetcher();
  const shownUnread = groups.some((group) => group.unread);
  const idsKey = ids.join(",");
  // Shown, so read: marks exactly what this page lists (once per list shown). After every commit,
  // against the list last marked, not on a change of dependencies (React may skip those: useChangeEffect).
  const marked = useRef<string | null>(null);
  useEffect(() => {
    if (marked.current === idsKey) return;
    marked.current = idsKey;
    if (!shownUnread || idsKey === "") return;
    const form = new FormData();
    form.set("intent", "read");
    form.set(FETCHER_FIELD, "1");
    for (const id of idsKey.split(",")) form.append("id", id);
    reader.submit(form, { method: "post", action: paths.notifications() });
  });
  const here = page > 1 ? `${paths.notifications()}?page=${page}` : paths.notifications();
  // "Mark all as read" refused before the action ran (app/lib/refusal.ts).
  const refusal = earlyRefusalMessage(useActionData<typeof action>());
  return (
    <section className="notifications-page">
      <div className="notifications-page__head">
        <h1 className="page-title">Notifications</h1>
        {unread > 0 ? (
          <Form method="post" action={paths.notifications()}>
            <input type="hidden" name="redirectTo" value={here} />
            <button type="submit" name="intent" value="read-all" className="button button--ghost button--small">
              Mark all as read
            </button>
          </Form>
        ) : null}
      </div>
      <FormAlert message={refusal} />
      {groups.length === 0 ? (
        <EmptyState
          title="No notifications yet"
          text="When someone likes or saves your recipes, comments on them or follows you, it shows up here."
          action={{ to: paths.create(), label: "Share a recipe" }}
        />
      ) : (
        <ol className="notifications" aria-label="Notifications">
          {groups.map((group) => {
            const newest = group.actors[0] ?? null;
            return (
              <li key={group.key} className={clsx("notification", group.unread && "is-unread")}>
                <Avatar src={newest?.profile || DEFAULT_PROFILE_IMAGE} size={40} />
                <div className="notification__body">
                  <Link to={group.href} className="notification__text">
                    {group.text}
                    {group.unread ? <span className="visually-hidden"> (unread)</span> : null}
                  </Link>
                  {group.preview ? <q className="notification__preview">{group.preview}</q> : null}
                  <span className="notification__time">
                    <RelativeTime iso={group.created_at} />
                  </span>
                  {group.followers.length > 0 ? (
                    <div className="notification__follow">
                      {group.followers.map((person) => (
                        <FollowButton
                          key={person.id}
                          userId={person.id}
                          following={person.following}
                          variant="back"
                          whom={group.followers.length > 1 ? person.username : undefined}
                        />
                      ))}
                    </div>
                  ) : null}
                </div>
                {group.photo ? (
                  // The recipe it is about; the text beside it is the link (this is a picture of it).
                  <Link to={group.href} className="notification__thumb" tabIndex={-1} aria-hidden="true">
                    <Photo src={group.photo} slot="thumb" alt="" name={group.subject ?? ""} width={56} height={56} />
                  </Link>
                ) : null}
              </li>
            );
          })}
        </ol>
      )}
      {page > 1 || hasMore ? (
        <nav className="pager" aria-label="More notifications">
          {page > 1 ? <Link to={page === 2 ? paths.notifications() : `${paths.notifications()}?page=${page - 1}`}>Newer</Link> : <span />}
          {hasMore ? <Link to={`${paths.notifications()}?page=${page + 1}`}>Older</Link> : null}
        </nav>
      ) : null}
    </section>
  );
}
