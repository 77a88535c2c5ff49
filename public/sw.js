/* ReciPals service worker (docs/rules.md#offline-saved-recipes): keeps the signed-in user's saved recipe pages, their
 * cook mode pages (one per step, docs/rules.md#cook-mode) and
 * their shopping list (docs/rules.md#shopping-list), and what
 * they need to show (styles, scripts, photos), readable without a connection; any other page
 * asked for offline gets /offline.html.
 *
 * What it will not do:
 * - touch a request that is not a GET (form posts, API writes pass straight through);
 * - cache /api answers or any page but recipe and cook pages, the Saved list and the shopping list (never Account/*);
 * - keep anything across users: every page tells it who is signed in (app/lib/service-worker.ts),
 *   and a different or absent user (signing out) drops the whole saved cache first; signing out
 *   also tells the browser to clear its storage (Clear-Site-Data), this worker's caches included;
 * - answer someone's kept pages offline once no page has confirmed them signed in for as long
 *   as a session lasts (30 days): a session that ran out on a shared device shows nothing of theirs.
 * Pages never depend on it: online, every page and answer comes from the network as usual.
 */

const SHELL_CACHE = "recipals-shell-v2";
const SAVED_CACHE = "recipals-saved-v1";
const SHELL_FILES = ["/offline.html", "/icons/favicon-48.png", "/manifest.webmanifest", "/icons/icon-192.png"];
/** Where the cache notes whose it is and which assets each page needs (never fetched). */
const STATE_KEY = "/__recipals-sw/state.json";
const SAVED_PAGE = "/ReciPals/Saved";
const SHOPPING_PAGE = "/ReciPals/ShoppingList";
/** Pages kept whole for the signed-in user, refreshed each time they are opened online. */
const LIST_PAGES = new Set([SAVED_PAGE, SHOPPING_PAGE]);
const RECIPE_PAGE = /^\/ReciPals\/Recipes\/[^/]+$/;
/**
 * Cook mode of a recipe (docs/rules.md#cook-mode): kept for each saved recipe as one page per step,
 * `…/Cook?step=N` at the recipe's own amounts, exactly as the server renders it; any cook address
 * asked for offline is answered with the kept page of its step.
 */
