// Starts the production server (app/server/runtime/serve.server.ts) from the server build. Run by
// `npm start` after the build, migration and seed; with WEB_CONCURRENCY above 1, each cluster
// worker runs this file again.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const build = await import(pathToFileURL(path.join(root, process.env.RECIPALS_BUILD_DIR ?? "build", "index.js")).href);
await build.entry.module.serve(build, { workerScript: fileURLToPath(import.meta.url), root });
