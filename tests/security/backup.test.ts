import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { openBackup } from "~/server/ops/backup.server";

import { emptyLedger, writeLoad, type Ledger, type LoadUser } from "../support/server/load";
import { childEnv, request, ROOT, seededDatabase, SEEDED, SEEDED_2, signIn, startServer, stopAllServers, tempDir } from "../support/server/server";

// Backups (docs/operator-guide.md, "Backups"): `npm run backup` archives the database (SQLite's
// online backup) while a real server takes writes, keeping the newest BACKUP_KEEP; `npm run
// restore` refuses while the server has the file open, refuses damaged or foreign files, and puts
// a backup back. Archives and photos in depth: tests/unit/backup-restore.test.ts.

let dir: string;
beforeAll(() => {
  dir = tempDir("backup");
});
afterAll(async () => {
  await stopAllServers();
  fs.rmSync(dir, { recursive: true, force: true });
});

function script(name: "backup" | "restore", args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, `scripts/${name}.js`), ...args], { cwd: ROOT, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

/** The database snapshot a backup archive holds, extracted beside it. */
async function snapshotIn(archive: string): Promise<string> {
  const opened = await openBackup(archive);
  const file = `${archive}.${crypto.randomBytes(4).toString("hex")}.sqlite`;
  try {
    await opened.extract("database.sqlite", file);
    return file;
  } finally {
    opened.close();
  }
}

function counts(file: string) {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const n = (table: string) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    return { integrity: db.pragma("integrity_check", { simple: true }), fk: (db.pragma("foreign_key_check") as unknown[]).length, likes: n("likes"), comments: n("comments"), recipes: n("recipes") };
  } finally {
    db.close();
  }
}

/** The acknowledged writes of `ledger` (up to the given lengths) are all in `file`. */
function containsAcknowledged(file: string, ledger: Ledger, upTo: { likes: number; comments: number; recipes: number }) {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    for (const { postId, userId } of ledger.likes.slice(0, upTo.likes)) expect(db.prepare("select 1 from likes where post_id = ? and user_id = ?").get(postId, userId), `like ${postId}`).toBeDefined();
    for (const { postId, text } of ledger.comments.slice(0, upTo.comments)) expect(db.prepare("select 1 from comments where post_id = ? and text = ?").get(postId, text), text).toBeDefined();
    for (const { recipeId } of ledger.recipes.slice(0, upTo.recipes)) expect(db.prepare("select 1 from recipes where id = ?").get(recipeId), recipeId).toBeDefined();
  } finally {
    db.close();
  }
}

