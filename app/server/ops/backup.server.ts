import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

import SQLite from "better-sqlite3";
import pg from "pg";
import { ZipFile } from "yazl";
import yauzl from "yauzl";

import { migrationProvider } from "../../../migrations/index";
import { closeDatabaseHandle, databaseLocation, migrateToLatest, openDatabase, type DatabaseLocation } from "../db/connection.server";
import { imageStoreKind, imageStoreLabel, isStoredName, listStoredFiles, readStoredFile, storedFileExists, writeStoredFile } from "../media/storage.server";

// Backups that restore (docs/operator-guide.md, "Backups"): one zip archive holding a consistent
// snapshot of the database as a SQLite file, every stored photo, and a manifest of row counts and
// checksums. The snapshot is always SQLite — SQLite's online backup of the file, or, from
// PostgreSQL, every table read in one repeatable-read transaction — so any backup restores into
// either engine: a SQLite target gets the file, a PostgreSQL target gets it through db:copy
// (scripts/db-copy.js, handed in by the restore script: the app never imports scripts).
//
//   database.sqlite          the snapshot
//   photos/<stored name>     each photo, stored uncompressed (they are compressed already)
//   manifest.json            last: what the archive holds, and the sums to check it by
//
// The archive is written under FILE.partial and renamed when whole, so a backup stopped half-way
// never leaves a file that looks complete; a restore reads the manifest first and checks every
// part against it before anything is changed.

export const BACKUP_FORMAT = "recipals-backup";
export const BACKUP_VERSION = 1;
const DATABASE_ENTRY = "database.sqlite";
const MANIFEST_ENTRY = "manifest.json";
const PHOTO_PREFIX = "photos/";

/** Tables that are not the community's data: the migrator's, the page cache's record of changes, and search documents rebuilt from the rest. */
const NOT_DATA = /^(sqlite_|kysely_migration)|^(cache_versions|cache_scoping|recipe_search|recipe_shuffle)$/;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  /** The migrations the snapshot has run: a restore needs a ReciPals that knows them all. */
  migrations: string[];
  source: { engine: "sqlite" | "postgres"; imageStore: "disk" | "s3" };
  database: { entry: string; bytes: number; sha256: string; tables: Record<string, number> };
  photos: { count: number; bytes: number; files: Record<string, { bytes: number; sha256: string }> };
}

/** A backup or restore that cannot be done: its message says why, in one line. */
export class BackupRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackupRefused";
  }
}

const sha256 = (bytes: Uint8Array) => crypto.createHash("sha256").update(bytes).digest("hex");
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function fileSha256(file: string): string {
  return sha256(fs.readFileSync(file));
}

