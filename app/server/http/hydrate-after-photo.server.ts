// The page's scripts wait for its first photo (docs/rules.md#first-paint). Remix writes, at the end
// of <body>, a `modulepreload` link for every module of the page and one module script that
// imports them and hydrates; the browser fetches all of them at once, beside the first photo, and
// on a slow line they share it: about 100 KB of script (gzip) against a 40 KB photo. Every page
// works without JavaScript, so the photo may come first.
//
// The links and the module script go into two <template>s where they were (inert: nothing in a
// template is fetched or run), followed by a small script. Once the first photo (the one with
// fetchpriority="high") has arrived, or failed, it puts each template's copy in its place: at once
// when the page has none or it is already there; at the latest after HYDRATE_WAIT_MS, or at the
// first key press or touch. The links go back PRELOADS_PER_TASK at a time, one batch a task:
// starting a request costs the browser up to a few milliseconds, and twenty at once made one task
// of 35 ms in a Lighthouse trace (about 140 ms on a slow phone), long enough to hold back a tap.
// The module script goes last, with the final batch, so React never meets a half-restored list.
// (Module preloads do not hold the page's load event, so that may now come before the scripts:
// nothing waits for it but the service worker's registration.) The page then holds exactly what
// Remix wrote (the small script removes itself), so React hydrates the document it rendered. A
// copy, not the template's own nodes: a script the parser made would not run when moved.

/** The longest the scripts wait for the first photo. */
export const HYDRATE_WAIT_MS = 3000;

/** How many `modulepreload` links go back into the page in one task. */
export const PRELOADS_PER_TASK = 2;

const PRELOADS = /(?:<link rel="modulepreload" href="[^"<>]+"\/>)+/;
const MODULE_SCRIPT = /<script nonce="[^"<>]*" type="module" async="">[\s\S]*?<\/script>/g;

function gate(nonce: string): string {
  const start = [
    "(function(){",
    "document.currentScript.remove();",
    'var pre=document.getElementById("hydrate-preloads"),mod=document.getElementById("hydrate-modules");',
    "var go=function(){",
    "if(!pre)return;",
    "var t=pre,m=mod,links=[].slice.call(t.content.cloneNode(true).childNodes),c=new MessageChannel();pre=mod=null;",
    // One batch now, the rest a task each (a message, not a timer: no 4 ms clamp between them).
    `(c.port1.onmessage=function(){t.before.apply(t,links.splice(0,${PRELOADS_PER_TASK}));if(links.length)return c.port2.postMessage(0);t.remove();m.replaceWith(m.content.cloneNode(true))})();`,
    "};",
    'var photo=document.querySelector(\'img[fetchpriority="high"]\');',
    "if(!photo||photo.complete)return go();",
    '["load","error"].forEach(function(e){photo.addEventListener(e,go)});',
    `setTimeout(go,${HYDRATE_WAIT_MS});`,
    '["keydown","pointerdown","touchstart"].forEach(function(e){addEventListener(e,go,{once:true,passive:true,capture:true})});',
    "})()",
  ].join("");
  return `<script nonce="${nonce}">${start}</script>`;
}

/**
 * The document with its scripts behind the first photo. Unchanged when its scripts are not the
 * expected ones (one module script after one run of preload links): then it hydrates as Remix
 * wrote it.
 */
export function hydrateAfterFirstPhoto(html: string, nonce: string): string {
  const modules = html.match(MODULE_SCRIPT) ?? [];
  const preloads = PRELOADS.exec(html);
  if (modules.length !== 1 || !modules[0].includes(`nonce="${nonce}"`) || !preloads || preloads.index > html.indexOf(modules[0])) return html;
  return html
    .replace(preloads[0], () => `<template id="hydrate-preloads">${preloads[0]}</template>`)
    .replace(MODULE_SCRIPT, (module) => `<template id="hydrate-modules">${module}</template>${gate(nonce)}`);
}
