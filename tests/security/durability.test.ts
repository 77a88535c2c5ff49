import fs from "node:fs";
import http from "node:http";
import path from "node:path";

import SQLite from "better-sqlite3";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { emptyLedger, usersOf, verifyDatabase, writeLoad } from "../support/server/load";
import { request, seededDatabase, startServer, stopAllServers, tempDir, type RunningServer } from "../support/server/server";

// Durability (issue 10 item 5), with real processes on loopback: acknowledged writes survive a
// SIGKILL in the middle of a write load; SIGTERM lets in-flight requests finish and closes the
// database; concurrent writers (two servers and an outside writer on one file) never get an
// error page for SQLITE_BUSY. DURABILITY_SECONDS sets the length of each load phase.

const LOAD_MS = Number(process.env.DURABILITY_SECONDS ?? 3) * 1000;
let dir: string;

beforeAll(() => {
  dir = tempDir("durability");
});
afterAll(async () => {
  await stopAllServers();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("crash safety", () => {
  it(
    "every acknowledged like, comment and recipe survives a SIGKILL mid-load (twice), and the file passes integrity_check",
    async () => {
      const file = await seededDatabase(path.join(dir, "kill"));
      const ledger = emptyLedger();
      const figures: string[] = [];
      for (let cycle = 1; cycle <= 2; cycle += 1) {
        const server = await startServer({ databasePath: file });
        const users = await usersOf(server, file);
        const before = { ...ledger, likes: ledger.likes.length, comments: ledger.comments.length, recipes: ledger.recipes.length };
        let killed = false;
        const load = writeLoad({ servers: [server], users, concurrency: 12, mix: { like: 4, comment: 4, recipe: 1 }, keepGoing: () => !killed, ledger, tag: `kill${cycle}` });
        await sleep(LOAD_MS);
        // Kill while requests are in flight: no chance to finish, flush or close anything.
        server.kill("SIGKILL");
        const exit = await server.exited;
        killed = true;
        await load;
        expect(exit.signal).toBe("SIGKILL");
        figures.push(
          `cycle ${cycle}: acknowledged ${ledger.likes.length - before.likes} likes, ${ledger.comments.length - before.comments} comments, ` +
            `${ledger.recipes.length - before.recipes} recipes; ${ledger.transportErrors} requests cut by the kill so far`,
        );
        expect(ledger.likes.length + ledger.comments.length + ledger.recipes.length, "the load wrote something before the kill").toBeGreaterThan(before.likes + before.comments + before.recipes);
      }
      expect(ledger.serverErrors, "no 5xx during the load").toEqual([]);
      expect(ledger.transportErrors, "the kills cut requests in flight").toBeGreaterThan(0);

      // Restart on the same file: SQLite recovers from the WAL; everything acknowledged is there.
      const server = await startServer({ databasePath: file });
      const counts = verifyDatabase(file, ledger);
      console.info(`durability: ${figures.join("; ")}; verified ${JSON.stringify(counts)} after restart`);
      // The pages of acknowledged recipes render.
      for (const { recipeId } of ledger.recipes.slice(-3)) expect((await request(server, "GET", `/ReciPals/Recipes/${recipeId}`)).status).toBe(200);
      server.kill("SIGTERM");
      await server.exited;
    },
    240_000,
  );
});

/**
 * A request the server has certainly started handling: sent with `Expect: 100-continue`, so the
 * server's "100 Continue" proves Express has parsed it and handed it to the app; the body is
 * sent only when `finish()` is called.
 */
function inFlight(server: RunningServer, urlPath: string, headers: Record<string, string>, body: Buffer) {
  const req = http.request({
    host: "127.0.0.1",
    port: server.port,
    method: "POST",
    path: urlPath,
    agent: false,
    headers: { ...headers, "Content-Length": String(body.length), Expect: "100-continue", Origin: server.origin },
  });
  const accepted = new Promise<void>((resolve) => req.on("continue", () => resolve()));
  const answered = new Promise<{ status: number; location?: string }>((resolve, reject) => {
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on("error", reject);
  });
  answered.catch(() => undefined); // awaited by the test; never an unhandled rejection
  req.flushHeaders();
  return {
    accepted,
    /** Sends the body (in two halves, `gapMs` apart) and waits for the answer. */
    finish: async (gapMs = 0) => {
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half));
      if (gapMs) await sleep(gapMs);
      req.end(body.subarray(half));
      return answered;
    },
  };
}