function fsyncFile(file: string): void {
  const fd = fs.openSync(file, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The data tables of a SQLite database (no FTS shadow or virtual tables, nothing of NOT_DATA). */
function dataTablesOf(sqlite: SQLite.Database): string[] {
  return (sqlite.prepare("select name from pragma_table_list where schema = 'main' and type = 'table' order by name").pluck().all() as string[]).filter(
    (name) => !NOT_DATA.test(name),
  );
}

function rowCounts(sqlite: SQLite.Database): Record<string, number> {
  return Object.fromEntries(dataTablesOf(sqlite).map((table) => [table, Number(sqlite.prepare(`select count(*) from ${quote(table)}`).pluck().get())]));
}

async function appMigrations(): Promise<string[]> {
  return Object.keys(await migrationProvider.getMigrations()).sort();
}

// ---------------------------------------------------------------------------------------------
// Snapshots

/** SQLite's online backup of `file` into `target`: the database as it was at one instant, writers never blocked. */
async function snapshotSqlite(file: string, target: string): Promise<void> {
  if (file === ":memory:" || !fs.existsSync(file)) throw new BackupRefused(`there is no database at ${file} (set DATABASE_PATH)`);
  const source = new SQLite(file, { readonly: true, fileMustExist: true });
  source.pragma("busy_timeout = 10000");
  try {
    // Every page in one step, inside one read transaction: a busy server cannot make it restart.
    await source.backup(target, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
}

// bigint (int8) as a number, as the app reads it: every value we keep is far below 2^53.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary" ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** A PostgreSQL value as SQLite keeps the same column. */
function sqliteValue(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === "object" && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}

/**
 * Every data table of the PostgreSQL database at `url`, read in ONE repeatable-read transaction
 * (a consistent snapshot while servers write), into a SQLite file migrated by the app's own
 * migrations: the same file a SQLite community's backup holds.
 */
async function snapshotPostgres(url: string, target: string): Promise<void> {
  const snapshot = openDatabase(target);
  try {
    await migrateToLatest(snapshot);
  } finally {
    await closeDatabaseHandle(snapshot);
  }
  const sqlite = new SQLite(target);
  const client = new pg.Client({ connectionString: url, types: pgTypes, connectionTimeoutMillis: 10_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("begin isolation level repeatable read read only");
    const done = (await client.query<{ name: string }>("select name from kysely_migration order by name")).rows.map((row) => row.name);
    const known = await appMigrations();
    const unknown = done.filter((name) => !known.includes(name));
    if (unknown.length > 0) throw new BackupRefused(`the database has migrations this version of ReciPals does not know (${unknown.join(", ")}): back it up with the version that runs it`);
    const missing = known.filter((name) => !done.includes(name));
    if (missing.length > 0) throw new BackupRefused(`the database is not migrated to this version (missing ${missing.join(", ")}): run npm run db:migrate first`);

    sqlite.pragma("foreign_keys = OFF");
    sqlite.exec("begin");
    for (const table of dataTablesOf(sqlite)) {
      const ours = (sqlite.prepare(`select name from pragma_table_info(?)`).pluck().all(table) as string[]);
      const theirs = new Set(
        (await client.query<{ name: string }>("select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = $1", [table])).rows.map((row) => row.name),
      );
      if (theirs.size === 0) throw new BackupRefused(`the PostgreSQL database has no ${table} table`);
      const columns = ours.filter((name) => theirs.has(name));
      const names = columns.map(quote).join(", ");
      sqlite.exec(`delete from ${quote(table)}`);
      const insert = sqlite.prepare(`insert into ${quote(table)} (${names}) values (${columns.map(() => "?").join(", ")})`);
      await client.query(`declare backup_rows no scroll cursor for select ${names} from ${quote(table)}`);
      for (;;) {
        const { rows } = await client.query<Record<string, unknown>>("fetch 2000 from backup_rows");
        if (rows.length === 0) break;
        for (const row of rows) insert.run(columns.map((column) => sqliteValue(row[column])));
      }
      await client.query("close backup_rows");
    }
    sqlite.exec("commit");
    await client.query("commit");
    const broken = sqlite.pragma("foreign_key_check") as unknown[];
    if (broken.length > 0) throw new BackupRefused(`the snapshot has ${broken.length} row(s) whose references are missing`);
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec("rollback");
    if (error instanceof BackupRefused) throw error;
    throw new BackupRefused(`reading the PostgreSQL database failed: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
    sqlite.close();
  }
}

/** Checks a snapshot and makes it one self-contained file (no -wal beside it); answers its row counts. */
function sealSnapshot(file: string): Record<string, number> {
  const sqlite = new SQLite(file, { fileMustExist: true });
  try {
    const check = sqlite.pragma("integrity_check", { simple: true });
    if (check !== "ok") throw new BackupRefused(`the snapshot failed integrity_check: ${String(check)}`);
    sqlite.pragma("journal_mode = DELETE");
    return rowCounts(sqlite);
  } finally {
    sqlite.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Backup

export interface BackupResult {
  file: string;
  manifest: BackupManifest;
  bytes: number;
  ms: number;
}

/**
 * Writes one archive of the database at `location` (default: the configured one) and every photo
 * of the configured image store to `out`. Runs beside a serving app.
 */
export async function writeBackup({ out, location = databaseLocation() }: { out: string; location?: DatabaseLocation }): Promise<BackupResult> {
  const started = Date.now();
  const file = path.resolve(out);
  if (fs.existsSync(file)) throw new BackupRefused(`${file} exists already: name a new file`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-backup-"));
  try {
    const snapshotFile = path.join(scratch, DATABASE_ENTRY);
    if (location.engine === "sqlite") await snapshotSqlite(path.resolve(location.path), snapshotFile);
    else await snapshotPostgres(location.url, snapshotFile);
    const tables = sealSnapshot(snapshotFile);
    const snapshot = new SQLite(snapshotFile, { readonly: true });
    const migrations = snapshot.prepare("select name from kysely_migration order by name").pluck().all() as string[];
    snapshot.close();

    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt: new Date().toISOString(),
      migrations,
      source: { engine: location.engine, imageStore: imageStoreKind() },
      database: { entry: DATABASE_ENTRY, bytes: fs.statSync(snapshotFile).size, sha256: fileSha256(snapshotFile), tables },
      photos: { count: 0, bytes: 0, files: {} },
    };

    // Photos after the snapshot: every photo it names was stored before it was taken. One removed
    // between the snapshot and its reading (its recipe deleted meanwhile) is missing from the
    // archive although the snapshot still names it; the restored recipe then shows no photo.
    const photos = (await listStoredFiles()).map((stored) => stored.name).sort();
    const zip = new ZipFile();
    zip.addFile(snapshotFile, DATABASE_ENTRY);
    for (const name of photos) {
      // Read when the archive reaches it, so one photo at a time is in memory.
      zip.addReadStreamLazy(`${PHOTO_PREFIX}${name}`, { compress: false }, (done) => {
        readStoredFile(name).then(
          (bytes) => {
            const body = bytes ?? Buffer.alloc(0);
            if (bytes) {
              manifest.photos.files[name] = { bytes: bytes.length, sha256: sha256(bytes) };
              manifest.photos.count += 1;
              manifest.photos.bytes += bytes.length;
            }
            done(null, Readable.from([body]));
          },
          (error: unknown) => done(error as Error, undefined as never),
        );
      });
    }
    // Last: by now every photo has been read and summed.
    zip.addReadStreamLazy(MANIFEST_ENTRY, {}, (done) => done(null, Readable.from([Buffer.from(JSON.stringify(manifest, null, 2))])));
    // A photo that cannot be read is the zip's error, not its stream's: end the stream with it.
    zip.on("error", (error: Error) => (zip.outputStream as Readable).destroy(error));
    zip.end();
    await pipeline(zip.outputStream, fs.createWriteStream(partial));
    fsyncFile(partial);
    fs.renameSync(partial, file);
    return { file, manifest, bytes: fs.statSync(file).size, ms: Date.now() - started };
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Reading an archive

interface OpenedArchive {
  manifest: BackupManifest;
  /** Reads one entry whole (checked by the zip's own CRC as it is read). */
  read(name: string): Promise<Buffer>;
  /** Writes one entry to a file. */
  extract(name: string, target: string): Promise<void>;
  names: Set<string>;
  close(): void;
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, zip) => (error || !zip ? reject(error ?? new Error("unreadable")) : resolve(zip))));
}

function isManifest(value: unknown): value is BackupManifest {
  const manifest = value as Partial<BackupManifest> | null;
  return (
    !!manifest &&
    manifest.format === BACKUP_FORMAT &&
    typeof manifest.version === "number" &&
    Array.isArray(manifest.migrations) &&
    typeof manifest.database?.sha256 === "string" &&
    typeof manifest.database.tables === "object" &&
    typeof manifest.photos?.files === "object"
  );
}

const SQLITE_HEADER = Buffer.from("SQLite format 3\0");

function startsWithSqliteHeader(file: string): boolean {
  const fd = fs.openSync(file, "r");
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    fs.readSync(fd, head, 0, head.length, 0);
    return head.equals(SQLITE_HEADER);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A backup of the kind `npm run backup` wrote before archives (the SQLite file alone), read as an
 * archive without photos: its manifest is made from the file itself.
 */
async function openSqliteFileBackup(file: string): Promise<OpenedArchive> {
  let sqlite: SQLite.Database | undefined;
  try {
    sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
    const check = sqlite.pragma("integrity_check", { simple: true });
    if (check !== "ok") throw new BackupRefused(`${file} is damaged: it fails integrity_check (${String(check)})`);
    const hasMigrations = sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    if (!hasMigrations) throw new BackupRefused(`${file} is not a ReciPals database (it has no migrations table)`);
    const migrations = sqlite.prepare("select name from kysely_migration order by name").pluck().all() as string[];
    const known = await appMigrations();
    const unknown = migrations.filter((name) => !known.includes(name));
    if (unknown.length > 0) throw new BackupRefused(`${file} comes from a newer ReciPals (migrations ${unknown.join(", ")}): update ReciPals first`);
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: 0,
      createdAt: fs.statSync(file).mtime.toISOString(),
      migrations,
      source: { engine: "sqlite", imageStore: imageStoreKind() },
      database: { entry: DATABASE_ENTRY, bytes: fs.statSync(file).size, sha256: fileSha256(file), tables: rowCounts(sqlite) },
      photos: { count: 0, bytes: 0, files: {} },
    };
    return {
      manifest,
      read: () => Promise.reject(new BackupRefused(`${file} holds no photos`)),
      extract: async (_name, target) => fs.copyFileSync(file, target),
      names: new Set([DATABASE_ENTRY]),
      close: () => undefined,
    };
  } catch (error) {
    if (error instanceof BackupRefused) throw error;
    throw new BackupRefused(`${file} is not a readable SQLite database (${(error as Error).message})`);
  } finally {
    sqlite?.close();
  }
}

/** Opens a backup archive and reads its manifest; refuses what is not a whole ReciPals backup of a version this app can restore. */
export async function openBackup(file: string): Promise<OpenedArchive> {
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new BackupRefused(`${file} is not a file`);
  if (startsWithSqliteHeader(file)) return openSqliteFileBackup(file);
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file);
  } catch (error) {
    throw new BackupRefused(`${file} is not a whole ReciPals backup: it cannot be read as a zip archive (${(error as Error).message}); was the backup stopped half-way?`);
  }
  const entries = new Map<string, yauzl.Entry>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("entry", (entry: yauzl.Entry) => {
        entries.set(entry.fileName, entry);
        zip.readEntry();
      });
      zip.on("end", () => resolve());
      zip.on("error", reject);
      zip.readEntry();
    });
  } catch (error) {
    zip.close();
    throw new BackupRefused(`${file} is damaged: ${(error as Error).message}`);
  }
  const stream = (name: string) =>
    new Promise<Readable>((resolve, reject) => {
      const entry = entries.get(name);
      if (!entry) return reject(new BackupRefused(`${file} has no ${name}`));
      zip.openReadStream(entry, (error, readable) => (error || !readable ? reject(error ?? new Error("unreadable")) : resolve(readable)));
    });
  const read = async (name: string) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of await stream(name)) chunks.push(chunk as Buffer);
    } catch (error) {
      if (error instanceof BackupRefused) throw error;
      throw new BackupRefused(`${file} is damaged: ${name} cannot be read (${(error as Error).message})`);
    }
    return Buffer.concat(chunks);
  };
  const archive: OpenedArchive = {
    manifest: undefined as unknown as BackupManifest,
    read,
    async extract(name, target) {
      try {
        await pipeline(await stream(name), fs.createWriteStream(target));
      } catch (error) {
        if (error instanceof BackupRefused) throw error;
        throw new BackupRefused(`${file} is damaged: ${name} cannot be read (${(error as Error).message})`);
      }
    },
    names: new Set(entries.keys()),
    close: () => zip.close(),
  };
  try {
    if (!entries.has(MANIFEST_ENTRY)) throw new BackupRefused(`${file} is not a ReciPals backup (it has no ${MANIFEST_ENTRY})`);
    let manifest: unknown;
    try {
      manifest = JSON.parse((await read(MANIFEST_ENTRY)).toString("utf8"));
    } catch (error) {
      if (error instanceof BackupRefused) throw error;
      throw new BackupRefused(`${file} is not a ReciPals backup (its ${MANIFEST_ENTRY} is not JSON)`);
    }
    if (!isManifest(manifest)) throw new BackupRefused(`${file} is not a ReciPals backup (its ${MANIFEST_ENTRY} is not one)`);
    if (manifest.version > BACKUP_VERSION) throw new BackupRefused(`${file} was written by a newer ReciPals (backup format ${manifest.version}): update ReciPals first`);
    const known = await appMigrations();
    const unknown = manifest.migrations.filter((name) => !known.includes(name));
    if (unknown.length > 0) throw new BackupRefused(`${file} comes from a newer ReciPals (migrations ${unknown.join(", ")}): update ReciPals first`);
    for (const name of Object.keys(manifest.photos.files)) {
      if (!isStoredName(name) || !entries.has(`${PHOTO_PREFIX}${name}`)) throw new BackupRefused(`${file} is damaged: its manifest names a photo it lacks (${name})`);
    }
    archive.manifest = manifest;
    return archive;
  } catch (error) {
    zip.close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Restore

export interface RestoreResult {
  manifest: BackupManifest;
  /** Where the previous data was kept (a backup archive), when the target was not empty. */
  undo: string | null;
  /** Rows per table in the restored database. */
  tables: Record<string, number>;
  photos: { written: number; present: number; bytes: number };
  ms: number;
}

/** Tables of the target that hold rows (the community's data only). */
async function targetRows(location: DatabaseLocation): Promise<string[]> {
  if (location.engine === "sqlite") {
    if (location.path === ":memory:" || !fs.existsSync(location.path)) return [];
    const sqlite = new SQLite(location.path, { readonly: true, fileMustExist: true });
    try {
      return Object.entries(rowCounts(sqlite))
        .filter(([, rows]) => rows > 0)
        .map(([table]) => table);
    } finally {
      sqlite.close();
    }
  }
  try {
    const counts = await postgresRowCounts(location.url);
    return Object.keys(counts).filter((table) => counts[table]! > 0);
  } catch (error) {
    throw new BackupRefused(`cannot reach the PostgreSQL database: ${(error as Error).message}`);
  }
}

/** Runs `work` with a connection to the PostgreSQL database at `url`. */
async function withPostgres<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The tables of the database's schema. */
async function postgresTables(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>("select c.relname as name from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') order by 1");
  return rows.map((row) => row.name);
}

/** The rows of each data table of a PostgreSQL database, counted in one statement. */
function postgresRowCounts(url: string): Promise<Record<string, number>> {
  return withPostgres(url, async (client) => {
    const tables = (await postgresTables(client)).filter((name) => !NOT_DATA.test(name));
    if (tables.length === 0) return {};
    const { rows } = await client.query<{ name: string; n: string }>(
      tables.map((name, i) => `select $${i + 1}::text as name, count(*) as n from ${quote(name)}`).join(" union all "),
      tables,
    );
    return Object.fromEntries(rows.map((row) => [row.name, Number(row.n)]));
  });
}

/** Empties every table of a PostgreSQL database but the migrator's (the restore with --force, after the undo copy). */
function emptyPostgres(url: string): Promise<void> {
  return withPostgres(url, async (client) => {
    const tables = (await postgresTables(client)).filter((name) => !/^kysely_migration/.test(name));
    if (tables.length > 0) await client.query(`truncate ${tables.map(quote).join(", ")} restart identity cascade`);
  });
}

/**
 * Processes (other than this one) that have the SQLite database, its WAL or its shared memory
 * open; null where there is no /proc to look in.
 */
function processesUsing(file: string): string[] | null {
  if (!fs.existsSync("/proc/self/fd")) return null;
  const targets = new Set([file, `${file}-wal`, `${file}-shm`].map((name) => (fs.existsSync(name) ? fs.realpathSync(name) : name)));
  const users: string[] = [];
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch (error) {
      // Gone meanwhile: nothing open. Not ours to read (another user's server): we cannot tell.
      if ((error as NodeJS.ErrnoException).code === "EACCES" || (error as NodeJS.ErrnoException).code === "EPERM") return null;
      continue;
    }
    const open = fds.some((fd) => {
      try {
        return targets.has(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false;
      }
    });
    if (!open) continue;
    let command = "?";
    try {
      command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ") || "?";
    } catch {
      // ended meanwhile
    }
    users.push(`${pid} (${command})`);
  }
  return users;
}

/** Puts the snapshot file in place of the SQLite database at `target`: the old one or the restored one, never half. */
function placeSqlite(snapshot: string, target: string): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.restore-${process.pid}`;
  fs.copyFileSync(snapshot, temporary);
  fsyncFile(temporary);
  // An old WAL must never be replayed onto the restored file.
  for (const suffix of ["-wal", "-shm", "-journal"]) fs.rmSync(`${target}${suffix}`, { force: true });
  fs.renameSync(temporary, target);
}

/**
 * Restores the archive `file` into the database at `location` and the configured image store.
 * The target must be empty unless `force`; then what it held is first written to `undoDir` as a
 * backup of its own. Every part of the archive is checked before anything changes; at the end
 * the restored rows and photos are checked against the manifest.
 */
export async function restoreBackup({
  file,
  location = databaseLocation(),
  force = false,
  undoDir,
  copyIntoPostgres,
}: {
  file: string;
  location?: DatabaseLocation;
  force?: boolean;
  undoDir: string;
  /** Copies a SQLite file into an empty PostgreSQL database (db:copy's copyDatabase). */
  copyIntoPostgres: (copy: { from: string; to: string }) => Promise<unknown>;
}): Promise<RestoreResult> {
  const started = Date.now();
  const archive = await openBackup(path.resolve(file));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-restore-"));
  try {
    const { manifest } = archive;
    // 1. Check everything first: the snapshot's sum and rows, every photo's sum.
    const snapshot = path.join(scratch, DATABASE_ENTRY);
    await archive.extract(manifest.database.entry, snapshot);
    if (fileSha256(snapshot) !== manifest.database.sha256) throw new BackupRefused(`${file} is damaged: the database's checksum does not match the manifest`);
    const sqlite = new SQLite(snapshot, { fileMustExist: true });
    try {
      const check = sqlite.pragma("integrity_check", { simple: true });
      if (check !== "ok") throw new BackupRefused(`${file} is damaged: its database fails integrity_check (${String(check)})`);
      const counts = rowCounts(sqlite);
      const differing = Object.keys(manifest.database.tables).filter((table) => counts[table] !== manifest.database.tables[table]);
      if (differing.length > 0) throw new BackupRefused(`${file} is damaged: row counts differ from the manifest in ${differing.join(", ")}`);
    } finally {
      sqlite.close();
    }
    for (const [name, expected] of Object.entries(manifest.photos.files)) {
      const bytes = await archive.read(`${PHOTO_PREFIX}${name}`);
      if (bytes.length !== expected.bytes || sha256(bytes) !== expected.sha256) throw new BackupRefused(`${file} is damaged: photo ${name} does not match its checksum`);
    }
    // An older backup is brought up to this version's schema here, on the scratch copy, before
    // anything changes (db:copy takes only a database as new as the app).
    const scratchDatabase = openDatabase(snapshot);
    try {
      await migrateToLatest(scratchDatabase);
    } catch (error) {
      throw new BackupRefused(`${file}: its database cannot be brought up to this version (${(error as Error).message})`);
    } finally {
      await closeDatabaseHandle(scratchDatabase);
    }
    // Opened by the app it went into WAL mode: back to one self-contained file, as it is put in place.
    const sealed = new SQLite(snapshot, { fileMustExist: true });
    try {
      sealed.pragma("journal_mode = DELETE");
    } finally {
      sealed.close();
    }

    // 2. The target: not in use by a server (SQLite: it would go on writing to the replaced file),
    //    empty, or kept first as an undo copy.
    if (location.engine === "sqlite") {
      const users = processesUsing(path.resolve(location.path));
      if (users === null && !force) throw new BackupRefused("cannot tell whether a server has the database open here (no /proc, or another user's processes): stop the server, then run again with --force");
      if (users && users.length > 0) throw new BackupRefused(`the database ${path.resolve(location.path)} is open in process ${users.join(", ")}: stop the server first`);
    }
    const filled = await targetRows(location);
    const storedPhotos = await listStoredFiles();
    let undo: string | null = null;
    if (filled.length > 0 || storedPhotos.length > 0) {
      const what = filled.length > 0 ? `the database holds data (rows in ${filled.slice(0, 3).join(", ")}${filled.length > 3 ? ` and ${filled.length - 3} more` : ""})` : `the image store (${imageStoreLabel()}) holds ${storedPhotos.length} file(s)`;
      if (!force) throw new BackupRefused(`${what}: restore fills an empty database and store; pass --force to replace it (what it holds is kept as a backup first)`);
      undo = path.join(undoDir, `recipals-before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}.zip`);
      await writeBackup({ out: undo, location });
    }

    // 3. The database.
    if (location.engine === "sqlite") {
      placeSqlite(snapshot, path.resolve(location.path));
    } else {
      if (filled.length > 0) await emptyPostgres(location.url);
      try {
        await copyIntoPostgres({ from: snapshot, to: location.url });
      } catch (error) {
        throw new BackupRefused(`copying the database into PostgreSQL failed: ${(error as Error).message}${undo ? ` (what it held is in ${undo})` : ""}`);
      }
    }

    // 4. The photos (a name is its content's hash: one already there is the same photo).
    let written = 0;
    for (const name of Object.keys(manifest.photos.files)) {
      if (await storedFileExists(name)) continue;
      await writeStoredFile(name, await archive.read(`${PHOTO_PREFIX}${name}`));
      written += 1;
    }

    // 5. Check what is there now against the manifest.
    const tables = await restoredCounts(location);
    const differing = Object.keys(manifest.database.tables).filter((table) => tables[table] !== manifest.database.tables[table]);
    if (differing.length > 0) throw new BackupRefused(`the restored database's row counts differ from the manifest in ${differing.join(", ")}`);
    let present = 0;
    for (const name of Object.keys(manifest.photos.files)) if (await storedFileExists(name)) present += 1;
    if (present !== manifest.photos.count) throw new BackupRefused(`only ${present} of the backup's ${manifest.photos.count} photos are in the store after the restore`);
    return { manifest, undo, tables, photos: { written, present, bytes: manifest.photos.bytes }, ms: Date.now() - started };
  } finally {
    archive.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

async function restoredCounts(location: DatabaseLocation): Promise<Record<string, number>> {
  if (location.engine === "sqlite") {
    const sqlite = new SQLite(location.path, { readonly: true, fileMustExist: true });
    try {
      return rowCounts(sqlite);
    } finally {
      sqlite.close();
    }
  }
  return postgresRowCounts(location.url);
}
