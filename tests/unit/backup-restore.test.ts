import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import SQLite from "better-sqlite3";
import pg from "pg";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ZipFile } from "yazl";

import { openBackup, restoreBackup, writeBackup, type BackupManifest } from "~/server/ops/backup.server";
import { setImageStore, type ImageStoreChoice } from "~/server/media/storage.server";

import { copyDatabase } from "../../scripts/db-copy.js";
import { TEST_POSTGRES, createDatabase } from "../support/postgres";
import { startS3Server, type S3TestServer } from "../support/s3rver";
import { seededDatabase, tempDir } from "../support/server/server";
import { useSetting } from "../support/settings";

// Backups that restore (docs/operator-guide.md, "Backups"): a seeded community with photos is
// backed up while rows are being written, then restored into a fresh database and store, and
// every table and photo is compared by checksum with what the backup holds. On PostgreSQL + S3
// (its stage): a SQLite backup goes into PostgreSQL, is backed up from there under writes, and
// comes back into SQLite and disk with every row as it was.

const ROOT = path.resolve(__dirname, "../..");
const NOT_DATA = /^(sqlite_|kysely_migration)|^(cache_versions|cache_scoping|recipe_search|recipe_shuffle)$/;

const sha256 = (bytes: Uint8Array) => crypto.createHash("sha256").update(bytes).digest("hex");

/** A checksum of each data table's rows (order-free), to compare two databases table by table. */
function tableDigests(file: string): Record<string, string> {
  const sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const tables = (sqlite.prepare("select name from pragma_table_list where schema = 'main' and type = 'table' order by name").pluck().all() as string[]).filter((name) => !NOT_DATA.test(name));
    return Object.fromEntries(
      tables.map((table) => {
        const rows = (sqlite.prepare(`select * from "${table}"`).all() as Record<string, unknown>[]).map((row) =>
          JSON.stringify(Object.keys(row).sort().map((column) => [column, Buffer.isBuffer(row[column]) ? (row[column] as Buffer).toString("hex") : row[column]])),
        );
        return [table, `${rows.length}:${sha256(Buffer.from(rows.sort().join("\n")))}`];
      }),
    );
  } finally {
    sqlite.close();
  }
}

/** Every file of a folder with its checksum. */
function folderDigests(dir: string): Record<string, string> {
  if (!fs.existsSync(dir)) return {};
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((name) => !name.startsWith("."))
      .sort()
      .map((name) => [name, sha256(fs.readFileSync(path.join(dir, name)))]),
  );
}

/** Photos as people send them, a few distinct ones, stored under their content's name. */
async function storePhotos(dir: string, count: number): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i += 1) {
    const bytes = await sharp({ create: { width: 64 + i, height: 48, channels: 3, background: { r: 30 * i, g: 120, b: 200 - 20 * i } } })
      .webp()
      .toBuffer();
    fs.writeFileSync(path.join(dir, `${sha256(bytes)}.webp`), bytes);
  }
}

/** The snapshot a backup holds, extracted to a file. */
async function snapshotOf(archive: string, dir: string): Promise<{ file: string; manifest: BackupManifest }> {
  const opened = await openBackup(archive);
  const file = path.join(dir, `snapshot-${crypto.randomBytes(4).toString("hex")}.sqlite`);
  try {
    await opened.extract("database.sqlite", file);
    return { file, manifest: opened.manifest };
  } finally {
    opened.close();
  }
}

