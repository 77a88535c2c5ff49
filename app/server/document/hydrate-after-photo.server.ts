// The page's scripts wait for its first photo (docs/rules.md#first-paint). Remix writes, at the end
// of <body>, a `modulepreload` link for every module of the page and one module script that
// imports them and hydrates; the browser fetches all of them at once, beside the first photo, and
// on a slow line they share it: about 100 KB of script (gzip) against a 40 KB photo. Every page
// works without JavaScript, so the photo may come first.
//
// The links stay where Remix wrote them, each with its kind in `data-rel` instead of `rel` (a
// link of no kind fetches nothing, and the browser does not warn of it as it does of a module link
// with no address). The module script goes into a <template> where it was (inert: nothing in a
// template runs), followed by a small script. Once the first photo (the one with
// fetchpriority="high") has arrived, or failed, and the page has been shown once, it puts the
// template's copy in its place (a copy: a script the parser made would not run when moved): at
// once when the page has no such photo; at the latest after HYDRATE_WAIT_MS, or at the first key
// press or touch. When the photo comes after the first paint, as it does on a slow line, that is
// within the photo's load event, so the page's own load event still waits for the scripts. When
// it comes first (from the cache, or a first frame the browser was slow to show), the scripts
// wait for the paint: run before it, their evaluation and hydration held the first paint back
// (in a third of Lighthouse's runs the first frame came ~1.2 s late, and the page's first paint
// and largest one were then counted after all of the scripts' work).
// Then it gives the links their kind back, LINKS_PER_TASK at a time in tasks of their own:
// starting a module's fetch costs the page about a millisecond, and twenty at once made one task
// of 20-40 ms in Lighthouse's traces. The module script finds its modules through its imports
// anyway; the links only let the deeper ones start sooner. The page keeps its shape throughout (a
// template for the module script only until hydration can start, links with or without their
// kind), so React hydrates the elements it rendered; a `rel` still missing is an attribute, which
// hydration leaves as it is.
//
// Tried and left: links put back from a template a few per task; with the module script after the
// last batch the load event came before the scripts (module preloads do not hold it), and with the
// module script first React, from a warm cache, met a half-restored list (hydration error 418).

/** The longest the scripts wait for the first photo. */
export const HYDRATE_WAIT_MS = 3000;

/** Module links given their kind back per task, once the module script is in. */
export const LINKS_PER_TASK = 2;

const PRELOAD = /<link rel="modulepreload" href="[^"<>]+"\/>/y;
const MODULE_SCRIPT_START = /<script nonce="[^"<>]*" type="module" async="">/y;
const MODULE_MARK = '" type="module" async="">';
const SCRIPT_END = "</script>";

function gate(nonce: string): string {
  const start = [
    "(function(){",
    "document.currentScript.remove();",
    'var t=document.getElementById("hydrate-modules");',
    'var links=[].slice.call(document.querySelectorAll("link[data-rel=modulepreload]"));',
    "var channel=new MessageChannel();",
    `channel.port1.onmessage=function(){links.splice(0,${LINKS_PER_TASK}).forEach(function(l){l.rel=l.dataset.rel});if(links.length)channel.port2.postMessage(0)};`,
    "var go=function(){if(!t)return;t.replaceWith(t.content.cloneNode(true));t=null;channel.port2.postMessage(0)};",
    // Not before the first paint: at once when it has been shown, else as soon as it is.
    "var ready=function(){",
    'if(!t||performance.getEntriesByType("paint").length||(PerformanceObserver.supportedEntryTypes||[]).indexOf("paint")<0)return go();',
    'var o=new PerformanceObserver(function(){o.disconnect();go()});o.observe({type:"paint"})};',
    'var photo=document.querySelector(\'img[fetchpriority="high"]\');',
    "if(!photo)return go();",
    "if(photo.complete)return ready();",
    // Within the photo's load event: the page's own load still waits for the scripts.
    '["load","error"].forEach(function(e){photo.addEventListener(e,ready)});',
    `setTimeout(go,${HYDRATE_WAIT_MS});`,
    '["keydown","pointerdown","touchstart"].forEach(function(e){addEventListener(e,go,{once:true,passive:true,capture:true})});',
    "})()",
  ].join("");
  return `<script nonce="${nonce}">${start}</script>`;
}

/** Where the page's one module script is (`<script nonce="…" type="module" async="">…</script>`); null when there is not exactly one. */
function moduleScript(html: string): { start: number; end: number } | null {
  const mark = html.indexOf(MODULE_MARK);
  if (mark < 0 || html.indexOf(MODULE_MARK, mark + MODULE_MARK.length) >= 0) return null;
  const start = html.lastIndexOf("<script nonce=", mark);
  if (start < 0) return null;
  MODULE_SCRIPT_START.lastIndex = start;
  const opening = MODULE_SCRIPT_START.exec(html);
  if (!opening || start + opening[0].length !== mark + MODULE_MARK.length) return null;
  const close = html.indexOf(SCRIPT_END, mark);
  return close < 0 ? null : { start, end: close + SCRIPT_END.length };
}

/**
 * The document with its scripts behind the first photo. Unchanged when its scripts are not the
 * expected ones (one module script after one run of preload links): then it hydrates as Remix
 * wrote it. Found by plain string search rather than regular expressions over the whole document
 * (a signed-in page's largest share of this step: a recipe's document is over 100 KB).
 */
export function hydrateAfterFirstPhoto(html: string, nonce: string): string {
  const module = moduleScript(html);
  if (!module || !html.startsWith(`<script nonce="${nonce}"`, module.start)) return html;
  const first = html.indexOf('<link rel="modulepreload" href="');
  if (first < 0 || first > module.start) return html;
  let end = first;
  for (;;) {
    PRELOAD.lastIndex = end;
    const link = PRELOAD.exec(html);
    if (!link) break;
    end += link[0].length;
  }
  if (end === first) return html;
  const preloads = html.slice(first, end).replaceAll('<link rel="', '<link data-rel="');
  return `${html.slice(0, first)}${preloads}${html.slice(end, module.start)}<template id="hydrate-modules">${html.slice(module.start, module.end)}</template>${gate(nonce)}${html.slice(module.end)}`;
}
