import { Form, useLocation } from "@remix-run/react";
import clsx from "clsx";

import { NavIcon } from "~/components/icons";
import { Link } from "~/components/link";
import { isActiveEntry, navEntries, type NavViewer } from "~/lib/navigation";
import { paths } from "~/lib/paths";
import { THEME_PATH, themeHref } from "~/lib/theme";

/**
 * One list of entries, laid out as a left bar from medium screens up and as bottom tabs below
 * that (CSS only, so it works without JavaScript). Info is not a bottom tab on a phone: the top
 * bar carries it there.
 */
export function SiteNav({ viewer }: { viewer: NavViewer | null }) {
  const { pathname } = useLocation();
  return (
    <nav className="site-nav" aria-label="Main">
      <Link to={paths.home()} className="site-nav__brand">
        ReciPals
      </Link>
      <ul className="site-nav__list">
        {navEntries(viewer).map((entry) => {
          const active = isActiveEntry(entry, pathname);
          return (
            <li key={entry.label} className={clsx(entry.label === "Info" && "site-nav__item--info")}>
              <Link
                to={entry.to}
                className={clsx("site-nav__link", active && "is-active")}
                aria-current={active ? "page" : undefined}
              >
                <NavIcon name={entry.icon} />
                <span className="site-nav__label">{entry.label}</span>
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** The count as the badge shows it: at most "99+" (the count itself stops at UNREAD_COUNT_CAP). */
export function unreadLabel(unread: number): string {
  return unread > 99 ? "99+" : String(unread);
}

/**
 * The bar above every page: the brand on a phone (the left bar has it on wide screens), Info on a
 * phone, Theme from 768 px (a phone's bar has no room left for it), the shopping list and the
 * notifications (with the unread count) for people signed in, and the account's way in or out
 * everywhere: Sign in and Sign up for visitors, Sign out (a plain form post) for people signed in.
 */
export function TopBar({ viewer, unread = 0 }: { viewer: NavViewer | null; unread?: number }) {
  const { pathname, search } = useLocation();
  const path = pathname.toLowerCase();
  const current = (to: string) => (path === to.toLowerCase() ? "page" : undefined);
  return (
    <header className="topbar">
      <Link to={paths.home()} className="topbar__brand">
        ReciPals
      </Link>
      <div className="topbar__actions">
        <Link to={paths.info()} className="topbar__info topbar__icon" aria-label="Info" aria-current={current(paths.info())}>
          <NavIcon name="info" />
        </Link>
        {/* The theme choice (docs/rules.md#theme), coming back here: a plain link, no script. */}
        <Link to={themeHref(pathname + search)} className="topbar__theme" aria-current={current(THEME_PATH)}>
          Theme
        </Link>
        {viewer ? (
          <>
            <Link to={paths.shoppingList()} className="topbar__icon" aria-label="Shopping list" aria-current={current(paths.shoppingList())}>
              <NavIcon name="cart" />
            </Link>
            <Link
              to={paths.notifications()}
              className="topbar__icon"
              aria-label={unread > 0 ? `Notifications, ${unreadLabel(unread)} unread` : "Notifications"}
              aria-current={current(paths.notifications())}
            >
              <NavIcon name="bell" />
              {unread > 0 ? (
                <span className="topbar__badge" aria-hidden="true">
                  {unreadLabel(unread)}
                </span>
              ) : null}
            </Link>
          </>
        ) : null}
        {viewer ? (
          // A whole page load (docs/rules.md#sessions-and-cookies): nothing of this person's stays in
          // the page's memory, and the next page registers the service worker again, which
          // Clear-Site-Data removed.
          <Form method="post" action={paths.logout()} reloadDocument>
            <button type="submit" className="button button--ghost button--small">
              Sign out
            </button>
          </Form>
        ) : (
          <>
            <Link to={paths.login()} className="button button--ghost button--small">
              Sign in
            </Link>
            <Link to={paths.signup()} className="button button--small">
              Sign up
            </Link>
          </>
        )}
      </div>
    </header>
  );
}
