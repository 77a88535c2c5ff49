import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  isRouteErrorResponse,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import { useEffect, type ReactNode } from "react";

import { useNonce } from "~/lib/nonce";
import { useServiceWorkerSync } from "~/lib/service-worker";
import { getUser } from "~/server/session.server";
import globalStyles from "~/styles/global.css";

import { ErrorPage } from "./components/error-page";
import { useDocumentLinkNavigation } from "./components/link";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: globalStyles },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  // Installable app and offline saved recipes (docs/rules.md#offline-saved-recipes; public/sw.js).
  { rel: "manifest", href: "/manifest.webmanifest" },
  { rel: "apple-touch-icon", href: "/icons/icon-192.png" },
];

export const meta: MetaFunction = () => [{ title: "ReciPals" }];

// The session user is loaded once here for every page; a broken or expired session is "signed out".
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getUser(request);
  return { user };
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  // In Layout, not App: links on an error page navigate on the client too.
  useDocumentLinkNavigation();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#c2410c" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  useServiceWorkerSync(useOptionalUser()?.id ?? null);
  // A marker that the page is interactive, for tests that must not type before hydration.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return <Outlet />;
}

/** The signed-in user as the root loader saw it, or null. */
export function useOptionalUser() {
  return useRouteLoaderData<typeof loader>("root")?.user ?? null;
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
