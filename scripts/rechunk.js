// The build's second pass over the browser's scripts: fewer, larger shared modules
// (docs/rules.md#first-paint).
//
// Remix's compiler splits the shared code by the exact set of routes that use it, so a page
// loads one small module for each such set: Home loaded 22 modules, 17 of them shared chunks of
// 57 bytes to 5 KB. On a slow phone each module costs the page a task of its own when its
// response arrives (about 1.5 ms of work, then 15-20 ms until it is compiled; four times as long
// on Lighthouse's phone), whatever its size. The compiler does not let us choose its chunks, so
// this pass bundles its output again with Rollup, with the shared chunks regrouped
// (groupShared below: small ones merged where that adds little unused code to any page), and
// writes the new module names into both copies of the assets manifest: the browser's manifest
// script, and the server build, which lists a page's modules and answers the browser's questions
// about routes it has not loaded yet.
import fs from "node:fs";
import path from "node:path";

import { rollup } from "rollup";
import { minify } from "terser";

/** A group of shared modules smaller than this is merged into another one, where that costs little. */
export const MIN_CHUNK_BYTES = 16 * 1024;

/** The most code (bytes, before compression) a merge may add to any page that does not use it. */
export const MAX_UNUSED_BYTES = 8 * 1024;

/** How the second pass minifies: safe compressions only (no `unsafe*`, no `pure_getters`). */
const TERSER_OPTIONS = /** @type {import("terser").MinifyOptions} */ ({
  module: true,
  compress: { passes: 2 },
  mangle: true,
  format: { comments: false },
});

/** The compiler's hash at the end of a module's name ("root-NSHGQCBT" → "root"). */
const HASH_SUFFIX = /-[A-Z0-9]{8}$/;

/**
 * @typedef {{ module: string, imports?: string[] }} ManifestEntry
 * @typedef {ManifestEntry & { parentId?: string }} ManifestRoute
 * @typedef {{ entry: ManifestEntry, routes: Record<string, ManifestRoute>, url: string, version: string }} AssetsManifest
 */

/**
 * The manifest the compiler wrote for the browser (`manifest-<version>.js`).
 * @param {string} assetsDir
 * @returns {{ file: string, manifest: AssetsManifest }}
 */
function readManifest(assetsDir) {
  const name = fs.readdirSync(assetsDir).find((file) => /^manifest-[\w]+\.js$/.test(file));
  if (!name) throw new Error(`no assets manifest in ${assetsDir}`);
  const file = path.join(assetsDir, name);
  const text = fs.readFileSync(file, "utf8");
  const json = /^window\.__remixManifest=(\{.*\});?\s*$/s.exec(text)?.[1];
  if (!json) throw new Error(`${file} is not a manifest script`);
  return { file, manifest: JSON.parse(json) };
}

/**
 * Bundles the compiler's scripts in `assetsDir` again with fewer shared chunks, replaces them,
 * and rewrites the manifest in `assetsDir` and in the server build `serverBuildFile` to match.
 * Returns how many scripts there were before and after.
 * @param {string} assetsDir the compiler's assets directory (`public/build`, or `<build>/assets`)
 * @param {string} serverBuildFile the server build (`build/index.js`)
 * @param {{ minChunkBytes?: number, maxUnusedBytes?: number }} [options]
 * @returns {Promise<{ before: number, after: number }>}
 */
