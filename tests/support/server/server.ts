import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";

import SQLite from "better-sqlite3";

import { assetsDirectoryFor } from "../../../remix.config.js";
import { buildIsStale } from "../../../scripts/build-state.js";
import { freePort } from "../free-port";

export { freePort };

// Real server processes for the security tests (loopback only, free ports, temp dirs). The
// server build lives in RECIPALS_BUILD_DIR (default build-sec), built once and shared by the
// test files under a lock; a seeded database is prepared once and copied for each test.

export const ROOT = path.resolve(__dirname, "../../..");
export const BUILD_DIR = process.env.RECIPALS_BUILD_DIR ?? "build-sec";
/** Where that build's browser files are. */
export const ASSETS_DIR = assetsDirectoryFor(BUILD_DIR);
export const SEED_FILE = process.env.RECIPALS_SEED_FILE ?? path.resolve(ROOT, "../shared/data/recipals-seed.json");
export const ADMIN_PASSWORD = "sec-admin-password";
export const SEEDED = { username: "jasminduong09", password: "ReciPals", id: "123" } as const;
export const SEEDED_2 = { username: "danieljacob", password: "ReciPals", id: "234" } as const;

function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${path.basename(args[0] ?? command)} timed out after ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Runs `body` while holding a cross-process lock (a directory), so parallel test files build once. */
async function withLock<T>(name: string, body: () => Promise<T>, waitMs = 240_000): Promise<T> {
  const lock = path.join(os.tmpdir(), `recipals-sec-${name}.lock`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 180_000) fs.rmSync(lock, { recursive: true, force: true }); // a crashed holder
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lock}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await body();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** A clean environment for child processes: nothing of vitest's (DATABASE_PATH=:memory:, NODE_ENV=test). */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? os.tmpdir(),
    TMPDIR: os.tmpdir(),
    LANG: "C.UTF-8",
    RECIPALS_BUILD_DIR: BUILD_DIR,
    RECIPALS_SEED_FILE: SEED_FILE,
    SEED_ADMIN_PASSWORD: ADMIN_PASSWORD,
    // The tests sign in as seeded people with the published password (production seeds random ones).
    SEED_USER_PASSWORD: "ReciPals",
    SESSION_SECRET: "sec-session-secret-0123456789abcdef",
    ADMIN_SECRET: "sec-admin-secret",
    MEALDB_BASE_URL: "http://127.0.0.1:9/none",
    RECIPALS_SEED_PHOTOS: "link",
    // Passwords hashed at the tests' cost (docs/testing.md); production-install.test.ts runs without it.
    RECIPALS_TEST_PASSWORD_COST: "low",
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    ...extra,
  };
}

const buildFile = () => path.join(ROOT, BUILD_DIR, "index.js");

/** Builds the server into BUILD_DIR when it is missing or older than the sources. */
export async function ensureBuild(): Promise<void> {
  await withLock(`build-${BUILD_DIR}`, async () => {
    if (!buildIsStale(buildFile())) return;
    const result = await run(process.execPath, [path.join(ROOT, "scripts/build.js")], childEnv({}), 180_000);
    if (result.code !== 0) throw new Error(`build failed:\n${result.output}`);
  });
}

/**
 * A migrated and seeded database file (sample data + admin), prepared once per build and copied
 * for each caller, so no test pays for seeding twice.
 */
