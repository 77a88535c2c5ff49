// `npm run backup [-- --out FILE]`: one archive of the whole community while the server keeps
// serving — a consistent snapshot of the database (SQLite or PostgreSQL), every stored photo (disk
// or S3) and a manifest of row counts and checksums (app/server/ops/backup.server.ts;
// docs/operator-guide.md, "Backups").
//
// Without --out the archive goes to BACKUP_DIR (default: a `backups` folder beside the SQLite
// database, so data/backups) as recipals-<UTC timestamp>.zip, and only the newest BACKUP_KEEP
// (default 7) are kept. An archive is written under a temporary name and renamed when whole.
import fs from "node:fs";
import path from "node:path";

import { loadModule } from "./load-module.js";

const USAGE = "usage: npm run backup [-- --out FILE]";
const BACKUP_NAME = /^recipals-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.zip$/;

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(`Backup failed: ${message}`);
  process.exit(1);
}

/** @returns {{ out: string | null }} */
function readArgs() {
  const args = process.argv.slice(2);
  /** @type {string | null} */
  let out = null;
  for (let i = 0; i < args.length; i += 1) {
    const arg = /** @type {string} */ (args[i]);
    if (arg === "--out") {
      out = args[i + 1] ?? fail(`--out needs a file name (${USAGE})`);
      i += 1;
    } else if (arg.startsWith("--out=")) {
      out = arg.slice("--out=".length);
    } else {
      fail(`unknown argument ${JSON.stringify(arg)} (${USAGE})`);
    }
  }
  return { out };
}

const { out } = readArgs();
const keep = Number(process.env.BACKUP_KEEP ?? 7);
if (!Number.isInteger(keep) || keep < 1) fail(`BACKUP_KEEP must be a whole number of at least 1 (got ${JSON.stringify(process.env.BACKUP_KEEP)}).`);

// A SQLite file that is not there is refused before the app's modules load (they would make an empty one).
const databasePath = path.resolve(process.env.DATABASE_PATH || "data/recipals.db");
if (!process.env.DATABASE_URL && !fs.existsSync(databasePath)) fail(`there is no database at ${databasePath} (set DATABASE_PATH).`);

/** @type {typeof import("~/server/ops/backup.server") & typeof import("~/server/db/connection.server") & { backupDir: () => string }} */
const app = await loadModule(
  "backup",
  `export { BackupRefused, writeBackup } from "~/server/ops/backup.server";
   export { closeDatabaseHandle, db } from "~/server/db/connection.server";
   export { backupDir } from "~/server/env.server";`,
).catch((/** @type {Error} */ error) => fail(error.message));

const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const dir = app.backupDir();
const target = out ? path.resolve(process.cwd(), out) : path.join(dir, `recipals-${stamp}.zip`);
try {
  const { file, manifest, bytes, ms } = await app.writeBackup({ out: target });
  const rows = Object.values(manifest.database.tables).reduce((sum, n) => sum + n, 0);
  let kept = "";
  if (!out) {
    // Keep the newest `keep` backups (names sort by time).
    const backups = fs.readdirSync(dir).filter((name) => BACKUP_NAME.test(name)).sort();
    const removed = backups.slice(0, Math.max(0, backups.length - keep));
    for (const name of removed) fs.rmSync(path.join(dir, name), { force: true });
    kept = `; keeping ${Math.min(backups.length, keep)} backup(s)${removed.length ? `, removed ${removed.length} older` : ""}`;
  }
  console.log(
    `Backed up ${rows} rows in ${Object.keys(manifest.database.tables).length} tables (${manifest.source.engine}) and ${manifest.photos.count} photos ` +
      `(${(manifest.photos.bytes / 1024 / 1024).toFixed(1)} MB) to ${file}: ${(bytes / 1024 / 1024).toFixed(1)} MB in ${(ms / 1000).toFixed(1)} s${kept}.`,
  );
} catch (error) {
  fail(/** @type {Error} */ (error).message);
} finally {
  await app.closeDatabaseHandle(app.db).catch(() => undefined);
}
