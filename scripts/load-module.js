// Loads TypeScript modules of the project (the app's server modules with their `~/` imports, the
// seeder) into a script without the Remix build: esbuild bundles `contents` inside the project, so
// bare imports (kysely, better-sqlite3, zod) resolve from node_modules at run time, and the result
// is imported. Used by the prepare step (migrate and seed) and the bench scripts. Set DATABASE_PATH
// and the other environment variables before calling: db/connection.server opens and migrates the database
// when it loads.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import esbuild from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Bundles the module text `contents` (resolved from the project root) and imports it.
 * The module's shape is whatever `contents` exports: callers that use it type what they take.
 * @param {string} name Names the bundle (its cache folder and file).
 * @param {string} contents TypeScript module text; `~/` is the app.
 * @returns {Promise<any>} The bundle's module namespace.
 */
export async function loadModule(name, contents) {
  const outDir = path.join(root, "node_modules", ".cache", `recipals-${name}`);
  const outFile = path.join(outDir, `${name}-${process.pid}.mjs`);
  fs.mkdirSync(outDir, { recursive: true });
  await esbuild.build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    plugins: [
      {
        // Packages load from node_modules at run time (better-sqlite3 is native); `~/` is the app.
        name: "externals",
        setup(build) {
          build.onResolve({ filter: /^~\// }, (args) =>
            build.resolve(`./${args.path.slice(2)}`, { resolveDir: path.join(root, "app"), kind: args.kind }),
          );
          build.onResolve({ filter: /^[^./~]/ }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
    outfile: outFile,
    logLevel: "warning",
  });
  try {
    return await import(pathToFileURL(outFile).href);
  } finally {
    fs.rmSync(outFile, { force: true });
  }
}
