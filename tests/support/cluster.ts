import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import pg from "pg";

import { freePort } from "./free-port";
import { startS3Server } from "./s3rver";

// The cluster the tests in this folder run against: two app servers (scripts/server.js) with the
// same settings behind nginx (round robin), on one database and one photo store. Everything
// listens on 127.0.0.1 and is stopped by pid. The runner (global-setup.ts) starts it; the tests
// read its description from a JSON file (CLUSTER_STATE_ENV) and may kill and restart one server.
//
// What the servers share, chosen by two switches:
//   CLUSTER_DB=postgres (default) - a fresh database `recipals_cluster_<pid>` made through
//     TEST_POSTGRES_URL, as DATABASE_URL. With S3 too, each server keeps its own DATABASE_PATH
//     folder, so the servers share nothing the database and the bucket do not share.
//   CLUSTER_DB=sqlite - one SQLite file (DATABASE_PATH) both servers open: one machine only.
//   CLUSTER_IMAGES=s3 (default) - one bucket on s3rver (tests/support/s3rver.ts), as IMAGE_STORE=s3
//     and the S3_* settings.
//   CLUSTER_IMAGES=disk - the uploads folder beside one shared DATABASE_PATH: one machine only.

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CLUSTER_STATE_ENV = "RECIPALS_CLUSTER_STATE";
/** Its own build folder, so a cluster run never races another run's build on this machine. */
const BUILD_DIR = process.env.RECIPALS_BUILD_DIR ?? "build-cluster";

export const ADMIN_PASSWORD = "cluster-admin-password";
const SESSION_SECRET = "cluster-session-secret-0123456789abcdef";
const ADMIN_SECRET = "cluster-admin-secret";
/** Longer than any test: only invalidation, never expiry, can make a cached page current again. */
const PAGE_CACHE_SECONDS = "120";
/** How long nginx leaves a server alone after one failed attempt (max_fails=1). */
export const FAIL_TIMEOUT_SECONDS = 2;

export type DbEngine = "postgres" | "sqlite";
export type ImageStore = "s3" | "disk";
export type ServerName = "a" | "b";

export interface AppServerState {
  name: ServerName;
  port: number;
  pid: number;
  log: string;
}

export interface ClusterState {
  /** The balancer: every test request goes here. */
  url: string;
  dir: string;
  db: DbEngine;
  images: ImageStore;
  /** PostgreSQL: the cluster's own database. */
  databaseUrl: string | null;
  /** SQLite: the file both servers share. */
  databasePath: string | null;
  s3: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string } | null;
  servers: AppServerState[];
  /** Everything a server is started with but its port (the same for both). */
  serverEnv: Record<string, string>;
  /** Per server: the DATABASE_PATH folder (shared or not, see above). */
  dataDirs: Record<ServerName, string>;
  nginx: { pid: number; port: number; errorLog: string; accessLog: string };
  adminPassword: string;
}

export function choices(): { db: DbEngine; images: ImageStore } {
  const db = (process.env.CLUSTER_DB ?? "postgres").toLowerCase();
  const images = (process.env.CLUSTER_IMAGES ?? "s3").toLowerCase();
  if (db !== "postgres" && db !== "sqlite") throw new Error(`CLUSTER_DB must be "postgres" or "sqlite", not ${JSON.stringify(db)}.`);
  if (images !== "s3" && images !== "disk") throw new Error(`CLUSTER_IMAGES must be "s3" or "disk", not ${JSON.stringify(images)}.`);
  return { db, images };
}

export function readState(file = process.env[CLUSTER_STATE_ENV]): ClusterState {
  if (!file) throw new Error(`${CLUSTER_STATE_ENV} is not set: run these tests with -c playwright.cluster.config.ts (its globalSetup starts the cluster).`);
  return JSON.parse(fs.readFileSync(file, "utf8")) as ClusterState;
}