export async function seededDatabase(dir: string): Promise<string> {
  await ensureBuild();
  const stamp = Math.round(fs.statSync(buildFile()).mtimeMs);
  // Named after this checkout too: two checkouts testing on one machine never share or delete each other's.
  const checkout = crypto.createHash("sha256").update(ROOT).digest("hex").slice(0, 10);
  const prefix = `recipals-sec-template-${checkout}-${BUILD_DIR}-`;
  const template = path.join(os.tmpdir(), `${prefix}${stamp}.db`);
  await withLock(`template-${BUILD_DIR}`, async () => {
    if (fs.existsSync(template)) return;
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-sec-seed-"));
    const file = path.join(scratch, "recipals.db");
    const result = await run(process.execPath, [path.join(ROOT, "scripts/prepare.js")], childEnv({ DATABASE_PATH: file }), 240_000);
    if (result.code !== 0) throw new Error(`seeding failed:\n${result.output}`);
    const sqlite = new SQLite(file);
    sqlite.pragma("wal_checkpoint(TRUNCATE)");
    sqlite.close();
    fs.copyFileSync(file, `${template}.tmp`);
    fs.renameSync(`${template}.tmp`, template);
    // Templates of older builds are of no more use.
    for (const name of fs.readdirSync(os.tmpdir())) {
      if (name.startsWith(prefix) && path.join(os.tmpdir(), name) !== template) fs.rmSync(path.join(os.tmpdir(), name), { force: true });
    }
    fs.rmSync(scratch, { recursive: true, force: true });
  });
  fs.mkdirSync(dir, { recursive: true });
  const target = path.join(dir, "recipals.db");
  fs.copyFileSync(template, target);
  return target;
}

/**
 * Migrates and seeds a fresh database at `file` as `npm start` does on a new machine, with
 * `unset` removed from the environment (e.g. SEED_USER_PASSWORD, as production has it). Returns
 * what the seed printed.
 */
export async function prepareFreshDatabase(file: string, { unset = [] as string[] } = {}): Promise<string> {
  await ensureBuild();
  const env = childEnv({ DATABASE_PATH: file });
  for (const name of unset) delete env[name];
  const result = await run(process.execPath, [path.join(ROOT, "scripts/prepare.js")], env, 240_000);
  if (result.code !== 0) throw new Error(`seeding failed:\n${result.output}`);
  return result.output;
}

export interface RunningServer {
  port: number;
  origin: string;
  pid: number;
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill: (signal?: NodeJS.Signals) => void;
}

const running = new Set<RunningServer>();

/** Starts scripts/server.js on a free loopback port against `databasePath` and waits until it answers. */
export async function startServer({
  databasePath,
  env = {},
  port,
  nodeArgs = [],
}: {
  databasePath: string;
  env?: Record<string, string>;
  port?: number;
  /** Extra node flags (e.g. the memory probe). */
  nodeArgs?: string[];
}): Promise<RunningServer> {
  await ensureBuild();
  const chosen = port ?? (await freePort());
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, "scripts/server.js")], {
    cwd: ROOT,
    env: childEnv({ DATABASE_PATH: databasePath, PORT: String(chosen), ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const server: RunningServer = {
    port: chosen,
    origin: `http://127.0.0.1:${chosen}`,
    pid: child.pid!,
    child,
    output: () => output,
    exited,
    kill: (signal = "SIGKILL") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
  running.add(server);
  void exited.then(() => running.delete(server));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
    try {
      const res = await request(server, "GET", "/ReciPals/Info", { timeoutMs: 5_000 });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      server.kill();
      throw new Error(`server did not answer within 90 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return server;
}

/** Kills every server this file started (for afterAll, failures included). */
export async function stopAllServers(): Promise<void> {
  const all = [...running];
  for (const server of all) server.kill("SIGKILL");
  await Promise.all(all.map((server) => Promise.race([server.exited, new Promise((r) => setTimeout(r, 5_000))])));
}

process.once("exit", () => {
  for (const server of running) server.kill("SIGKILL");
});

// ---------------------------------------------------------------------------------------------
// HTTP on loopback, with full control over headers (Origin, Host) and no redirects followed.

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  setCookies: string[];
}

export const keepAliveAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function request(
  server: { port: number },
  method: string,
  urlPath: string,
  { headers = {}, body, timeoutMs = 30_000, agent }: { headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number; agent?: http.Agent } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: server.port, method, path: urlPath, headers: { ...(body !== undefined ? { "Content-Length": String(Buffer.byteLength(body)) } : {}), ...headers }, agent: agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const setCookie = res.headers["set-cookie"];
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), setCookies: Array.isArray(setCookie) ? setCookie : [] });
        });
        res.on("error", reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${urlPath}`)));
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export function form(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const item of Array.isArray(value) ? value : [value]) params.append(name, item);
  return params.toString();
}

/** A same-origin form post, as a browser on this site sends it. */
export function postForm(server: RunningServer, urlPath: string, fields: Record<string, string | string[]>, cookie?: string, extra: Record<string, string> = {}, agent?: http.Agent) {
  return request(server, "POST", urlPath, {
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.origin, ...(cookie ? { Cookie: cookie } : {}), ...extra },
    body: form(fields),
    agent,
  });
}

/** Signs in through the login form and returns the session cookie pair (`recipals_session=…`). */
export async function signIn(server: RunningServer, username: string, password: string): Promise<string> {
  const res = await postForm(server, "/ReciPals/Account/Login", { username, password, redirectTo: "/ReciPals/Home" });
  const cookie = res.setCookies.find((c) => c.startsWith("recipals_session="));
  if (res.status !== 302 || !cookie) throw new Error(`sign-in as ${username} failed: ${res.status} ${res.body.slice(0, 200)}`);
  return cookie.split(";")[0]!;
}

/** Resident memory of a process in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** CPU seconds a process has used so far (Linux /proc; clock ticks of 1/100 s). */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Waits until the process has been (nearly) idle for a second: what it had to do is done. */
export async function untilIdle(pid: number, { timeoutMs = 120_000, busySeconds = 0.05 } = {}): Promise<number> {
  const started = Date.now();
  let last = cpuSeconds(pid);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const now = cpuSeconds(pid);
    if (now - last < busySeconds) return Date.now() - started;
    last = now;
    if (Date.now() - started > timeoutMs) throw new Error(`the process was still busy after ${timeoutMs} ms`);
  }
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `recipals-sec-${prefix}-`));
}

