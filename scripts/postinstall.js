// npm install runs this: applies our patches of dependencies (patches/, see its README) with
// patch-package. A production install without dev dependencies has neither patch-package nor
// the patched packages (all are build tools), so it has nothing to patch.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let bin;
try {
  bin = require.resolve("patch-package/index.js");
} catch {
  console.log("postinstall: patch-package is not installed (no dev dependencies): nothing to patch.");
  process.exit(0);
}
const result = spawnSync(process.execPath, [bin, "--error-on-fail"], { stdio: "inherit" });
process.exit(result.status ?? 1);