describe("backup and restore", () => {
  it(
    "backs up consistently during writes (keeping the newest N), refuses to restore under a running server, then restores",
    async () => {
      const file = await seededDatabase(path.join(dir, "live"));
      const backups = path.join(dir, "live", "backups");
      const env = { DATABASE_PATH: file, BACKUP_KEEP: "2" };
      const server = await startServer({ databasePath: file });
      const users: LoadUser[] = [
        { cookie: await signIn(server, SEEDED.username, SEEDED.password), id: SEEDED.id },
        { cookie: await signIn(server, SEEDED_2.username, SEEDED_2.password), id: SEEDED_2.id },
      ];
      const ledger = emptyLedger();
      let running = true;
      const load = writeLoad({ servers: [server], users, concurrency: 8, mix: { like: 3, comment: 3, recipe: 1 }, keepGoing: () => running, ledger, tag: "backup" });
      await new Promise((r) => setTimeout(r, 800));

      // Three backups while the load runs; writes acknowledged before each one started must be in it.
      const taken: { file: string; acknowledged: { likes: number; comments: number; recipes: number } }[] = [];
      for (let i = 0; i < 3; i += 1) {
        const acknowledged = { likes: ledger.likes.length, comments: ledger.comments.length, recipes: ledger.recipes.length };
        const result = await script("backup", [], env);
        expect(result.code, result.output).toBe(0);
        const written = /to (\S+recipals-[^ :]+\.zip):/.exec(result.output)?.[1];
        expect(written, result.output).toBeDefined();
        taken.push({ file: written!, acknowledged });
        await new Promise((r) => setTimeout(r, 300));
      }
      running = false;
      await load;
      expect(ledger.serverErrors, "no 5xx while backing up").toEqual([]);

      // BACKUP_KEEP=2: only the two newest remain; each is whole and consistent.
      const names = fs.readdirSync(backups).filter((n) => n.endsWith(".zip")).sort();
      expect(names).toEqual(taken.slice(1).map((t) => path.basename(t.file)));
      expect(fs.readdirSync(backups).filter((n) => n.includes("partial"))).toEqual([]);
      for (const { file: backup, acknowledged } of taken.slice(1)) {
        const c = counts(await snapshotIn(backup));
        expect(c.integrity).toBe("ok");
        expect(c.fk).toBe(0);
        containsAcknowledged(await snapshotIn(backup), ledger, acknowledged);
      }
      const [older, newer] = await Promise.all(taken.slice(1).map(async (t) => counts(await snapshotIn(t.file))));
      expect(newer!.comments).toBeGreaterThanOrEqual(older!.comments);

      // While the server has the database open, restore refuses and changes nothing.
      const live = counts(file);
      // Not even with --force (which only allows replacing a database that holds data).
      const refused = await script("restore", [taken[1]!.file, "--force"], env);
      expect(refused.code).not.toBe(0);
      expect(refused.output).toMatch(/is open in process \d+.*stop the server first/);
      expect(counts(file)).toEqual(live);

      // Stopped: restore puts the older backup back; the later writes are gone, the earlier ones are there.
      server.kill("SIGTERM");
      await server.exited;
      // It holds data: refused without --force, replaced with it.
      const notEmpty = await script("restore", [taken[1]!.file], env);
      expect(notEmpty.output).toMatch(/the database holds data .*pass --force/);
      const restored = await script("restore", [taken[1]!.file, "--force"], env);
      expect(restored.code, restored.output).toBe(0);
      expect(restored.output).toMatch(/What was there before is kept as .*recipals-before-restore-.*\.zip/);
      expect(fs.existsSync(`${file}-wal`)).toBe(false);
      expect(fs.existsSync(`${file}-shm`)).toBe(false);
      const after = counts(file);
      expect(after).toEqual(counts(await snapshotIn(taken[1]!.file)));
      containsAcknowledged(file, ledger, taken[1]!.acknowledged);
      // The pre-restore copy holds everything the server had (undo).
      const undo = fs.readdirSync(backups).find((n) => n.startsWith("recipals-before-restore-"))!;
      expect(counts(await snapshotIn(path.join(backups, undo)))).toEqual(live);

      // The server starts on the restored file and serves it.
      const again = await startServer({ databasePath: file });
      expect((await request(again, "GET", "/ReciPals/Home")).status).toBe(200);
      again.kill("SIGTERM");
      await again.exited;
    },
    240_000,
  );

  it("refuses a damaged or foreign file, leaving the database as it was", async () => {
    const file = await seededDatabase(path.join(dir, "bad"));
    const env = { DATABASE_PATH: file };
    const before = counts(file);
    const garbage = path.join(dir, "garbage.db");
    fs.writeFileSync(garbage, "this is not a database");
    const truncated = path.join(dir, "truncated.db");
    fs.writeFileSync(truncated, fs.readFileSync(file).subarray(0, 64 * 1024));
    const foreign = path.join(dir, "foreign.db");
    const other = new SQLite(foreign);
    other.exec("create table notes (id integer primary key, text text)");
    other.close();
    for (const [bad, message] of [
      [garbage, /is not a whole ReciPals backup: it cannot be read as a zip archive/],
      [truncated, /not a readable SQLite database|fails integrity_check|not a ReciPals database/],
      [foreign, /not a ReciPals database/],
      [path.join(dir, "missing.db"), /is not a file/],
    ] as const) {
      const result = await script("restore", [bad], env);
      expect(result.code, bad).toBe(1);
      expect(result.output, bad).toMatch(message);
    }
    const none = await script("restore", [], env);
    expect(none.code).toBe(1);
    expect(none.output).toMatch(/name one backup file/);
    expect(counts(file)).toEqual(before);
    expect(fs.existsSync(path.join(dir, "bad", "backups"))).toBe(false);
  });

  it("backup refuses clearly when there is no database or BACKUP_KEEP is nonsense", async () => {
    const missing = await script("backup", [], { DATABASE_PATH: path.join(dir, "nothing", "recipals.db") });
    expect(missing.code).toBe(1);
    expect(missing.output).toMatch(/no database at/);
    const file = await seededDatabase(path.join(dir, "keep"));
    const keep = await script("backup", [], { DATABASE_PATH: file, BACKUP_KEEP: "zero" });
    expect(keep.code).toBe(1);
    expect(keep.output).toMatch(/BACKUP_KEEP must be a whole number/);
  });
});
