import { forwardRef, useEffect, type AnchorHTMLAttributes } from "react";
import { useNavigate } from "@remix-run/react";

// Our links are plain anchors with one click listener for the whole document, instead of Remix's
// <Link>. Remix's <Link> resolves its path three times and runs a dozen hooks per link; a feed page
// has a hundred links, and that was a fifth of a signed-in page's server CPU (bench/README.md,
// issue 20). Every `to` here is already an absolute path (app/lib/paths.ts builds them), so there
// is nothing to resolve. Without JavaScript they are ordinary links; with it,
// useDocumentLinkNavigation (mounted once in root.tsx) turns a plain left click into a client
// navigation, as <Link> does. `data-discover` lets Remix fetch the routes a page links to ahead
// of a click, as it does for its own links.

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> {
  /** An absolute path ("/ReciPals/…"), with its search and hash. */
  to: string;
  /** Replace the current history entry instead of pushing one (the default for the current URL). */
  replace?: boolean;
  /** Keep the scroll position (dialogs and tabs over the same page). */
  preventScrollReset?: boolean;
}

export const Link = forwardRef<HTMLAnchorElement, LinkProps>(function Link({ to, replace, preventScrollReset, ...props }, ref) {
  return (
    <a
      {...props}
      ref={ref}
      href={to}
      data-discover="true"
      data-replace={replace ? "true" : undefined}
      data-keep-scroll={preventScrollReset ? "true" : undefined}
    />
  );
});

/** The click a browser would follow in the same tab: left button, no modifier, no other target. */
function followedHere(event: MouseEvent, anchor: HTMLAnchorElement): boolean {
  if (event.defaultPrevented || event.button !== 0) return false;
  if (event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return false;
  if (anchor.hasAttribute("download")) return false;
  const target = anchor.getAttribute("target");
  return !target || target === "_self";
}

/** Client navigation for every <Link> on the page: one listener on the document, mounted in root.tsx. */
export function useDocumentLinkNavigation(): void {
  const navigate = useNavigate();
  useEffect(() => {
    const onClick = (event: MouseEvent) => {
      const anchor = event.target instanceof Element ? event.target.closest("a[data-discover]") : null;
      if (!(anchor instanceof HTMLAnchorElement) || !followedHere(event, anchor)) return;
      const url = new URL(anchor.href);
      if (url.origin !== window.location.origin) return;
      event.preventDefault();
      const to = `${url.pathname}${url.search}${url.hash}`;
      const here = `${window.location.pathname}${window.location.search}${window.location.hash}`;
      navigate(to, {
        replace: anchor.dataset.replace === "true" || to === here,
        preventScrollReset: anchor.dataset.keepScroll === "true",
      });
    };
    // Bubbling phase on the document: React's own onClick handlers (on the root) run first and may
    // cancel the navigation with preventDefault.
    document.addEventListener("click", onClick);
    return () => document.removeEventListener("click", onClick);
  }, [navigate]);
}