describe("graceful stop", () => {
  it(
    "SIGTERM finishes in-flight requests (one still uploading its body), refuses new ones, exits 0 and closes the database",
    async () => {
      const file = await seededDatabase(path.join(dir, "term"));
      const server = await startServer({ databasePath: file });
      const [user] = await usersOf(server, file);

      // A recipe with a photo, and a handful of comments, all accepted by the server before SIGTERM.
      const photo = await sharp({ create: { width: 1200, height: 900, channels: 3, background: "#888", noise: { type: "gaussian", mean: 128, sigma: 50 } } }).jpeg().toBuffer();
      const boundary = `----sec${Date.now()}`;
      const recipeId = crypto.randomUUID();
      const fields: [string, string][] = [
        ["intent", "save"],
        ["mode", "create"],
        ["name", "Graceful stop"],
        ["description", "Sent while stopping"],
        ["sectionId", ""],
        ["sectionTitle", "Main"],
        ["ingredient-0", "Salt"],
        ["step", "Stir."],
        ["totalTime", "1min"],
        ["serves", "1"],
        ["tags", ""],
      ];
      const multipart = Buffer.concat([
        ...fields.map(([name, value]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)),
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
        photo,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const upload = inFlight(server, `/ReciPals/Editor/${recipeId}`, { "Content-Type": `multipart/form-data; boundary=${boundary}`, Cookie: user!.cookie }, multipart);
      const texts = Array.from({ length: 10 }, (_, i) => `in flight ${i} ${Math.random().toString(36).slice(2)}`);
      const comments = texts.map((text) =>
        inFlight(server, "/ReciPals/Recipes/recipeBot-R5", { "Content-Type": "application/x-www-form-urlencoded", Cookie: user!.cookie }, Buffer.from(new URLSearchParams({ intent: "comment", text }).toString())),
      );
      await Promise.all([upload.accepted, ...comments.map((c) => c.accepted)]);

      server.kill("SIGTERM");
      await sleep(500);
      // After SIGTERM the port takes no new connections…
      await expect(request(server, "GET", "/ReciPals/Info", { timeoutMs: 3_000 })).rejects.toThrow();
      // …but everything it had started finishes, the upload included (its second half sent now).
      const [uploaded, ...answers] = await Promise.all([upload.finish(1_000), ...comments.map((c) => c.finish())]);
      expect(answers.map((a) => a.status)).toEqual(texts.map(() => 302));
      expect(uploaded!.status).toBe(302);
      expect(uploaded!.location).toMatch(/\/Posts\//);

      const exit = await Promise.race([server.exited, sleep(15_000).then(() => ({ code: -1, signal: null }))]);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(server.output()).toContain("SIGTERM: finishing in-flight requests");
      // The database was closed cleanly: SQLite checkpointed and removed the WAL on the last close.
      expect(fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0).toBe(0);

      const db = new SQLite(file, { readonly: true });
      try {
        expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
        for (const text of texts) expect(db.prepare("select 1 from comments where text = ?").get(text), text).toBeDefined();
        expect((db.prepare("select photo from recipes where id = ?").get(recipeId) as { photo: string }).photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
      } finally {
        db.close();
      }
    },
    180_000,
  );
});

describe("concurrent writers", () => {
  it(
    "two servers on one database plus an outside writer holding the write lock: no SQLITE_BUSY error page, nothing lost",
    async () => {
      const file = await seededDatabase(path.join(dir, "busy"));
      const [a, b] = await Promise.all([startServer({ databasePath: file }), startServer({ databasePath: file })]);
      const users = [...(await usersOf(a!, file)), ...(await usersOf(b!, file))];
      let running = true;
      const load = writeLoad({ servers: [a!, b!], users, concurrency: 12, mix: { like: 3, comment: 2, recipe: 2, profile: 3, read: 1 }, keepGoing: () => running, tag: "busy" });

      // Meanwhile another process-like writer takes the write lock for 400 ms at a time.
      const outside = new SQLite(file);
      outside.pragma("busy_timeout = 10000");
      const deadline = Date.now() + LOAD_MS + 1_000;
      let holds = 0;
      while (Date.now() < deadline) {
        outside.exec("BEGIN IMMEDIATE");
        outside.prepare("insert into sign_in_failures (username_key, address, at) values ('outside-writer', '', ?)").run(Date.now());
        await sleep(400);
        outside.exec("COMMIT");
        holds += 1;
        await sleep(100);
      }
      outside.close();
      running = false;
      const ledger = await load;
      console.info(`concurrent writers: ${holds} outside lock holds; statuses ${JSON.stringify(ledger.statuses)}; acknowledged ${ledger.likes.length} likes, ${ledger.comments.length} comments, ${ledger.recipes.length} recipes`);
      expect(ledger.serverErrors, "SQLITE_BUSY must never become an error page").toEqual([]);
      expect(ledger.transportErrors).toBe(0);
      expect(ledger.likes.length + ledger.comments.length + ledger.recipes.length).toBeGreaterThan(0);
      verifyDatabase(file, ledger);
      for (const output of [a!.output(), b!.output()]) expect(output).not.toMatch(/SQLITE_BUSY|database is locked/);
    },
    180_000,
  );
});