const COOK_PAGE = /^\/ReciPals\/Recipes\/[^/]+\/Cook$/;
/** The most steps a recipe has (TEXT_LIMITS.steps, app/lib/ingredient-text.ts). */
const MAX_COOK_STEPS = 200;
/** Same-origin files a cached page may need; nothing else (no /api, no other pages) is stored. */
const PAGE_ASSET = /^\/(?:build|images|uploads|icons)\/|^\/favicon\.svg$/;
const MAX_ASSETS_PER_PAGE = 80;
/** A session's lifetime (app/server/auth/session.server.ts): kept pages are not answered longer than that after the last confirmation. */
const SESSION_MS = 30 * 24 * 60 * 60 * 1000;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll(SHELL_FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("recipals-") && name !== SHELL_CACHE && name !== SAVED_CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

// ------------------------------------------------------------------------------------------------
// Messages from pages: { type: "sync", user: id | null, saved: ["/ReciPals/Recipes/…", …] | null,
//   cook: { recipe: "/ReciPals/Recipes/…", steps: n, version } | null (on a cook page) }

let queue = Promise.resolve();

/**
 * URLs this worker holds (the shell and the saved cache), so the fetch handler can tell at once,
 * without a cache lookup, whether a request is any of its business: everything else is left to
 * the browser untouched. Rebuilt whenever the state is written, and read once when the worker starts.
 */
let known = new Set();
const knownReady = caches
  .open(SAVED_CACHE)
  .then(readState)
  .then((state) => {
    known = urlsOf(state);
  })
  .catch(() => {});

function urlsOf(state) {
  const urls = new Set(SHELL_FILES.map(absolute));
  for (const [page, assets] of Object.entries(state.pages)) {
    urls.add(page);
    for (const asset of assets) urls.add(asset);
  }
  return urls;
}

self.addEventListener("message", (event) => {
  const data = event.data;
  if (!data || data.type !== "sync") return;
  const user = typeof data.user === "string" && data.user ? data.user : null;
  const saved = Array.isArray(data.saved) ? data.saved.filter((path) => typeof path === "string" && RECIPE_PAGE.test(path)) : null;
  // One sync at a time, in the order pages sent them.
  // On the shopping list: it is being shown (and has just changed, when this is a new version).
  const shoppingShown = typeof data.shopping === "string";
  const cook = cookShown(data.cook);
  queue = queue.then(() => sync(user, saved, shoppingShown, cook)).catch(() => {});
  event.waitUntil(queue);
});

const absolute = (path) => new URL(path, self.location.origin).href;

/** What a cook page says it shows (app/lib/service-worker.ts), or null. */
function cookShown(cook) {
  if (!cook || typeof cook !== "object" || typeof cook.recipe !== "string" || !RECIPE_PAGE.test(cook.recipe)) return null;
  if (!Number.isInteger(cook.steps) || cook.steps < 0 || cook.steps > MAX_COOK_STEPS || typeof cook.version !== "string") return null;
  return { recipe: cook.recipe, steps: cook.steps, version: cook.version.slice(0, 32) };
}

async function readState(cache) {
  const stored = await cache.match(STATE_KEY);
  if (!stored) return { owner: null, pages: {}, cook: {} };
  try {
    const state = await stored.json();
    if (!state || typeof state.pages !== "object") return { owner: null, pages: {}, cook: {} };
    // Per kept recipe, the steps and version its kept cook pages show.
    if (!state.cook || typeof state.cook !== "object") state.cook = {};
    return state;
  } catch {
    return { owner: null, pages: {}, cook: {} };
  }
}

function writeState(cache, state) {
  known = urlsOf(state);
  return cache.put(STATE_KEY, new Response(JSON.stringify(state), { headers: { "Content-Type": "application/json" } }));
}

async function sync(user, saved, shoppingShown = false, cook = null) {
  let cache = await caches.open(SAVED_CACHE);
  let state = await readState(cache);
  if (state.owner !== user) {
    // Another user, or nobody (signed out): nothing of the previous user's may stay.
    await caches.delete(SAVED_CACHE);
    known = urlsOf({ pages: {} });
    if (user === null) return;
    cache = await caches.open(SAVED_CACHE);
    state = { owner: user, pages: {}, cook: {} };
    await writeState(cache, state);
  }
  if (user === null) return;
  state.confirmedAt = Date.now();
  await writeState(cache, state);
  // The shopping list is kept from the first page a signed-in user opens, and taken again whenever
  // the page shows a changed list (the app says so) or is opened online: in the shop it is there
  // without a connection, as last seen.
  const shopping = absolute(SHOPPING_PAGE);
  if (!state.pages[shopping] || shoppingShown) {
    const assets = await storePage(cache, shopping);
    if (assets) {
      state.pages[shopping] = assets;
      await writeState(cache, state);
    }
  }
  // A cook page shown online: its kept copies are taken again when the recipe changed since.
  if (cook) {
    const recipe = absolute(cook.recipe);
    const kept = state.cook[recipe];
    if (state.pages[recipe] && (!kept || kept.steps !== cook.steps || kept.version !== cook.version)) {
      await storeCookPages(cache, state, recipe);
      await dropUnused(cache, state);
      await writeState(cache, state);
    }
  }
  if (saved === null) return;

  const wanted = new Set([absolute(SAVED_PAGE), shopping, ...saved.map(absolute)]);
  for (const url of wanted) {
    // New pages are fetched once; kept ones refresh whenever they are opened online (below).
    if (state.pages[url] && !LIST_PAGES.has(new URL(url).pathname)) continue;
    const assets = await storePage(cache, url);
    if (assets) state.pages[url] = assets;
  }
  for (const url of Object.keys(state.pages)) {
    if (wanted.has(url) || wanted.has(recipeOfCook(url))) continue;
    delete state.pages[url];
    await cache.delete(url);
  }
  for (const url of Object.keys(state.cook)) {
    if (!wanted.has(url)) delete state.cook[url];
  }
  await dropUnused(cache, state);
  // Written before the cook pages are taken: the recipe pages (and their photos) answer offline at once.
  await writeState(cache, state);

  // Each saved recipe's cook pages, taken once (and again when a cook page shows a change, above).
  let added = false;
  for (const url of wanted) {
    if (!RECIPE_PAGE.test(new URL(url).pathname) || !state.pages[url] || state.cook[url]) continue;
    await storeCookPages(cache, state, url);
    await writeState(cache, state);
    added = true;
  }
  if (added) {
    await dropUnused(cache, state);
    await writeState(cache, state);
  }
}

const cookUrl = (recipeUrl, step) => `${recipeUrl}/Cook?step=${step}`;

/** The recipe (absolute URL) of a kept cook page's URL, or null for any other URL. */
function recipeOfCook(url) {
  const at = url.indexOf("/Cook?step=");
  return at > 0 && RECIPE_PAGE.test(new URL(url.slice(0, at)).pathname) ? url.slice(0, at) : null;
}

/**
 * Keeps a recipe's cook pages, one per step: step 1 says how many there are (and the version of
 * what they show) in its `data-cook-steps` and `data-cook-version` attributes. Kept pages of steps
 * the recipe no longer has are dropped. The version is noted only when every step was kept, so
 * a set missing a page is taken again next time.
 */
async function storeCookPages(cache, state, recipeUrl) {
  const first = await fetchAndStore(cache, cookUrl(recipeUrl, 1));
  const steps = first ? /\sdata-cook-steps="(\d{1,4})"/.exec(first.html) : null;
  if (!first || !steps) return;
  const count = Math.min(Number(steps[1]), MAX_COOK_STEPS);
  const version = /\sdata-cook-version="([^"]{0,32})"/.exec(first.html)?.[1] ?? "";
  state.pages[cookUrl(recipeUrl, 1)] = first.assets;
  let complete = true;
  for (let step = 2; step <= count; step++) {
    const page = await fetchAndStore(cache, cookUrl(recipeUrl, step));
    if (page) state.pages[cookUrl(recipeUrl, step)] = page.assets;
    else complete = false;
  }
  const prefix = cookUrl(recipeUrl, "");
  for (const url of Object.keys(state.pages)) {
    if (url.startsWith(prefix) && Number(url.slice(prefix.length)) > Math.max(1, count)) {
      delete state.pages[url];
      await cache.delete(url);
    }
  }
  if (complete) state.cook[recipeUrl] = { steps: count, version };
  else delete state.cook[recipeUrl];
}