export async function rechunk(assetsDir, serverBuildFile, { minChunkBytes = MIN_CHUNK_BYTES, maxUnusedBytes = MAX_UNUSED_BYTES } = {}) {
  const { file: manifestFile, manifest } = readManifest(assetsDir);
  const publicPath = manifest.url.slice(0, manifest.url.lastIndexOf("/") + 1);
  const fileOf = (/** @type {string} */ url) => {
    if (!url.startsWith(publicPath)) throw new Error(`${url} is not under ${publicPath}`);
    return path.join(assetsDir, url.slice(publicPath.length));
  };
  const nameOf = (/** @type {string} */ url) => url.slice(publicPath.length).replace(/\.js$/, "").replace(HASH_SUFFIX, "");

  /** @type {Record<string, string>} */
  const input = {};
  for (const entry of [manifest.entry, ...Object.values(manifest.routes)]) input[nameOf(entry.module)] = fileOf(entry.module);

  // What each page loads: the client entry, then its route and the routes above it.
  const pages = Object.values(manifest.routes).map((route) => {
    const files = [fileOf(manifest.entry.module)];
    for (let at = /** @type {ManifestRoute | undefined} */ (route); at; at = at.parentId ? manifest.routes[at.parentId] : undefined) files.push(fileOf(at.module));
    return files;
  });
  /** @type {Map<string, string> | undefined} */
  let groups;

  const oldScripts = scriptsUnder(assetsDir);
  const bundle = await rollup({
    input,
    // The compiler's modules import each other by URL ("/build/_shared/chunk-X.js").
    plugins: [{ name: "assets-urls", resolveId: (source) => (source.startsWith(publicPath) ? fileOf(source) : null) }],
    // Keep every export of a route module: Remix reads them by name.
    preserveEntrySignatures: "strict",
    onwarn(warning, warn) {
      // A route's `import()` of a URL made at run time (Remix's route loading) stays as it is.
      if (warning.code === "UNRESOLVED_IMPORT" || warning.code === "EMPTY_BUNDLE") return;
      warn(warning);
    },
  });
  const outDir = fs.mkdtempSync(path.join(path.dirname(assetsDir), ".rechunk-"));
  try {
    const { output } = await bundle.write({
      dir: outDir,
      format: "es",
      entryFileNames: "[name]-[hash].js",
      chunkFileNames: (chunk) => `_shared/${chunk.name.replace(HASH_SUFFIX, "").replace(/-(?:group|large)\d+$/, "")}-[hash].js`,
      manualChunks(id, { getModuleIds, getModuleInfo }) {
        groups ??= groupShared(
          [...getModuleIds()].map((moduleId) => {
            const info = getModuleInfo(moduleId);
            return { id: moduleId, bytes: info?.code?.length ?? 0, imports: [...(info?.importedIds ?? [])], isEntry: Boolean(info?.isEntry) };
          }),
          pages,
          { minChunkBytes, maxUnusedBytes },
        );
        return groups.get(id);
      },
      compact: true,
      generatedCode: "es2015",
    });
    await bundle.close();
    /** @type {Map<string, import("rollup").OutputChunk>} */
    const chunks = new Map();
    for (const item of output) if (item.type === "chunk") chunks.set(item.fileName, item);
    // Rollup keeps the compiler's minified code but writes its own joins and renamings at full
    // length, so every script is minified once more, by Terser: two compression passes and
    // module-wide renaming take 4% off the framework's gzip size where esbuild's minifier took
    // none (docs/decisions/0009-terser-and-zopfli.md). The names keep Rollup's hash of the code
    // before: with Terser's version pinned, the same code still gives the same bytes, so a name
    // cached as immutable never changes meaning.
    for (const chunk of chunks.values()) {
      const file = path.join(outDir, chunk.fileName);
      const { code } = await minify(fs.readFileSync(file, "utf8"), TERSER_OPTIONS);
      if (code === undefined) throw new Error(`Terser returned nothing for ${chunk.fileName}`);
      fs.writeFileSync(file, code);
    }

    /** Every module `fileName` imports statically, directly or not. */
    const importsOf = (/** @type {string} */ fileName, seen = new Set()) => {
      for (const imported of chunks.get(fileName)?.imports ?? []) {
        if (seen.has(imported)) continue;
        seen.add(imported);
        importsOf(imported, seen);
      }
      return seen;
    };
    /** The new module of an entry of the manifest. */
    const chunkOf = (/** @type {ManifestEntry} */ entry) => {
      const file = fileOf(entry.module);
      const chunk = [...chunks.values()].find((candidate) => candidate.isEntry && candidate.facadeModuleId === file);
      if (!chunk) throw new Error(`the second pass lost ${entry.module}`);
      return chunk;
    };
    const entryImports = importsOf(chunkOf(manifest.entry).fileName);
    /** Each old module's URL → the new module and the modules it imports (URLs). */
    /** @type {Map<string, { module: string, imports: string[] | undefined }>} */
    const moved = new Map();
    for (const entry of [manifest.entry, ...Object.values(manifest.routes)]) {
      const chunk = chunkOf(entry);
      // A route lists the modules the client entry does not already bring, as the compiler does.
      const imports = [...importsOf(chunk.fileName)].filter((imported) => entry === manifest.entry || !entryImports.has(imported));
      moved.set(entry.module, { module: publicPath + chunk.fileName, imports: imports.length ? imports.map((imported) => publicPath + imported) : undefined });
    }

    // The server build holds the same manifest as an object literal, one `module: "…", imports:
    // […]` pair per route; each old module name occurs there once.
    let server = fs.readFileSync(serverBuildFile, "utf8");
    server = server.replace(/module: "([^"]+)", imports: (?:\[[^\]]*\]|void 0)/g, (pair, oldModule) => {
      const next = moved.get(oldModule);
      if (!next) return pair;
      return `module: ${JSON.stringify(next.module)}, imports: ${next.imports ? JSON.stringify(next.imports) : "void 0"}`;
    });
    for (const oldModule of moved.keys()) {
      if (server.includes(JSON.stringify(oldModule))) throw new Error(`${serverBuildFile} still names ${oldModule}`);
    }
    for (const entry of [manifest.entry, ...Object.values(manifest.routes)]) Object.assign(entry, moved.get(entry.module));

    // The new scripts first, then the manifests naming them, then the old scripts go: a build
    // stopped half-way still names scripts that exist.
    for (const chunk of chunks.values()) {
      fs.mkdirSync(path.dirname(path.join(assetsDir, chunk.fileName)), { recursive: true });
      fs.renameSync(path.join(outDir, chunk.fileName), path.join(assetsDir, chunk.fileName));
    }
    fs.writeFileSync(manifestFile, `window.__remixManifest=${JSON.stringify(manifest)};`);
    fs.writeFileSync(serverBuildFile, server);
    for (const script of oldScripts) if (!chunks.has(script.split(path.sep).join("/"))) fs.rmSync(path.join(assetsDir, script));
    return { before: oldScripts.length, after: chunks.size };
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