/** Rows written one transaction at a time while `work` runs (a server's writes beside the backup). */
async function underWrites<T>(write: (n: number) => Promise<void> | void, work: () => Promise<T>): Promise<{ result: T; written: number }> {
  let running = true;
  let written = 0;
  const writer = (async () => {
    while (running) {
      await write(written);
      written += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  try {
    const result = await work();
    return { result, written };
  } finally {
    running = false;
    await writer;
  }
}

function run(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.DATABASE_URL;
  return new Promise((resolve) =>
    execFile(process.execPath, [path.join(ROOT, script), ...args], { cwd: ROOT, env: childEnv, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    ),
  );
}

let dir = "";
let source = "";
let sourcePhotos = "";
let archive = "";

beforeAll(async () => {
  dir = tempDir("backup");
  source = await seededDatabase(path.join(dir, "source"));
  sourcePhotos = path.join(dir, "source", "uploads");
  await storePhotos(sourcePhotos, 6);
  useSetting("UPLOADS_DIR", sourcePhotos);
  setImageStore(null);
}, 240_000);
afterAll(() => {
  setImageStore(null);
  useSetting("UPLOADS_DIR", undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Points the app's disk store at `folder` (what a fresh instance's uploads folder is). */
function useUploads(folder: string): void {
  useSetting("UPLOADS_DIR", folder);
  setImageStore(null);
}

// Once, in the SQLite stage; the PostgreSQL stage runs the part below.
describe.skipIf(!!TEST_POSTGRES)("backups on SQLite and disk", () => {
  it("backs up while rows are written and restores into a fresh instance: every row and photo back, checked by checksum", async () => {
    archive = path.join(dir, "community.zip");
    const writer = new SQLite(source);
    writer.pragma("busy_timeout = 5000");
    const insert = writer.prepare("insert into sign_in_failures (username_key, address, at) values (?, ?, ?)");
    const before = Number(writer.prepare("select count(*) from sign_in_failures").pluck().get());
    const { result, written } = await underWrites(
      (n) => void insert.run(`writer-${n}`, "203.0.113.7", Date.now()),
      () => writeBackup({ out: archive, location: { engine: "sqlite", path: source } }),
    );
    writer.close();
    expect(written).toBeGreaterThan(0);
    expect(fs.existsSync(`${archive}.partial`)).toBe(false);
    const { manifest } = result;
    expect(manifest.format).toBe("recipals-backup");
    expect(manifest.photos.count).toBe(6);
    expect(manifest.database.tables.recipes).toBeGreaterThan(300);
    // A consistent snapshot: somewhere between the rows before and after the writes.
    expect(manifest.database.tables.sign_in_failures).toBeGreaterThanOrEqual(before);
    expect(manifest.database.tables.sign_in_failures).toBeLessThanOrEqual(before + written);

    const fresh = path.join(dir, "fresh", "recipals.db");
    const freshPhotos = path.join(dir, "fresh", "uploads");
    useUploads(freshPhotos);
    const restored = await restoreBackup({ file: archive, location: { engine: "sqlite", path: fresh }, undoDir: path.join(dir, "undo"), copyIntoPostgres: copyDatabase });
    expect(restored.undo).toBeNull();
    expect(restored.photos).toMatchObject({ written: 6, present: 6 });
    expect(restored.tables).toEqual(manifest.database.tables);

    const { file: snapshot } = await snapshotOf(archive, dir);
    expect(tableDigests(fresh)).toEqual(tableDigests(snapshot));
    expect(folderDigests(freshPhotos)).toEqual(folderDigests(sourcePhotos));
  });

  it("refuses a damaged, cut-off or foreign file with a clear message and changes nothing", async () => {
    const target = path.join(dir, "untouched", "recipals.db");
    const targetPhotos = path.join(dir, "untouched", "uploads");
    useUploads(targetPhotos);
    const restore = (file: string) => restoreBackup({ file, location: { engine: "sqlite", path: target }, undoDir: path.join(dir, "undo"), copyIntoPostgres: copyDatabase });

    const bytes = fs.readFileSync(archive);
    const cut = path.join(dir, "cut.zip");
    fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(restore(cut)).rejects.toThrow(/is not a whole ReciPals backup: it cannot be read as a zip archive/);

    const foreign = path.join(dir, "holiday.jpg");
    fs.writeFileSync(foreign, crypto.randomBytes(4096));
    await expect(restore(foreign)).rejects.toThrow(/is not a whole ReciPals backup/);

    const zipOf = async (file: string, entries: Record<string, Buffer>) => {
      const zip = new ZipFile();
      for (const [name, body] of Object.entries(entries)) zip.addBuffer(body, name);
      zip.end();
      const chunks: Buffer[] = [];
      for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
      fs.writeFileSync(file, Buffer.concat(chunks));
      return file;
    };
    await expect(restore(await zipOf(path.join(dir, "other.zip"), { "notes.txt": Buffer.from("hello") }))).rejects.toThrow(/is not a ReciPals backup \(it has no manifest\.json\)/);

    // A photo whose bytes are not those the manifest sums.
    const opened = await openBackup(archive);
    const manifest = opened.manifest;
    const database = await opened.read("database.sqlite");
    opened.close();
    const [photo] = Object.keys(manifest.photos.files);
    const tampered = { ...manifest, photos: { ...manifest.photos, files: { [photo!]: manifest.photos.files[photo!]! }, count: 1 } };
    await expect(
      restore(await zipOf(path.join(dir, "tampered.zip"), { "database.sqlite": database, [`photos/${photo}`]: Buffer.from("not the photo"), "manifest.json": Buffer.from(JSON.stringify(tampered)) })),
    ).rejects.toThrow(/is damaged: photo .* does not match its checksum/);
    // A database whose checksum is not the manifest's.
    await expect(
      restore(await zipOf(path.join(dir, "swapped.zip"), { "database.sqlite": Buffer.concat([database, Buffer.alloc(512)]), "manifest.json": Buffer.from(JSON.stringify({ ...manifest, photos: { count: 0, bytes: 0, files: {} } })) })),
    ).rejects.toThrow(/is damaged: the database's checksum does not match the manifest/);

    expect(fs.existsSync(target)).toBe(false);
    expect(folderDigests(targetPhotos)).toEqual({});
  });

  it("refuses a database or store that holds data unless --force, which keeps what was there as a backup first", async () => {
    const fresh = path.join(dir, "fresh", "recipals.db");
    useUploads(path.join(dir, "fresh", "uploads"));
    const before = tableDigests(fresh);
    const undoDir = path.join(dir, "undo");
    await expect(restoreBackup({ file: archive, location: { engine: "sqlite", path: fresh }, undoDir, copyIntoPostgres: copyDatabase })).rejects.toThrow(
      /the database holds data .*pass --force/,
    );
    expect(tableDigests(fresh)).toEqual(before);
    const forced = await restoreBackup({ file: archive, location: { engine: "sqlite", path: fresh }, undoDir, force: true, copyIntoPostgres: copyDatabase });
    expect(forced.undo).toMatch(/recipals-before-restore-.*\.zip$/);
    const { file: kept } = await snapshotOf(forced.undo!, dir);
    expect(tableDigests(kept)).toEqual(before);
  });

  it("a backup that fails half-way leaves no file that looks complete", async () => {
    const broken = path.join(dir, "broken-uploads");
    fs.cpSync(sourcePhotos, broken, { recursive: true });
    // A folder where a photo should be: reading it fails after the database is in the archive.
    fs.mkdirSync(path.join(broken, `${"f".repeat(64)}.webp`));
    useUploads(broken);
    const out = path.join(dir, "half.zip");
    await expect(writeBackup({ out, location: { engine: "sqlite", path: source } })).rejects.toThrow(/EISDIR/);
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.existsSync(`${out}.partial`)).toBe(false);
  });

  it("npm run backup -- --out and npm run restore work from the command line and say what they did", async () => {
    const out = path.join(dir, "cli.zip");
    const backup = await run("scripts/backup.js", ["--out", out], { DATABASE_PATH: source, UPLOADS_DIR: sourcePhotos });
    expect(backup.stderr).toBe("");
    expect(backup.stdout).toMatch(/^Backed up \d+ rows in \d+ tables \(sqlite\) and 6 photos .* to .*cli\.zip/);
    const target = path.join(dir, "cli-target", "recipals.db");
    const restore = await run("scripts/restore.js", [out], { DATABASE_PATH: target, UPLOADS_DIR: path.join(dir, "cli-target", "uploads") });
    expect(restore.stdout).toMatch(/^Restored .*cli\.zip .* \d+ rows in \d+ tables \(\d+ users, \d+ recipes, .*\) and 6 photos \(6 written, .*all matching the manifest/);
    const again = await run("scripts/restore.js", [out], { DATABASE_PATH: target, UPLOADS_DIR: path.join(dir, "cli-target", "uploads") });
    expect([again.code, again.stderr.trim()]).toEqual([1, expect.stringMatching(/^Restore refused: the database holds data/)]);
  });
});

describe.skipIf(!TEST_POSTGRES)("backups on PostgreSQL and S3", () => {
  let s3: S3TestServer;
  const storeOn = (server: S3TestServer): ImageStoreChoice => ({
    kind: "s3",
    endpoint: server.endpoint,
    bucket: server.bucket,
    region: server.region,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
  });
  beforeAll(async () => {
    s3 = await startS3Server({ bucket: "backup-photos" });
  });
  afterAll(async () => {
    setImageStore(null);
    await s3?.stop();
  });

  it("a SQLite backup restores into PostgreSQL + S3, backs up from there under writes, and comes back into SQLite + disk with every row and photo", async () => {
    const sqliteArchive = path.join(dir, "for-postgres.zip");
    useUploads(sourcePhotos);
    await writeBackup({ out: sqliteArchive, location: { engine: "sqlite", path: source } });
    const { file: original } = await snapshotOf(sqliteArchive, dir);

    const url = await createDatabase(TEST_POSTGRES, inject("postgresTemplate").replace(/template$/, `backup_${crypto.randomBytes(4).toString("hex")}`));
    const postgres = { engine: "postgres" as const, url, poolSize: 2 };
    setImageStore(storeOn(s3));
    const intoPostgres = await restoreBackup({ file: sqliteArchive, location: postgres, undoDir: path.join(dir, "undo"), copyIntoPostgres: copyDatabase });
    expect(intoPostgres.photos).toMatchObject({ written: 6, present: 6 });

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const postgresArchive = path.join(dir, "from-postgres.zip");
    let written = 0;
    try {
      ({ written } = await underWrites(
        async (n) => void (await client.query("insert into sign_in_failures (username_key, address, at) values ($1, $2, $3)", [`pg-writer-${n}`, "203.0.113.8", Date.now()])),
        () => writeBackup({ out: postgresArchive, location: postgres }),
      ));
    } finally {
      await client.end();
    }
    expect(written).toBeGreaterThan(0);

    const back = path.join(dir, "back", "recipals.db");
    const backPhotos = path.join(dir, "back", "uploads");
    useUploads(backPhotos);
    const intoSqlite = await restoreBackup({ file: postgresArchive, location: { engine: "sqlite", path: back }, undoDir: path.join(dir, "undo"), copyIntoPostgres: copyDatabase });
    expect(intoSqlite.photos).toMatchObject({ written: 6, present: 6 });
    expect(folderDigests(backPhotos)).toEqual(folderDigests(sourcePhotos));

    // Every table as the PostgreSQL backup holds it; and, but for the rows written meanwhile, as the SQLite community was.
    const { file: fromPostgres, manifest } = await snapshotOf(postgresArchive, dir);
    expect(tableDigests(back)).toEqual(tableDigests(fromPostgres));
    const roundTrip = tableDigests(back);
    const started = tableDigests(original);
    delete roundTrip.sign_in_failures;
    delete started.sign_in_failures;
    expect(roundTrip).toEqual(started);
    expect(manifest.database.tables.sign_in_failures).toBeLessThanOrEqual(intoPostgres.tables.sign_in_failures! + written);
  });
});
