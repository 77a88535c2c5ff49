import { Form, Link, useLocation } from "@remix-run/react";
import clsx from "clsx";

import { isActiveEntry, navEntries, type NavViewer } from "~/lib/navigation";
import { paths } from "~/lib/paths";

/**
 * One list of entries, laid out as a left bar from medium screens up and as a bottom bar
 * below that (CSS only, so it works without JavaScript).
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
            <li key={entry.label}>
              <Link
                to={entry.to}
                className={clsx("site-nav__link", active && "is-active")}
                aria-current={active ? "page" : undefined}
              >
                <span className="site-nav__icon" aria-hidden="true">
                  {entry.icon}
                </span>
                <span className="site-nav__label">{entry.label}</span>
              </Link>
            </li>
          );
        })}
      </ul>
      {viewer ? (
        <Form method="post" action={paths.logout()} className="site-nav__signout">
          <button type="submit" className="button button--ghost">
            Sign out
          </button>
        </Form>
      ) : (
        <Link to={paths.login()} className="site-nav__signin">
          Sign in
        </Link>
      )}
    </nav>
  );
}
