// The operator's command line: `npm run admin -- <command>` (docs/operator-guide.md#admin-command-line).
// The commands are app/server/ops/admin-commands.server.ts, bundled here from their TypeScript
// with the app's modules they use; loading db/connection.server opens and migrates the configured
// database (DATABASE_PATH, or DATABASE_URL), as every start does.
import { loadModule } from "./load-module.js";
import { redactUrl } from "./redact-url.js";

const admin = await loadModule(
  "admin",
  `
    export { closeDatabaseHandle, db } from "~/server/db/connection.server";
    export { runAdminCommand } from "~/server/ops/admin-commands.server";
  `,
).catch(cannotStart);

/**
 * A database that cannot be reached or a wrong setting ends with one line that says why and exit
 * code 1, as the prepare step does (scripts/prepare.js).
 * @param {Error} error What loading the commands and the app's modules failed with.
 * @returns {never}
 */
function cannotStart(error) {
  const known = error?.name === "DatabaseUnavailableError" || /^Invalid environment:/.test(error?.message ?? "");
  if (!known) throw error;
  const where = process.env.DATABASE_URL ? ` (DATABASE_URL ${redactUrl(process.env.DATABASE_URL)})` : "";
  console.error(`ReciPals admin cannot start: ${error.message}${error.name === "DatabaseUnavailableError" ? where : ""}`);
  process.exit(1);
}

let code = 1;
try {
  code = await admin.runAdminCommand(process.argv.slice(2));
} finally {
  await admin.closeDatabaseHandle(admin.db);
}
process.exit(code);