export function writeState(state: ClusterState, file = process.env[CLUSTER_STATE_ENV]): void {
  if (!file) throw new Error(`${CLUSTER_STATE_ENV} is not set.`);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(state, null, 2), { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  // An exited child nobody has reaped yet (a server a test worker restarted, orphaned when the
  // worker ended) still answers signals: it counts as gone.
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/** The last lines of a log file, for failure messages. */
export function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/** SIGTERM (or `signal`), then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopPid(pid: number, { signal = "SIGTERM" as NodeJS.Signals, graceMs = 10_000 } = {}): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    return;
  }
  const killDeadline = Date.now() + 5_000;
  while (isAlive(pid) && Date.now() < killDeadline) await sleep(20);
}

/** A server's whole environment: nothing of the runner's own (DATABASE_PATH, NODE_ENV, …) leaks in. */
function childEnv(serverEnv: Record<string, string>, extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...serverEnv, ...extra, NODE_ENV: "production" };
}

/** Runs to the end with output in a log file; throws with its tail when it fails. */
function runToEnd(args: string[], env: NodeJS.ProcessEnv, log: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(log, "a");
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", out, out] });
    fs.closeSync(out);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${tail(log)}`));
    });
  });
}

/** Waits until `url` answers 200, failing early when the process `pid` is gone. */
async function waitForAnswer(url: string, pid: number, log: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isAlive(pid)) throw new Error(`The process behind ${url} exited before answering:\n${tail(log)}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s:\n${tail(log)}`);
    await sleep(150);
  }
}

/** Starts (or restarts) one app server with the cluster's settings and waits until it answers. */
export async function startAppServer(state: ClusterState, name: ServerName, port: number): Promise<AppServerState> {
  const log = path.join(state.dir, `server-${name}.log`);
  const out = fs.openSync(log, "a");
  const child = spawn(process.execPath, [path.join(ROOT, "scripts/server.js")], {
    cwd: ROOT,
    env: childEnv(state.serverEnv, { PORT: String(port), DATABASE_PATH: path.join(state.dataDirs[name], "recipals.db") }),
    // Files, not pipes: a server must not depend on the process that started it (a test worker
    // may restart one and exit before the runner stops it).
    stdio: ["ignore", out, out],
  });
  fs.closeSync(out);
  if (child.pid === undefined) throw new Error(`Could not start app server ${name}:\n${tail(log)}`);
  child.unref();
  try {
    await waitForAnswer(`http://127.0.0.1:${port}/ReciPals/Info`, child.pid, log);
  } catch (error) {
    await stopPid(child.pid);
    throw error;
  }
  return { name, port, pid: child.pid, log };
}

// --------------------------------------------------------------------------------------------
// PostgreSQL

function adminUrl(): string {
  return process.env.TEST_POSTGRES_URL ?? "postgres://recipals:recipals@127.0.0.1:5432/postgres";
}

function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

