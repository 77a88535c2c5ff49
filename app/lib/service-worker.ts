import { useMatches } from "@remix-run/react";
import { useEffect } from "react";

import { paths } from "./paths";

// The browser side of public/sw.js (docs/rules.md#offline-saved-recipes). Pages never
// depend on it: without service workers, or when anything here fails, nothing changes.

/**
 * Registers /sw.js once the page has loaded, React has hydrated it (the caller is the root's first
 * effect) and the main thread is idle: starting the worker, which then fetches and keeps the
 * offline page and icons, never competes with the page's own requests or with hydration on a
 * phone's few cores.
 */
export function registerServiceWorker(): void {
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator)) return;
  const register = () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  };
  const whenIdle = () => {
    if ("requestIdleCallback" in window) window.requestIdleCallback(register, { timeout: 5000 });
    else setTimeout(register, 1000);
  };
  if (document.readyState === "complete") whenIdle();
  else window.addEventListener("load", whenIdle, { once: true });
}

interface SavedRouteData {
  recipes?: { recipe_id: string }[];
}

interface ShoppingRouteData {
  recipes?: { recipe_id: string; serves: number | null; items: { checked: boolean }[] }[];
}

interface CookRouteData {
  offline?: { recipe: string; steps: number; version: string };
}

/** What the shopping list shows, in a few characters: when it changes, the kept copy is refreshed. */
function shoppingVersion(data: ShoppingRouteData | undefined): string | null {
  if (!data?.recipes) return null;
  return data.recipes.map((recipe) => `${recipe.recipe_id}:${recipe.serves}:${recipe.items.length}:${recipe.items.filter((item) => item.checked).length}`).join(",") || "empty";
}

/**
 * Tells the service worker who is signed in on every page (a different or absent user makes it
 * drop its cache: that is how signing out clears it), on the Saved page which recipe pages to
 * keep, on a cook page which recipe's cook pages it is showing, and on the shopping list that its copy should be taken again whenever what it shows changes. The list comes from the Saved route's loader data, so an unsave updates it too.
 */
export function useServiceWorkerSync(userId: string | null): void {
  const matches = useMatches();
  const saved = matches.find((match) => match.id === "routes/ReciPals.Saved")?.data as SavedRouteData | undefined;
  const pages = saved?.recipes?.map((recipe) => paths.recipe(recipe.recipe_id)) ?? null;
  // On the shopping list, what it shows now: the worker keeps its copy in step (docs/rules.md#shopping-list).
  const shopping = shoppingVersion(matches.find((match) => match.id === "routes/ReciPals.ShoppingList")?.data as ShoppingRouteData | undefined);
  // On a cook page, which recipe's and what they show: the worker takes its copies of a saved
  // recipe's cook pages again when they changed (docs/rules.md#cook-mode). The same on every step.
  const cook = (matches.find((match) => match.id === "routes/ReciPals_.Recipes.$rid_.Cook")?.data as CookRouteData | undefined)?.offline ?? null;
  const message = JSON.stringify({ type: "sync", user: userId, saved: pages, shopping, cook });
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
