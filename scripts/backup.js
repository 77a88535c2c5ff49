// `npm run backup`: a consistent copy of the database while the server keeps running.
//
// SQLite's online backup API (better-sqlite3's db.backup) copies DATABASE_PATH (default
// data/recipals.db) into BACKUP_DIR (default: a `backups` folder beside the database, so
// data/backups) as recipals-<UTC timestamp>.db, then keeps only the newest BACKUP_KEEP (default 7).
// All pages are copied in one step, i.e. inside one read transaction: the copy is the database as
// it was at one instant, writers are never blocked (WAL), and a busy server cannot make the copy
// restart forever. The copy is written under a temporary name, checked with
// `PRAGMA integrity_check`, and only then renamed into place, so a listed backup is always whole.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import SQLite from "better-sqlite3";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const databasePath = path.resolve(root, process.env.DATABASE_PATH ?? "data/recipals.db");
const backupDir = path.resolve(root, process.env.BACKUP_DIR ?? path.join(path.dirname(databasePath), "backups"));
const keep = Number(process.env.BACKUP_KEEP ?? 7);
const BACKUP_NAME = /^recipals-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.db$/;

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(`Backup failed: ${message}`);
  process.exit(1);
}

if (!Number.isInteger(keep) || keep < 1) fail(`BACKUP_KEEP must be a whole number of at least 1 (got ${JSON.stringify(process.env.BACKUP_KEEP)}).`);
if (!fs.existsSync(databasePath)) fail(`there is no database at ${databasePath} (set DATABASE_PATH).`);

fs.mkdirSync(backupDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const target = path.join(backupDir, `recipals-${stamp}.db`);
const temporary = `${target}.partial`;

const started = Date.now();
const source = new SQLite(databasePath, { fileMustExist: true, readonly: true });
source.pragma("busy_timeout = 10000");
try {
  // transfer(0) first (better-sqlite3 starts that way), then every remaining page at once.
  await source.backup(temporary, { progress: () => 0x7fffffff });
} catch (error) {
  fs.rmSync(temporary, { force: true });
  fail(error instanceof Error ? error.message : String(error));
} finally {
  source.close();
}

const copy = new SQLite(temporary, { fileMustExist: true });
try {
  const check = copy.pragma("integrity_check", { simple: true });
  if (check !== "ok") throw new Error(`the copy failed integrity_check: ${check}`);
  // One self-contained file: no -wal beside it (a restore copies just this file).
  copy.pragma("journal_mode = DELETE");
} catch (error) {
  copy.close();
  fs.rmSync(temporary, { force: true });
  fail(error instanceof Error ? error.message : String(error));
}
copy.close();
const fd = fs.openSync(temporary, "r");
fs.fsyncSync(fd);
fs.closeSync(fd);
fs.renameSync(temporary, target);

// Keep the newest `keep` backups (names sort by time).
const backups = fs
  .readdirSync(backupDir)
  .filter((name) => BACKUP_NAME.test(name))
  .sort();
const removed = backups.slice(0, Math.max(0, backups.length - keep));
for (const name of removed) fs.rmSync(path.join(backupDir, name), { force: true });

const size = fs.statSync(target).size;
console.log(
  `Backed up ${databasePath} to ${target} (${(size / 1024 / 1024).toFixed(2)} MB, ${Date.now() - started} ms); ` +
    `keeping ${Math.min(backups.length, keep)} backup(s)${removed.length ? `, removed ${removed.length} older` : ""}.`,
);
