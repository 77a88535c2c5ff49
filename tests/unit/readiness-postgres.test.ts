import { execFileSync } from "node:child_process";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

import express from "express";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

import { TEST_POSTGRES } from "../support/postgres";
import { freePort } from "../support/server/server";

// /readyz after PostgreSQL restarts (docs/operator-guide.md, "Health and readiness" and "When
// PostgreSQL is away"): while the database is down it says so within 2 s, and once it is back the
// same process is ready again by itself, on the same database handle. The shared test server must
// not be stopped (other files use it at the same time), so this file starts a PostgreSQL of its
// own in a temporary folder, as the operating system's `postgres` user (initdb refuses root), and
// points this file's app modules at it before they are loaded.

const BIN = "/usr/lib/postgresql/15/bin";
const reason = !TEST_POSTGRES
  ? "no PostgreSQL run"
  : !fs.existsSync(path.join(BIN, "initdb"))
    ? `no ${BIN}/initdb`
    : process.getuid?.() !== 0
      ? "starting a PostgreSQL of its own needs root (to act as the postgres user)"
      : null;
if (TEST_POSTGRES && reason) console.warn(`[readiness-postgres] skipped: ${reason}`);

const asPostgres = (command: string, args: string[]) =>
  execFileSync("runuser", ["-u", "postgres", "--", path.join(BIN, command), ...args], { stdio: "pipe", timeout: 30_000 }).toString();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(reason)("readiness after PostgreSQL restarts (a private PostgreSQL 15)", () => {
  const dir = reason ? "" : fs.mkdtempSync(path.join(os.tmpdir(), "recipals-restart-"));
  const data = path.join(dir, "data");
  let port = 0;
  let running = false;
  let base = "";
  let closeHttp = () => {};
  let app: {
    database: typeof import("~/server/db/connection.server").db;
    readinessProblems: typeof import("~/server/readiness.server").readinessProblems;
    closeDatabaseHandle: typeof import("~/server/db/connection.server").closeDatabaseHandle;
  } | null = null;

  const start = () => {
    asPostgres("pg_ctl", ["-D", data, "-l", path.join(dir, "postgres.log"), "-w", "-t", "20", "-o", `-p ${port}`, "start"]);
    running = true;
  };
  const stop = () => {
    asPostgres("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "20", "stop"]);
    running = false;
  };
  const readyz = async () => {
    const answer = await fetch(`${base}/readyz`);
    return { status: answer.status, body: (await answer.json()) as { status: string; problems?: { check: string }[] } };
  };

  beforeAll(async () => {
    fs.chmodSync(dir, 0o755);
    execFileSync("chown", ["postgres", dir]);
    port = await freePort();
    asPostgres("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--no-instructions", "-E", "UTF8", "--locale=C"]);
    fs.appendFileSync(
      path.join(data, "postgresql.conf"),
      [`listen_addresses = '127.0.0.1'`, `unix_socket_directories = '${dir}'`, "fsync = off", "shared_buffers = 16MB", "max_connections = 20", ""].join("\n"),
    );
    start();

    // This file's app modules open and migrate the private server (connection.server.ts reads the
    // settings when it is first loaded, which is here); photos go to a folder of its own.
    process.env.DATABASE_URL = `postgres://postgres@127.0.0.1:${port}/postgres`;
    process.env.DATABASE_POOL_SIZE = "2";
    process.env.UPLOADS_DIR = path.join(dir, "uploads");
    const connection = await import("~/server/db/connection.server");
    const readiness = await import("~/server/readiness.server");
    const { healthRoutes } = await import("~/server/runtime/health.server");
    app = { database: connection.db, readinessProblems: readiness.readinessProblems, closeDatabaseHandle: connection.closeDatabaseHandle };

    const server = express().use(healthRoutes()).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    closeHttp = () => server.close();
  }, 60_000);

  afterAll(async () => {
    closeHttp();
    try {
      if (app) await app.closeDatabaseHandle(app.database);
    } finally {
      try {
        if (running) stop();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  }, 30_000);

  it("is ready, says 'database' within 2 s while PostgreSQL is stopped, and is ready again by itself once it is back", async () => {
    const { database, readinessProblems } = app!;
    // A lost idle connection gives one warning line (the operator's log); not this test's business.
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      expect(await readinessProblems(database)).toEqual([]);
      expect(await readyz()).toEqual({ status: 200, body: { status: "ready" } });
      // The handle the HTTP route uses is this one: one per process.
      expect(globalThis.__recipalsDb).toBe(database);
      await sql`create table restart_probe (n integer)`.execute(database);

      stop();
      let started = performance.now();
      const down = await readinessProblems(database);
      expect(performance.now() - started).toBeLessThan(2000);
      expect(down.map((problem) => problem.check)).toEqual(["database"]);
      started = performance.now();
      const downHttp = await readyz();
      expect(performance.now() - started).toBeLessThan(2000);
      expect(downHttp.status).toBe(503);
      expect(downHttp.body.problems?.map((problem) => problem.check)).toEqual(["database"]);

      start();
      const deadline = performance.now() + 10_000;
      let problems = await readinessProblems(database);
      while (problems.length > 0 && performance.now() < deadline) {
        await sleep(200);
        problems = await readinessProblems(database);
      }
      expect(problems).toEqual([]);
      expect(await readyz()).toEqual({ status: 200, body: { status: "ready" } });
      // The same handle (no new pool was opened) answers real queries and writes.
      expect(globalThis.__recipalsDb).toBe(database);
      await sql`insert into restart_probe (n) values (1)`.execute(database);
      const { rows } = await sql<{ users: number; probes: number }>`
        select (select count(*) from users)::int as users, (select count(*) from restart_probe)::int as probes`.execute(database);
      expect(rows).toEqual([{ users: expect.any(Number) as number, probes: 1 }]);
    } finally {
      warn.mockRestore();
    }
  });
});
