import type { LinkDescriptor, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  isRouteErrorResponse,
  useFetchers,
  useNavigate,
  useRevalidator,
  useRouteError,
  useMatches,
  useRouteLoaderData,
  type ShouldRevalidateFunction,
} from "@remix-run/react";
import { createContext, useContext, useEffect, useRef, type ReactNode } from "react";

import { useChangeEffect } from "~/lib/hooks";
import { useNonce } from "~/lib/nonce";
import { onlySearchChanged } from "~/lib/search-navigation";
import { registerServiceWorker, useServiceWorkerSync } from "~/lib/service-worker";
import { countUnread } from "~/server/queries/notifications.server";
import { getLens, getUser } from "~/server/auth/session.server";
import { themeOf } from "~/server/http/cookies.server";
import globalStyles from "~/styles/global.css";

import { ErrorPage } from "./components/error-page";

// A route's own stylesheet (docs/rules.md#first-paint): the route names it in its `handle`, and
// the document writes it inline in <head> when the server has its text (InlineStyles below), so
// the first screen paints without waiting for a stylesheet request; otherwise the route links it. The page
// that arrived with a stylesheet inline keeps it; a page reached later links its own. Here, not in
// a module of its own: every page's script carries this file, and a module more is a request more.

/** What a styled route exports as its `handle`. */
export interface StyledRoute {
  styles: readonly string[];
}

let writtenByServer: ((href: string) => boolean) | null = null;

/** The server tells which stylesheets it writes inline (app/server/document/document-styles.server.ts). */
export function setStylesWrittenInline(written: (href: string) => boolean): void {
  writtenByServer = written;
}

/** The stylesheet's text in this page, written inline by the server (the browser reads it back). */
export function inlineStylesheetInPage(href: string): string | null {
  return document.querySelector(`style[data-href="${href}"]`)?.textContent ?? null;
}

/** The links a styled route adds to <head>: its stylesheets the document does not write inline. */
export function stylesheetLinks({ styles }: StyledRoute): LinkDescriptor[] {
  const inline = (href: string) => (typeof document === "undefined" ? (writtenByServer?.(href) ?? false) : inlineStylesheetInPage(href) !== null);
  return styles.filter((href) => !inline(href)).map((href) => ({ rel: "stylesheet", href }));
}

// The site-wide stylesheet, before the routes' own: written inline by the document when the server
// has it (InlineStyles below).
export const handle: StyledRoute = { styles: [globalStyles] };

export const links: LinksFunction = () => [
  ...stylesheetLinks(handle),
  // A PNG: the browser draws an SVG icon as a small document of its own, in the page's main thread
  // as the page starts (30-40 ms in Lighthouse's traces of Home, docs/rules.md#first-paint).
  { rel: "icon", href: "/icons/favicon-48.png", type: "image/png", sizes: "48x48" },
  // Installable app and offline saved recipes (docs/rules.md#offline-saved-recipes; public/sw.js).
  { rel: "manifest", href: "/manifest.webmanifest" },
  { rel: "apple-touch-icon", href: "/icons/icon-192.png" },
];

export const meta: MetaFunction = () => [{ title: "ReciPals" }];

// The session user is loaded once here for every page; a broken or expired session is "signed out".
// With it, the unread notifications count for the navigation (docs/rules.md#notifications): one
// short index range, on every page, so the count needs no request of its own.
// With them, the theme chosen in this browser (docs/rules.md#theme): null follows the system.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getUser(request);
  const theme = themeOf(request.headers.get("Cookie"));
  return {
    user,
    unread: user ? await countUnread(user.id, { without: (await getLens(request)).quiet }) : 0,
    theme: theme === "system" ? null : theme,
  };
}

// Who is signed in and their unread count do not change with a search typed on the Search page.
export const shouldRevalidate: ShouldRevalidateFunction = (args) => (onlySearchChanged(args) ? false : args.defaultShouldRevalidate);

/** The click a browser would follow in the same tab: left button, no modifier, no other target. */
function followedHere(event: MouseEvent, anchor: HTMLAnchorElement): boolean {
  if (event.defaultPrevented || event.button !== 0) return false;
  if (event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return false;
  if (anchor.hasAttribute("download")) return false;
  const target = anchor.getAttribute("target");
  return !target || target === "_self";
}

/** The longest a click waits for a write of the page to settle before it navigates anyway. */
const WRITE_WAIT_MS = 4000;

/**
 * Client navigation for every <Link> of app/components/link.tsx (anchors marked data-discover):
 * one listener on the document. In the bubbling phase, so React's own onClick handlers run first
 * and may cancel the navigation with preventDefault. Renders nothing.
 *
 * A click while a write of the page is under way (a like or a comment sent by a fetcher, and the
 * reload of the page's data after it) navigates once that write has settled, usually a fraction of
 * a second later; the last click wins. Navigating during it can show an empty page: when the
 * reload ends while the next page's route is still being looked up (routes are discovered
 * lazily), React Router 6 completes the navigation with the old page's routes and no data
 * (tests/e2e/feed.spec.ts, likes).
 */
function LinkNavigation(): null {
  const navigate = useNavigate();
  // Remix writes form methods in capitals; a fetcher's load has none.
  const writing = useFetchers().some((fetcher) => fetcher.state !== "idle" && fetcher.formMethod !== undefined && fetcher.formMethod !== "GET");
  const busy = useRef(writing);
  const held = useRef<(() => void) | null>(null);
  useChangeEffect(writing, () => {
    busy.current = writing;
    if (!writing) held.current?.();
  });
  useEffect(() => {
    const onClick = (event: MouseEvent) => {
      const anchor = event.target instanceof Element ? event.target.closest("a[data-discover]") : null;
      if (!(anchor instanceof HTMLAnchorElement) || !followedHere(event, anchor)) return;
      const url = new URL(anchor.href);
      if (url.origin !== window.location.origin) return;
      event.preventDefault();
      const to = `${url.pathname}${url.search}${url.hash}`;
      const here = `${window.location.pathname}${window.location.search}${window.location.hash}`;
      const go = () => {
        held.current = null;
        navigate(to, {
          replace: anchor.dataset.replace === "true" || to === here,
          preventScrollReset: anchor.dataset.keepScroll === "true",
        });
      };
      if (!busy.current) return go();
      held.current = go;
      window.setTimeout(() => held.current === go && go(), WRITE_WAIT_MS);
    };
    document.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("click", onClick);
      held.current = null;
    };
  }, [navigate]);
  return null;
}

