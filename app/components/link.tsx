import type { AnchorHTMLAttributes } from "react";

// Our links are plain anchors, instead of Remix's <Link>: it resolves its path and runs router
// hooks for every link, and a feed page's many links made that a large share of a signed-in
// page's server CPU (bench/README.md). Every `to` here is already an absolute path
// (app/lib/paths.ts builds them), so there is nothing to resolve. Without JavaScript they are
// ordinary links; with it, one click listener for the whole document (LinkNavigation
// in root.tsx) turns a plain left click on them into a client navigation, as <Link> does.
// `data-discover` lets Remix fetch the routes a page links to ahead of a click, as it does for
// its own links; the other data attributes carry the navigation's options to that listener.

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> {
  /** An absolute path ("/ReciPals/…"), with its search and hash. */
  to: string;
  /** Replace the current history entry instead of pushing one (the default for the current URL). */
  replace?: boolean;
  /** Keep the scroll position (dialogs and tabs over the same page). */
  preventScrollReset?: boolean;
}

export function Link({ to, replace, preventScrollReset, ...props }: LinkProps) {
  return (
    <a
      {...props}
      href={to}
      data-discover="true"
      data-replace={replace ? "true" : undefined}
      data-keep-scroll={preventScrollReset ? "true" : undefined}
    />
  );
}
