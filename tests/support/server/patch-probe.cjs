/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload: require is its way to load */
// Preloaded into a server under test (`node --require …/patch-probe.cjs`): on SIGUSR1 it prints
// which copies of the patched packages the server loaded (paths, whether they hold our patch) and
// the route-matching and server-routes patches' counters, so a test can tell the patches are really running.
const fs = require("node:fs");

process.on("SIGUSR1", () => {
  const from = { paths: [process.cwd()] };
  const router = require.resolve("@remix-run/router", from);
  const data = require.resolve("@remix-run/server-runtime/dist/data.js", from);
  const patched = (/** @type {string} */ file) => fs.readFileSync(file, "utf8").includes("ReciPals patch");
  const loaded = Object.keys(require.cache);
  const stats = require(router).UNSAFE_recipalsRouteMatching?.stats ?? null;
  const reactServer = require.resolve("@remix-run/react/dist/server.js", from);
  const serverRoutes = loaded.includes(reactServer) ? (require(reactServer).UNSAFE_serverRoutesOf?.stats ?? null) : null;
  const report = { router, data, routerLoaded: loaded.includes(router), dataLoaded: loaded.includes(data), routerPatched: patched(router), dataPatched: patched(data), reactPatched: patched(reactServer), stats, serverRoutes };
  process.stdout.write(`PATCHES ${JSON.stringify(report)}\n`);
});
