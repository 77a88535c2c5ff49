// `npm run restore -- FILE [--force]`: puts a backup back as DATABASE_PATH (default data/recipals.db).
//
// 1. Refuses while the database is open in another process (a running server would keep writing
//    to the replaced file and lose it): on Linux every process's open files are looked at
//    (/proc/<pid>/fd). Stop the server first; `--force` skips this check (and is needed where
//    /proc does not exist).
// 2. Checks FILE: an SQLite database that passes `PRAGMA integrity_check` and has ReciPals' tables.
// 3. Keeps the current database as <backups>/recipals-before-restore-<timestamp>.db (undo).
// 4. Copies FILE beside the database under a temporary name, checks the copy, removes the old
//    -wal and -shm files (an old WAL must never be replayed onto the restored file), and renames
//    the copy into place: the database is either the old one or the restored one, never half.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import SQLite from "better-sqlite3";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const databasePath = path.resolve(root, process.env.DATABASE_PATH ?? "data/recipals.db");
const backupDir = path.resolve(root, process.env.BACKUP_DIR ?? path.join(path.dirname(databasePath), "backups"));
const args = process.argv.slice(2);
const force = args.includes("--force");
const files = args.filter((arg) => !arg.startsWith("--"));
const REQUIRED_TABLES = ["users", "recipes", "posts", "comments", "likes", "sessions"];

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(`Restore refused: ${message}`);
  process.exit(1);
}

if (files.length !== 1) fail("name one backup file: npm run restore -- data/backups/recipals-<timestamp>.db [--force]");
// Exactly one file, checked above.
const source = path.resolve(process.cwd(), /** @type {string} */ (files[0]));
if (!fs.existsSync(source) || !fs.statSync(source).isFile()) fail(`${source} is not a file.`);
if (source === databasePath) fail("the backup is the database itself.");

/**
 * Problems with a database file, or null when it is a whole ReciPals database.
 * @param {string} file
 * @returns {string | null}
 */
function problemsWith(file) {
  let db;
  try {
    db = new SQLite(file, { readonly: true, fileMustExist: true });
    const check = db.pragma("integrity_check", { simple: true });
    if (check !== "ok") return `it fails integrity_check (${check}).`;
    const tables = new Set(db.prepare("select name from sqlite_master where type = 'table'").pluck().all());
    const missing = REQUIRED_TABLES.filter((table) => !tables.has(table));
    if (missing.length) return `it is not a ReciPals database (no ${missing.join(", ")} table).`;
    return null;
  } catch (error) {
    return `it is not a readable SQLite database (${error instanceof Error ? error.message : String(error)}).`;
  } finally {
    db?.close();
  }
}

/**
 * Processes (other than this one) that have the database, its WAL or its shared memory open;
 * null where there is no /proc to look in.
 * @param {string} file
 * @returns {string[] | null}
 */
function processesUsing(file) {
  if (!fs.existsSync("/proc/self/fd")) return null;
  const targets = new Set([file, `${file}-wal`, `${file}-shm`].map((f) => (fs.existsSync(f) ? fs.realpathSync(f) : f)));
  const users = [];
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)) {
    let fds;
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    const open = fds.some((fd) => {
      try {
        return targets.has(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false;
      }
    });
    if (open) {
      let command = "";
      try {
        command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
      } catch {
        // ended meanwhile
      }
      users.push(`${pid} (${command || "?"})`);
    }
  }
  return users;
}

if (!force) {
  const users = processesUsing(databasePath);
  if (users === null) fail("cannot tell whether a server has the database open here (no /proc). Stop the server, then run again with --force.");
  if (users.length) fail(`the database ${databasePath} is open in process ${users.join(", ")}. Stop the server first (or pass --force if you are sure).`);
}

const sourceProblem = problemsWith(source);
if (sourceProblem) fail(`${source}: ${sourceProblem}`);

const stamp = new Date().toISOString().replace(/[:.]/g, "-");
fs.mkdirSync(path.dirname(databasePath), { recursive: true });

// The current database, kept so the restore can be undone (skipped when there is none or it is unreadable).
let kept = null;
if (fs.existsSync(databasePath) && problemsWith(databasePath) === null) {
  fs.mkdirSync(backupDir, { recursive: true });
  kept = path.join(backupDir, `recipals-before-restore-${stamp}.db`);
  const current = new SQLite(databasePath, { readonly: true, fileMustExist: true });
  try {
    await current.backup(kept, { progress: () => 0x7fffffff });
  } finally {
    current.close();
  }
}

const temporary = `${databasePath}.restore-${stamp}`;
fs.copyFileSync(source, temporary);
const copyProblem = problemsWith(temporary);
if (copyProblem) {
  fs.rmSync(temporary, { force: true });
  fail(`the copy of ${source} is damaged: ${copyProblem}`);
}
const fd = fs.openSync(temporary, "r");
fs.fsyncSync(fd);
fs.closeSync(fd);
fs.rmSync(`${databasePath}-wal`, { force: true });
fs.rmSync(`${databasePath}-shm`, { force: true });
fs.rmSync(`${databasePath}-journal`, { force: true });
fs.renameSync(temporary, databasePath);
try {
  const dir = fs.openSync(path.dirname(databasePath), "r");
  fs.fsyncSync(dir);
  fs.closeSync(dir);
} catch {
  // Directories cannot be fsynced everywhere; the rename is still atomic.
}

console.log(`Restored ${source} to ${databasePath}.${kept ? ` The previous database is kept as ${kept}.` : ""} Start the server again.`);