/**
 * The compiler's scripts under `dir` (its paths relative to `dir`), without the manifest.
 * @param {string} dir
 * @returns {string[]}
 */
function scriptsUnder(dir) {
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".js") && !/^manifest-[\w]+\.js$/.test(file))
    .filter((file) => fs.statSync(path.join(dir, file)).isFile());
}

/**
 * @typedef {{ id: string, bytes: number, imports: string[], isEntry: boolean }} ModuleNode
 * @typedef {{ name: string, pages: bigint, bytes: number, ids: string[], fixed: boolean }} Group
 */

/**
 * Which shared chunk each shared module goes into (its name for Rollup's `manualChunks`).
 *
 * A shared module starts in the group of the modules used by exactly the same entries (the
 * compiler's chunks). Then, while a group is smaller than `minChunkBytes`, it is merged with the
 * group that adds the least unused code to the pages that load only one of the two, as long as no
 * page then loads more than `maxUnusedBytes` of code it does not use, and no two chunks would
 * import each other, directly or through others (the compiler's modules run code from the chunks
 * they import as they load, so each must be loaded and run before the ones that import it).
 * A module as large as a chunk should be keeps a chunk of its own. A module only one entry uses is
 * left to Rollup, which puts it in that entry's module; so is one no page loads at first (a module
 * a page imports only when it needs it).
 * @param {ModuleNode[]} modules every module of the bundle
 * @param {string[][]} pages for each page, the entries (module ids) it loads
 * @param {{ minChunkBytes: number, maxUnusedBytes: number }} limits
 * @returns {Map<string, string>}
 */