/**
 * The stylesheets' texts for the document to write inline, given by the server
 * (app/server/document/document-styles.server.ts reads them once at start); null in the browser, which
 * reads them back from the page.
 * Here rather than in a module of its own: every page's script carries this file.
 */
export const InlineStylesContext = createContext<((href: string) => string | null) | null>(null);
const inlinedInPage = new Map<string, string>();

/**
 * The stylesheets of the page's routes (the site-wide one first, named by the root's handle) that
 * the server gave, inline, so a phone on a slow line paints the first screen without waiting for
 * a stylesheet request (docs/rules.md#first-paint); the rest are linked by the routes
 * (stylesheetLinks above). The browser takes the texts back from the page it hydrates, so every
 * render writes the same elements, and keeps them for the pages it reaches later.
 */
function InlineStyles() {
  const fromServer = useContext(InlineStylesContext);
  const styles = new Set(useMatches().flatMap((match) => (match.handle as StyledRoute | undefined)?.styles ?? []));
  return [...styles].map((href) => {
    let css = fromServer ? fromServer(href) : (inlinedInPage.get(href) ?? null);
    if (css === null && !fromServer && typeof document !== "undefined") {
      css = inlineStylesheetInPage(href);
      if (css !== null) inlinedInPage.set(href, css);
    }
    return css === null ? null : <style key={href} data-href={href} dangerouslySetInnerHTML={{ __html: css }} />;
  });
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  // Rendered by the server in the chosen theme, so the first paint is right without a script
  // (docs/rules.md#theme); an error page without the root's data follows the system.
  const theme = useRouteLoaderData<typeof loader>("root")?.theme ?? undefined;
  return (
    <html lang="en" data-theme={theme}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content={theme ?? "light dark"} />
        <meta name="theme-color" content="#c2410c" />
        <Meta />
        <InlineStyles />
        <Links />
      </head>
      <body>
        {children}
        {/* In Layout, not App: links on an error page navigate on the client too. */}
        <LinkNavigation />
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

/**
 * The unread count follows the user's own fetcher actions by itself (Remix reloads the root's data
 * after each); when the tab comes back into view or its window regains focus it is read again,
 * for what others did meanwhile.
 */
function useRefreshOnReturn(signedIn: boolean): void {
  const { revalidate, state } = useRevalidator();
  const last = useRef(0);
  useEffect(() => {
    if (!signedIn) return;
    // A tab shown again, or its window focused again: either may come first, once is enough.
    const onReturn = () => {
      if (document.visibilityState !== "visible" || state !== "idle" || Date.now() - last.current < 2000) return;
      last.current = Date.now();
      revalidate();
    };
    document.addEventListener("visibilitychange", onReturn);
    window.addEventListener("focus", onReturn);
    return () => {
      document.removeEventListener("visibilitychange", onReturn);
      window.removeEventListener("focus", onReturn);
    };
  }, [signedIn, revalidate, state]);
}

export default function App() {
  const userId = useOptionalUser()?.id ?? null;
  useServiceWorkerSync(userId);
  useRefreshOnReturn(userId !== null);
  // A marker that the page is interactive, for tests that must not type before hydration.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
    // Offline reading of saved recipes (public/sw.js); the page never waits for it.
    registerServiceWorker();
  }, []);
  return <Outlet />;
}

/** The signed-in user as the root loader saw it, or null. */
export function useOptionalUser() {
  return useRouteLoaderData<typeof loader>("root")?.user ?? null;
}

/** The signed-in user's unread notifications (capped: UNREAD_COUNT_CAP shows as "99+"). */
export function useUnreadCount(): number {
  return useRouteLoaderData<typeof loader>("root")?.unread ?? 0;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error)) {
    return <ErrorPage status={error.status} message={typeof error.data === "string" ? error.data : undefined} />;
  }
  // On the server handleError (entry.server.tsx) has logged the real error already; this copy is sanitized.
  if (typeof document !== "undefined") console.error(error);
  return <ErrorPage status={500} />;
}
