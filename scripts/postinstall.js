// npm install runs this: applies our patches of dependencies (patches/, see its README) with
// patch-package, in every install, a production one (`npm install --omit=dev`) included: the
// patched router and server runtime serve pages. The compiler's patch (*.dev.patch) is skipped
// where the compiler is not installed.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let devInstalled = true;
try {
  require.resolve("@remix-run/dev/package.json");
} catch {
  devInstalled = false;
}
// patch-package skips a dev-only patch only when told it is a production install.
/** @type {NodeJS.ProcessEnv} */
const env = devInstalled ? process.env : { ...process.env, NODE_ENV: "production" };
const result = spawnSync(process.execPath, [require.resolve("patch-package/index.js"), "--error-on-fail"], { stdio: "inherit", env });
process.exit(result.status ?? 1);