async function withAdmin<T>(body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${withoutPassword(adminUrl())} (${(error as Error).message}). ` +
        "Start it (pg_ctlcluster 15 main start; apt-get install -y postgresql where it is missing), set TEST_POSTGRES_URL, " +
        "or run on one shared SQLite file with CLUSTER_DB=sqlite.",
    );
  }
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

async function createDatabase(name: string): Promise<string> {
  await withAdmin(async (client) => {
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.query(`create database "${name}"`);
  });
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(name: string): Promise<void> {
  await withAdmin((client) => client.query(`drop database if exists "${name}" with (force)`));
}

/** The app's tables in the cluster's PostgreSQL database (none: the app never wrote there). */
async function countUsersInPostgres(databaseUrl: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const table = await client.query("select 1 from information_schema.tables where table_name = 'users' and table_schema = current_schema()");
    if (table.rowCount === 0) return null;
    const { rows } = await client.query<{ n: string }>("select count(*) as n from users");
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

// --------------------------------------------------------------------------------------------
// nginx

function nginxBinary(): string {
  const candidates = process.env.NGINX_PATH ? [process.env.NGINX_PATH] : ["/usr/sbin/nginx", "/usr/bin/nginx", "nginx"];
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ["-v"], { encoding: "utf8" });
    if (probe.status === 0) return candidate;
  }
  throw new Error(
    `nginx ${process.env.NGINX_PATH ? `is not at NGINX_PATH=${process.env.NGINX_PATH}` : "is not installed"} (the cluster tests put it in front of the two app servers): ` +
      "apt-get install -y nginx, or set NGINX_PATH.",
  );
}

function nginxConfig({ dir, port, upstreams }: { dir: string; port: number; upstreams: number[] }): string {
  const temp = (name: string) => path.join(dir, "nginx", name);
  // Running as root, nginx would hand its workers to `nobody`, who cannot write in our temp folder.
  const user = process.getuid?.() === 0 ? "user root;\n" : "";
  return `${user}worker_processes 1;
pid ${path.join(dir, "nginx.pid")};
error_log ${path.join(dir, "nginx-error.log")} warn;
events { worker_connections 512; }
http {
  log_format upstream '$remote_addr "$request" $status upstream=$upstream_addr upstream_status=$upstream_status $request_time';
  access_log ${path.join(dir, "nginx-access.log")} upstream;
  client_body_temp_path ${temp("client_body")};
  proxy_temp_path ${temp("proxy")};
  fastcgi_temp_path ${temp("fastcgi")};
  uwsgi_temp_path ${temp("uwsgi")};
  scgi_temp_path ${temp("scgi")};
  # The editor's photo form takes up to 22 MB; the app sets its own limits.
  client_max_body_size 32m;
  upstream recipals {
${upstreams.map((upstream) => `    server 127.0.0.1:${upstream} max_fails=1 fail_timeout=${FAIL_TIMEOUT_SECONDS}s;`).join("\n")}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://recipals;
      # A new connection per request (no upstream keepalive): a request sent after a server died
      # fails to connect and goes to the other server, instead of dying on a stale connection.
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The browser's Host, so the app's same-origin check and absolute links see the balancer.
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_connect_timeout 1s;
      proxy_send_timeout 30s;
      proxy_read_timeout 30s;
      # Requests that never reached a server go to the other one; a POST that reached a server
      # which then died is not replayed (nginx never retries non-idempotent requests once sent).
      proxy_next_upstream error timeout;
      proxy_next_upstream_tries 2;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

async function startNginx(dir: string, port: number, upstreams: number[]): Promise<{ pid: number; errorLog: string; accessLog: string }> {
  const binary = nginxBinary();
  for (const name of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) fs.mkdirSync(path.join(dir, "nginx", name), { recursive: true });
  const config = path.join(dir, "nginx.conf");
  fs.writeFileSync(config, nginxConfig({ dir, port, upstreams }));
  const errorLog = path.join(dir, "nginx-error.log");
  const out = fs.openSync(path.join(dir, "nginx-stdout.log"), "a");
  // -p and -e keep nginx away from its root-owned defaults (/var/log/nginx, /usr/share/nginx).
  const child = spawn(binary, ["-p", path.join(dir, "nginx"), "-e", errorLog, "-c", config, "-g", "daemon off;"], { stdio: ["ignore", out, out] });
  fs.closeSync(out);
  if (child.pid === undefined) throw new Error("Could not start nginx.");
  child.unref();
  const pid = child.pid;
  const deadline = Date.now() + 10_000;
  try {
    for (;;) {
      if (!isAlive(pid)) throw new Error(`nginx exited at start:\n${tail(errorLog)}\n${tail(path.join(dir, "nginx-stdout.log"))}`);
      const listening = await new Promise<boolean>((resolve) => {
        const socket = net.connect(port, "127.0.0.1", () => {
          socket.end();
          resolve(true);
        });
        socket.on("error", () => resolve(false));
      });
      if (listening) break;
      if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}:\n${tail(errorLog)}`);
      await sleep(50);
    }
  } catch (error) {
    await stopPid(pid, { signal: "SIGQUIT", graceMs: 5_000 });
    throw error;
  }
  return { pid, errorLog, accessLog: path.join(dir, "nginx-access.log") };
}

// --------------------------------------------------------------------------------------------
// The whole cluster

export interface RunningCluster {
  state: ClusterState;
  stateFile: string;
  stop(): Promise<void>;
}

export async function startCluster(): Promise<RunningCluster> {
  const { db, images } = choices();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-cluster-"));
  const stateFile = path.join(dir, "cluster.json");
  const cleanups: Array<() => Promise<void>> = [];
  let state: ClusterState | null = null;

  const stop = async () => {
    // Servers a test restarted are only in the state file: stop the pids written there.
    const latest = fs.existsSync(stateFile) ? readState(stateFile) : state;
    if (latest) await stopPid(latest.nginx.pid, { signal: "SIGQUIT", graceMs: 5_000 });
    if (latest) await Promise.all(latest.servers.map((server) => stopPid(server.pid)));
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error(`Cluster cleanup: ${(error as Error).message}`);
      }
    }
    if (process.env.CLUSTER_KEEP_DIR === "1") console.log(`Cluster logs kept in ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    nginxBinary(); // fail at once, before building anything, when nginx is missing

    let databaseUrl: string | null = null;
    if (db === "postgres") {
      const name = `recipals_cluster_${process.pid}`;
      databaseUrl = await createDatabase(name);
      cleanups.push(() => dropDatabase(name));
    }

    let s3: ClusterState["s3"] = null;
    let s3Env: Record<string, string> = {};
    if (images === "s3") {
      const server = await startS3Server({ bucket: `recipals-cluster-${process.pid}` });
      cleanups.push(() => server.stop());
      s3 = { endpoint: server.endpoint, bucket: server.bucket, region: server.region, accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey };
      s3Env = server.env;
    }

    // A shared folder when the servers must share the SQLite file or the uploads on disk; else
    // one each, so nothing is shared that the database and the bucket do not share.
    const shared = db === "sqlite" || images === "disk";
    const dataDirs: Record<ServerName, string> = shared
      ? { a: path.join(dir, "data"), b: path.join(dir, "data") }
      : { a: path.join(dir, "data-a"), b: path.join(dir, "data-b") };
    for (const folder of Object.values(dataDirs)) fs.mkdirSync(folder, { recursive: true });

    const serverEnv: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? os.tmpdir(),
      TMPDIR: os.tmpdir(),
      LANG: "C.UTF-8",
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      RECIPALS_BUILD_DIR: BUILD_DIR,
      RECIPALS_SEED_FILE: path.resolve(ROOT, process.env.RECIPALS_SEED_FILE ?? "../shared/data/recipals-seed.json"),
      MEALDB_BASE_URL: "http://127.0.0.1:9/none",
      RECIPALS_SEED_PHOTOS: "link",
      // Passwords hashed at the tests' cost (app/server/auth/password.server.ts; docs/testing.md).
      RECIPALS_TEST_PASSWORD_COST: "low",
      SEED_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SESSION_SECRET,
      ADMIN_SECRET,
      // nginx on loopback is the only proxy: trust it for the client address (sign-in throttling).
      TRUST_PROXY: "loopback",
      PAGE_CACHE_SECONDS,
      WEB_CONCURRENCY: "1",
      // Every test user signs up from loopback: the per-network sign-up limit would stop the load
      // of writes after ten accounts (the limit itself is tested in tests/security/).
      SIGNUP_LIMIT: "100000",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      // IMAGE_STORE=s3 and the S3_* settings of the bucket.
      ...s3Env,
      // The AWS SDK's Node-version notice (tests/support/s3rver.ts sets this for its own process).
      ...(process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED
        ? { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED }
        : {}),
    };

    // Build, migrate and seed once, as `npm start` does before it serves (scripts/start.js).
    const setupLog = path.join(dir, "setup.log");
    await runToEnd(
      [path.join(ROOT, "scripts/start.js"), "--setup-only"],
      childEnv(serverEnv, { DATABASE_PATH: path.join(dataDirs.a, "recipals.db") }),
      setupLog,
      240_000,
    );
    if (databaseUrl) {
      const users = await countUsersInPostgres(databaseUrl);
      if (!users) {
        throw new Error(
          `The app was prepared with DATABASE_URL=${withoutPassword(databaseUrl)} but left ${users === null ? "no tables" : "no users"} there: ` +
            "app/server/db/connection.server.ts does not open PostgreSQL yet. Until it does, run the cluster on one SQLite file: CLUSTER_DB=sqlite.",
        );
      }
    }

    const lbPort = await freePort();
    state = {
      url: `http://127.0.0.1:${lbPort}`,
      dir,
      db,
      images,
      databaseUrl,
      databasePath: db === "sqlite" ? path.join(dataDirs.a, "recipals.db") : null,
      s3,
      servers: [],
      serverEnv,
      dataDirs,
      nginx: { pid: 0, port: lbPort, errorLog: "", accessLog: "" },
      adminPassword: ADMIN_PASSWORD,
    };
    const current = state;
    const ports = [await freePort(), await freePort()] as const;
    // One after the other: both at once would double the start-up load on two cores for nothing.
    current.servers.push(await startAppServer(current, "a", ports[0]));
    writeState(current, stateFile);
    current.servers.push(await startAppServer(current, "b", ports[1]));
    writeState(current, stateFile);
    current.nginx = { ...(await startNginx(dir, lbPort, [...ports])), port: lbPort };
    writeState(current, stateFile);
    const nginxPid = current.nginx.pid;
    await waitForAnswer(`${current.url}/ReciPals/Info`, nginxPid, current.nginx.errorLog, 10_000);
    return { state: current, stateFile, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
