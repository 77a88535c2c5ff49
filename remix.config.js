// RECIPALS_BUILD_DIR lets parallel test runs on one machine build side by side.
const buildDir = process.env.RECIPALS_BUILD_DIR ?? "build";

/**
 * Where a build's browser files go: `public/build` for the default build (served from
 * public/), `<build>/assets` for any other (tests/support/server/server.ts serves those).
 * @param {string} dir
 */
export function assetsDirectoryFor(dir) {
  return dir === "build" ? "public/build" : `${dir}/assets`;
}

/** @type {import('@remix-run/dev').AppConfig} */
export default {
  serverBuildPath: `${buildDir}/index.js`,
  assetsBuildDirectory: assetsDirectoryFor(buildDir),
  ignoredRouteFiles: ["**/.*", "**/*.test.{ts,tsx}", "**/*.css"],
  serverModuleFormat: "esm",
  serverDependenciesToBundle: [],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: true,
  },
};
