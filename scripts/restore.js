// `npm run restore -- FILE [--force]`: puts a backup (an archive of `npm run backup`, or a SQLite
// file of the older kind) back into the configured database (DATABASE_PATH or DATABASE_URL) and
// image store, then checks it against the backup's manifest and says what it restored
// (app/server/ops/backup.server.ts; docs/operator-guide.md, "Backups").
//
// The database and the store must be empty. With --force a non-empty one is replaced, after what
// it holds has been written to BACKUP_DIR as recipals-before-restore-<timestamp>.zip (undo). A
// SQLite database that a server has open is never replaced (on Linux every process's open files
// are looked at; where there is no /proc, --force says the server is stopped). A damaged or
// foreign file is refused before anything changes.
import { copyDatabase } from "./db-copy.js";
import { loadModule } from "./load-module.js";

const USAGE = "usage: npm run restore -- FILE [--force]";
const args = process.argv.slice(2);
const force = args.includes("--force");
const unknown = args.filter((arg) => arg.startsWith("--") && arg !== "--force");
const files = args.filter((arg) => !arg.startsWith("--"));

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(`Restore refused: ${message}`);
  process.exit(1);
}

if (unknown.length > 0) fail(`unknown option ${unknown.join(", ")} (${USAGE})`);
if (files.length !== 1) fail(`name one backup file (${USAGE})`);

/** @type {typeof import("~/server/ops/backup.server") & typeof import("~/server/db/connection.server") & { backupDir: () => string }} */
const app = await loadModule(
  "restore",
  `export { BackupRefused, restoreBackup } from "~/server/ops/backup.server";
   export { closeDatabaseHandle, db, databaseLocation } from "~/server/db/connection.server";
   export { backupDir } from "~/server/env.server";`,
).catch((/** @type {Error} */ error) => fail(error.message));

try {
  // This process's own handle (opened when the app's modules load) must not hold the file.
  await app.closeDatabaseHandle(app.db);
  const { manifest, undo, tables, photos, ms } = await app.restoreBackup({ file: /** @type {string} */ (files[0]), force, undoDir: app.backupDir(), copyIntoPostgres: copyDatabase });
  const location = app.databaseLocation();
  const main = ["users", "recipes", "posts", "comments", "likes", "follows"].map((table) => `${tables[table] ?? 0} ${table}`).join(", ");
  const rows = Object.values(tables).reduce((sum, n) => sum + n, 0);
  console.log(
    `Restored ${files[0]} (made ${manifest.createdAt} from ${manifest.source.engine}) into ${location.engine === "sqlite" ? location.path : "PostgreSQL"}: ` +
      `${rows} rows in ${Object.keys(tables).length} tables (${main}) and ${photos.present} photos (${photos.written} written, ${(photos.bytes / 1024 / 1024).toFixed(1)} MB), ` +
      `all matching the manifest, in ${(ms / 1000).toFixed(1)} s.${undo ? ` What was there before is kept as ${undo}.` : ""} Start the server again.`,
  );
} catch (error) {
  fail(/** @type {Error} */ (error).message);
}