/** Fetches a page (with the user's cookie) and what it needs; returns the asset list, or null. */
async function storePage(cache, url, response) {
  return (await fetchAndStore(cache, url, response))?.assets ?? null;
}

/** storePage, also giving the page's HTML; null when nothing was kept. */
async function fetchAndStore(cache, url, response) {
  const { pathname } = new URL(url);
  if (!LIST_PAGES.has(pathname) && !RECIPE_PAGE.test(pathname) && !COOK_PAGE.test(pathname)) return null;
  try {
    response ??= await fetch(url, { credentials: "same-origin", cache: "no-cache", headers: { Accept: "text/html" } });
  } catch {
    return null;
  }
  // A redirect (to Login, when the session is gone) or an error page is not the user's page.
  if (!response.ok || response.redirected || !(response.headers.get("Content-Type") || "").includes("text/html")) return null;
  const html = await response.clone().text();
  await cache.put(url, response);
  const assets = assetsOf(html, url, await readsAvif());
  await Promise.all(assets.map((asset) => storeAsset(cache, asset)));
  return { assets, html };
}

async function storeAsset(cache, url) {
  if (await cache.match(url, { ignoreVary: true })) return;
  const sameOrigin = new URL(url).origin === self.location.origin;
  try {
    // Photos on other sites (the sample recipes') can only be kept as opaque answers.
    const response = await fetch(url, sameOrigin ? { credentials: "same-origin" } : { mode: "no-cors", credentials: "omit" });
    if (response.ok || response.type === "opaque") await cache.put(url, response);
  } catch {
    // Offline or refused: the page still reads without it.
  }
}

