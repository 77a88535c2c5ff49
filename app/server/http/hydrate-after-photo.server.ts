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
// first key press or touch. It does so within the photo's load event, so the page's own load
// event still waits for the scripts (as it did). The page then holds exactly what Remix wrote (the
// small script removes itself), so React hydrates the document it rendered. A copy, not the
// template's own nodes: a script the parser made would not run when moved.
//
// All in one task, although twenty links cost one task of ~35 ms in a Lighthouse trace. Tried and
// left: links a few per task after the module script let React, with the modules in a warm cache,
// meet the half-restored list (hydration error 418); the module script after the last batch let
// the load event come before the scripts (module preloads do not hold it), and tests that typed
// after the load lost their text to hydration.

/** The longest the scripts wait for the first photo. */
export const HYDRATE_WAIT_MS = 3000;

const PRELOADS = /(?:<link rel="modulepreload" href="[^"<>]+"\/>)+/;
const MODULE_SCRIPT = /<script nonce="[^"<>]*" type="module" async="">[\s\S]*?<\/script>/g;

function gate(nonce: string): string {
  const start = [
    "(function(){",
    "document.currentScript.remove();",
    'var ts=["hydrate-preloads","hydrate-modules"].map(function(id){return document.getElementById(id)});',
    "var go=function(){ts.forEach(function(t){if(t)t.replaceWith(t.content.cloneNode(true))});ts=[]};",
    'var photo=document.querySelector(\'img[fetchpriority="high"]\');',
    "if(!photo||photo.complete)return go();",
    // Within the photo's load event: the page's own load still waits for the scripts.
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