export const MEMORY_PROBE = ["--expose-gc", "--require", path.join(__dirname, "memory-probe.cjs")];

/** After full GCs: the server's live heap, its live memory outside the heap (buffers) and RSS in MB (needs `nodeArgs: MEMORY_PROBE`). */
export async function probeMemory(server: RunningServer): Promise<{ heapMb: number; externalMb: number; rssMb: number }> {
  const before = server.output().split("MEMORY ").length;
  server.child.kill("SIGUSR2");
  const deadline = Date.now() + 15_000;
  for (;;) {
    const parts = server.output().split("MEMORY ");
    if (parts.length > before) {
      const line = parts[parts.length - 1]!.split("\n")[0]!;
      const m = JSON.parse(line) as { heapUsed: number; rss: number; external: number };
      return { heapMb: m.heapUsed / 1024 / 1024, externalMb: m.external / 1024 / 1024, rssMb: m.rss / 1024 / 1024 };
    }
    if (Date.now() > deadline) throw new Error("the server did not report its memory");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Makes a failed write on `socket` call `onError` instead of destroying the socket (Node's
 * default): what the server sent before it closed is still there to be read, as a browser reads
 * a refusal while its upload is cut.
 */
export function keepReadingAfterWriteErrors(socket: net.Socket, onError: (error: Error) => void): void {
  type Callback = (error?: Error | null) => void;
  const writable = socket as unknown as { _write: (chunk: unknown, encoding: unknown, callback: Callback) => void; _writev: (chunks: unknown, callback: Callback) => void };
  const keepReading =
    (callback: Callback): Callback =>
    (error) => {
      if (error) onError(error);
      callback();
    };
  const originalWrite = writable._write.bind(socket);
  const originalWritev = writable._writev.bind(socket);
  writable._write = (chunk, encoding, callback) => originalWrite(chunk, encoding, keepReading(callback));
  writable._writev = (chunks, callback) => originalWritev(chunks, keepReading(callback));
}