function attribute(tag, name) {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, "i").exec(tag);
  return match ? (match[1] ?? match[2] ?? "").replace(/&amp;/g, "&") : null;
}

/** A 1×1 AVIF picture: whether this browser can decode it. */
const TINY_AVIF =
  "AAAAHGZ0eXBhdmlmAAAAAG1pZjFhdmlmbWlhZgAAANZtZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAAAAAACJpbG9jAAAAAERAAAEAAQAAAAAA+gABAAAAAAAAAB0AAAAjaWluZgAAAAAAAQAAABVpbmZlAgAAAAABAABhdjAxAAAAAA5waXRtAAAAAAABAAAAVmlwcnAAAAA4aXBjbwAAAAxhdjFDgSACAAAAABRpc3BlAAAAAAAAAAEAAAABAAAAEHBpeGkAAAAAAwgICAAAABZpcG1hAAAAAAAAAAEAAQOBAgMAAAAlbWRhdBIACgc4AAaQENBpMhAZQmMEwAA0AACQQMkcYIpq";
let avifDecoded = null;

/** Whether this browser shows AVIF pictures (asked once). */
function readsAvif() {
  avifDecoded ??= (async () => {
    try {
      const bytes = Uint8Array.from(atob(TINY_AVIF), (c) => c.charCodeAt(0));
      (await createImageBitmap(new Blob([bytes], { type: "image/avif" }))).close();
      return true;
    } catch {
      return false;
    }
  })();
  return avifDecoded;
}

/**
 * The styles, scripts, icons and pictures a page's HTML refers to. Of a photo offered in two
 * formats (a <picture> with an AVIF <source> before its WebP <img>), only the AVIF copies where
 * this browser decodes AVIF (it never asks for the WebP ones); both where it may not (a browser
 * whose worker cannot tell might still pick the AVIF source).
 */
function assetsOf(html, pageUrl, avif) {
  const found = new Set();
  const add = (raw, crossOriginAllowed) => {
    if (!raw || found.size >= MAX_ASSETS_PER_PAGE) return;
    let url;
    try {
      url = new URL(raw.trim(), pageUrl);
    } catch {
      return;
    }
    if (url.origin === self.location.origin) {
      if (PAGE_ASSET.test(url.pathname)) found.add(url.href);
    } else if (crossOriginAllowed && url.protocol === "https:") {
      found.add(url.href);
    }
  };
  // Inside a <picture> whose first choice is AVIF.
  let avifPicture = false;
  for (const [tag, name] of html.matchAll(/<(\/?picture|link|script|img|source)\b[^>]*>/gi)) {
    const kind = name.toLowerCase();
    if (kind === "picture" || kind === "/picture") {
      avifPicture = false;
      continue;
    }
    if (kind === "source" && /^image\/avif$/i.test(attribute(tag, "type") || "")) {
      avifPicture = true;
    } else if (kind === "img" && avifPicture && avif) {
      continue;
    }
    if (kind === "link") {
      const rel = (attribute(tag, "rel") || "").toLowerCase();
      if (/\b(?:stylesheet|modulepreload|preload|icon)\b/.test(rel)) add(attribute(tag, "href"), false);
    } else {
      add(attribute(tag, "src"), kind === "img" || kind === "source");
      const srcset = attribute(tag, "srcset");
      if (srcset) for (const candidate of srcset.split(",")) add(candidate.trim().split(/\s+/)[0], true);
    }
  }
  // The route modules Remix's inline script imports.
  for (const match of html.matchAll(/["'](\/build\/[^"'\s]+\.(?:js|css))["']/g)) add(match[1], false);
  return [...found];
}