export function groupShared(modules, pages, { minChunkBytes, maxUnusedBytes }) {
  const byId = new Map(modules.map((node) => [node.id, node]));
  /** For each shared module, the pages that load it (a bit per page) and the entries that use it. */
  /** @type {Map<string, { pages: bigint, entries: string[] }>} */
  const usage = new Map();
  /** @type {Map<string, Set<string>>} */
  const reach = new Map();
  for (const node of modules) {
    if (!node.isEntry) continue;
    const seen = new Set();
    const stack = [...node.imports];
    while (stack.length) {
      const id = /** @type {string} */ (stack.pop());
      const next = byId.get(id);
      if (!next || next.isEntry || seen.has(id)) continue;
      seen.add(id);
      stack.push(...next.imports);
    }
    reach.set(node.id, seen);
    for (const id of seen) {
      const used = usage.get(id) ?? { pages: 0n, entries: [] };
      used.entries.push(node.id);
      usage.set(id, used);
    }
  }
  pages.forEach((entries, index) => {
    const bit = 1n << BigInt(index);
    for (const entry of entries) for (const id of reach.get(entry) ?? []) /** @type {{ pages: bigint }} */ (usage.get(id)).pages |= bit;
  });

  /** @type {Group[]} */
  const groups = [];
  /** @type {Map<string, Group>} */
  const byEntries = new Map();
  for (const [id, { pages: used, entries }] of usage) {
    if (entries.length < 2 || used === 0n) continue;
    const bytes = byId.get(id)?.bytes ?? 0;
    if (bytes >= minChunkBytes) {
      groups.push({ name: `chunk-large${groups.length}`, pages: used, bytes, ids: [id], fixed: true });
      continue;
    }
    const key = entries.join("\n");
    let group = byEntries.get(key);
    if (!group) {
      group = { name: `chunk-group${groups.length}`, pages: used, bytes: 0, ids: [], fixed: false };
      byEntries.set(key, group);
      groups.push(group);
    }
    group.bytes += bytes;
    group.ids.push(id);
  }
  /** @type {Map<string, Group>} */
  const groupOf = new Map();
  for (const group of groups) for (const id of group.ids) groupOf.set(id, group);
  /** The groups `group` imports from. */
  const importsOf = (/** @type {Group} */ group) => {
    const imported = new Set();
    for (const id of group.ids) {
      for (const target of byId.get(id)?.imports ?? []) {
        const other = groupOf.get(target);
        if (other && other !== group) imported.add(other);
      }
    }
    return imported;
  };
  /** Whether `from` imports `to` through at least one other group. */
  const importsThroughOthers = (/** @type {Group} */ from, /** @type {Group} */ to) => {
    const seen = new Set([from]);
    const stack = [...importsOf(from)].filter((group) => group !== to);
    while (stack.length) {
      const group = /** @type {Group} */ (stack.pop());
      if (group === to) return true;
      if (seen.has(group)) continue;
      seen.add(group);
      stack.push(...importsOf(group));
    }
    return false;
  };

  const unused = pages.map(() => 0);
  /** The unused bytes each page would gain from merging `a` and `b`, or undefined past the limit. */
  const costOf = (/** @type {Group} */ a, /** @type {Group} */ b) => {
    const added = pages.map((_, index) => {
      const bit = 1n << BigInt(index);
      const inA = (a.pages & bit) !== 0n;
      const inB = (b.pages & bit) !== 0n;
      return inA === inB ? 0 : inA ? b.bytes : a.bytes;
    });
    return added.every((bytes, index) => (unused[index] ?? 0) + bytes <= maxUnusedBytes) ? added : undefined;
  };
  for (;;) {
    /** @type {{ from: Group, into: Group, added: number[], total: number } | undefined} */
    let best;
    for (const from of groups) {
      if (from.bytes >= minChunkBytes) continue;
      for (const into of groups) {
        if (into === from || into.fixed) continue;
        const added = costOf(from, into);
        if (!added) continue;
        const total = added.reduce((sum, bytes) => sum + bytes, 0);
        if (best && total >= best.total) continue;
        if (importsThroughOthers(from, into) || importsThroughOthers(into, from)) continue;
        best = { from, into, added, total };
      }
    }
    if (!best) break;
    const { from, into, added } = best;
    added.forEach((bytes, index) => (unused[index] = (unused[index] ?? 0) + bytes));
    into.pages |= from.pages;
    into.bytes += from.bytes;
    into.ids.push(...from.ids);
    for (const id of from.ids) groupOf.set(id, into);
    groups.splice(groups.indexOf(from), 1);
  }
  return new Map([...groupOf].map(([id, group]) => [id, group.name]));
}
