import { Form, useLocation } from "@remix-run/react";
import clsx from "clsx";

import { NavIcon } from "~/components/icons";
import { Link } from "~/components/link";
import { isActiveEntry, navEntries, type NavViewer } from "~/lib/navigation";
import { paths } from "~/lib/paths";

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

/**
 * The bar above every page: the brand on a phone (the left bar has it on wide screens), Info on a
 * phone, and the account's way in or out everywhere: Sign in and Sign up for visitors, Sign out
 * (a plain form post) for people signed in.
 */
export function TopBar({ viewer }: { viewer: NavViewer | null }) {
  const onInfo = useLocation().pathname.toLowerCase() === paths.info().toLowerCase();
  return (
    <header className="topbar">
      <Link to={paths.home()} className="topbar__brand">
        ReciPals
      </Link>
      <div className="topbar__actions">
        <Link to={paths.info()} className="topbar__info" aria-label="Info" aria-current={onInfo ? "page" : undefined}>
          <NavIcon name="info" />
        </Link>
        {viewer ? (
          <Form method="post" action={paths.logout()}>
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
