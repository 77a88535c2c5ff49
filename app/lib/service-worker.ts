import { useMatches } from "@remix-run/react";
import { useEffect } from "react";

import { paths } from "./paths";

// The browser side of public/sw.js (docs/rules.md#offline-saved-recipes). Pages never
// depend on it: without service workers, or when anything here fails, nothing changes.

/** Registers /sw.js once the page has loaded (so it never competes with the page's own requests). */
export function registerServiceWorker(): void {
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator)) return;
  const register = () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  };
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

interface SavedRouteData {
  recipes?: { recipe_id: string }[];
}

/**
 * Tells the service worker who is signed in on every page (a different or absent user makes it
 * drop its cache: that is how signing out clears it), and, on the Saved page, which recipe pages
 * to keep. The list comes from the Saved route's loader data, so an unsave updates it too.
 */
export function useServiceWorkerSync(userId: string | null): void {
  const saved = useMatches().find((match) => match.id === "routes/ReciPals.Saved")?.data as SavedRouteData | undefined;
  const pages = saved?.recipes?.map((recipe) => paths.recipe(recipe.recipe_id)) ?? null;
  const message = JSON.stringify({ type: "sync", user: userId, saved: pages });
  useEffect(() => {
    if (!("serviceWorker" in navigator)) return;
    let live = true;
    navigator.serviceWorker.ready
      .then((registration) => {
        if (live) registration.active?.postMessage(JSON.parse(message));
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [message]);
}