async function dropUnused(cache, state) {
  const keep = new Set([absolute(STATE_KEY)]);
  for (const [page, assets] of Object.entries(state.pages)) {
    keep.add(page);
    for (const asset of assets) keep.add(asset);
  }
  for (const request of await cache.keys()) {
    if (!keep.has(request.url)) await cache.delete(request);
  }
}

// ------------------------------------------------------------------------------------------------
// Answering requests

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  const sameOrigin = url.origin === self.location.origin;
  if (sameOrigin && (url.pathname.startsWith("/api/") || url.pathname === "/sw.js")) return;

  if (request.mode === "navigate") {
    event.respondWith(navigate(event, request, url));
  } else if (known.has(url.href)) {
    if (sameOrigin && url.pathname.startsWith("/build/")) {
      // Build files never change under one name: the kept copy is as good as the network's.
      event.respondWith(caches.match(request, { ignoreVary: true }).then((hit) => hit || fetch(request)));
    } else {
      event.respondWith(fromNetworkElseCache(request));
    }
  }
  // Anything else (other pages' data, /api, uploads of pages not kept, …): not answered here.
});

async function fromNetworkElseCache(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const hit = await caches.match(request, { ignoreVary: true });
    if (hit) return hit;
    throw error;
  }
}

async function navigate(event, request, url) {
  try {
    const response = await fetch(request);
    // Opened online: a page the cache keeps is refreshed with what the network just gave.
    const kept = ((LIST_PAGES.has(url.pathname) || RECIPE_PAGE.test(url.pathname)) && !url.search) || (COOK_PAGE.test(url.pathname) && known.has(url.href));
    if (response.ok && !response.redirected && kept) {
      event.waitUntil(refresh(url.href, response.clone()));
    }
    return response;
  } catch {
    await knownReady; // the page's styles and photos come next: the worker must know them by then
    const saved = await caches.open(SAVED_CACHE);
    const state = await readState(saved);
    const confirmed = state.owner !== null && typeof state.confirmedAt === "number" && Date.now() - state.confirmedAt < SESSION_MS;
    const hit = confirmed ? await keptPage(saved, state, request, url) : undefined;
    if (hit) return hit;
    const offline = await caches.match("/offline.html");
    return offline || new Response("You are offline.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}

/**
 * The kept copy answering a page asked for offline. A cook address is answered with the kept page
 * of its step (at the recipe's own amounts: the copies are taken without `serves` or `scale`); a
 * step past the last, with the last.
 */
async function keptPage(cache, state, request, url) {
  if (COOK_PAGE.test(url.pathname)) {
    const recipe = `${url.origin}${url.pathname.slice(0, -"/Cook".length)}`;
    const asked = Math.round(Number(url.searchParams.get("step")));
    const step = Number.isFinite(asked) && asked >= 1 ? asked : 1;
    const last = state.cook[recipe]?.steps;
    const kept = (at) => cache.match(cookUrl(recipe, at), { ignoreVary: true });
    return (await kept(step)) || (last && step > last ? await kept(last) : undefined) || kept(1);
  }
  return cache.match(request, { ignoreSearch: RECIPE_PAGE.test(url.pathname), ignoreVary: true });
}

function refresh(url, response) {
  queue = queue
    .then(async () => {
      const cache = await caches.open(SAVED_CACHE);
      const state = await readState(cache);
      if (!state.owner || !state.pages[url]) return;
      const assets = await storePage(cache, url, response);
      if (!assets) return;
      state.pages[url] = assets;
      await dropUnused(cache, state);
      await writeState(cache, state);
    })
    .catch(() => {});
  return queue;
}
