// `npm run bench [-- options]`: load-tests the production server on a scale-seeded temporary
// database with autocannon, prints a table and writes it as JSON under bench/results/.
//
//   --users N          scale seed size (default 10,000 users ≈ 50,000 recipes and posts)
//   --duration S       seconds per measurement (default 10)
//   --connections L    comma-separated connection counts (default 1,16)
//   --repeat R         measure each scenario R times (default 1)
//   --only a,b         run only these scenarios (names as in the table)
//   --label TEXT       added to the result file name and JSON ("before", "after", …)
//   --from-db FILE     start from a copy of an already seeded database instead of seeding
//   --keep             keep the temporary directory (database, server logs) and the PostgreSQL database
//   --no-build         serve the existing build in RECIPALS_BUILD_DIR
//   --write-rate W     writes a second behind the "+writes" visitor scenarios (default 20)
//   --workers N        serve with N processes per server (WEB_CONCURRENCY; default 1 — the issue's
//                      targets are for one process; CPU and memory are summed over the workers)
//   --database URL     serve from PostgreSQL instead of SQLite. URL (postgres://user:pw@host/db) names
//                      the server and a role that may create databases; the database in it is only
//                      used to connect. The bench creates recipals_bench_<pid> there, fills it from
//                      the scale-seeded SQLite file (scripts/db-copy.js: the scale seed writes SQLite
//                      only) and drops it at the end unless --keep.
//   --nodes N          N app servers (each of --workers processes) on consecutive free ports, with the
//                      same SESSION_SECRET and ADMIN_SECRET, behind nginx (round robin, keepalive to
//                      the servers, one worker); the load goes through nginx. Needs --database: two
//                      servers on one SQLite file work on one machine but are not what this measures.
//                      NGINX_PATH overrides where nginx is looked for.
//   --compare          one run, one scale seed, three setups measured side by side, interleaved per
//                      scenario: SQLite on one server, PostgreSQL on one server, PostgreSQL on --nodes
//                      (default 2) servers behind nginx. Needs --database. Scenarios (unless --only):
//                      home-anon, recipe, home-signed-in, profile, post-viewer, writes-mixed.
//   --baseline DIR     also serve the copy of the app in DIR (its scripts/, build in RECIPALS_BUILD_DIR and
//                      node_modules: e.g. this checkout copied with a dependency patch reversed) on its own
//                      copy of the database, measured interleaved with this one (SQLite): setups
//                      "baseline" and "sqlite" side by side in one run.
//
// CPU columns, per request, from Linux /proc: `cpu ms` the app servers (all their processes
// summed), `db cpu` PostgreSQL's backends serving the bench database (only when PostgreSQL runs
// on this machine; SQLite works inside the app process, so it is in `cpu ms`), `lb cpu` nginx
// (master and worker), `total` the three together.
//
// Targets (issue 9, docs/rules.md#performance-budgets): at 16 connections p50 ≤ 15 ms and p99 ≤ 60 ms on every page,
// no errors; search p50 ≤ 10 ms; Home anonymous ≥ 500 req/s. The load generator runs in this
// process on the same machine as the server, so figures include its CPU share.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import autocannon from "autocannon";
import SQLite from "better-sqlite3";
import pg from "pg";

import { redactUrl } from "./redact-url.js";

/** @typedef {import("node:child_process").ChildProcess} ChildProcess */
/** @typedef {{ name: string, child: ChildProcess, signal: NodeJS.Signals }} Child */
/** @typedef {{ name: string, origin: string, pid: number, log: string }} AppServer */
/** @typedef {{ origin: string, pid: number, log: string }} Balancer */
/** @typedef {{ peakMb: number, rssMb: number }} Memory */
/**
 * One setup measured. name, engine, nodes and appRoot are chosen from the options; the rest is
 * filled in once its servers are up (before anything reads it), memory after the measurements.
 * @typedef {object} Setup
 * @property {string} name
 * @property {"sqlite" | "postgres"} engine
 * @property {number} nodes
 * @property {string} [appRoot] the baseline app's folder (--baseline)
 * @property {"sqlite" | "postgres" | "baseline"} database which database's sessions it uses
 * @property {[AppServer, ...AppServer[]]} servers
 * @property {string} origin where the load goes: its one server, or nginx
 * @property {Balancer | null} balancer
 * @property {Memory} memory
 */
/** One request as autocannon takes it (`setupRequest` rewrites it before each send). @typedef {import("autocannon").Request} CannonRequest */
/** autocannon's result. @typedef {import("autocannon").Result} CannonResult */
/**
 * @typedef {object} MeasureOptions
 * @property {string} url
 * @property {number} connections
 * @property {number} duration
 * @property {CannonRequest[]} requests
 * @property {Record<string, string>} [headers]
 * @property {number} [overallRate]
 */
/**
 * @typedef {object} Measurement
 * @property {number} rps
 * @property {number} p50
 * @property {number} p90
 * @property {number} p99
 * @property {number} max
 * @property {number} requests
 * @property {number} errors
 * @property {number} non2xx
 * @property {number} bytesPerRequest
 * @property {number} [backgroundRps] writes a second behind it ("+writes" scenarios)
 */
/**
 * One line of the result table.
 * @typedef {Measurement & {
 *   setup: string,
 *   scenario: string,
 *   run: number,
 *   connections: number,
 *   loadBefore: number,
 *   cpuMsPerRequest: number,
 *   dbCpuMsPerRequest: number,
 *   lbCpuMsPerRequest: number,
 *   totalCpuMsPerRequest: number,
 *   rssMbAfter: number,
 *   verdict?: string,
 * }} Row
 */
/**
 * What one scenario sends to one setup: `background` runs at WRITE_RATE alongside.
 * @typedef {{ headers?: Record<string, string>, requests: CannonRequest[], background?: CannonRequest[] }} Load
 */
/** @typedef {{ name: string, load: (setup: Setup) => Load }} Scenario */
/** @typedef {{ heavyCookie: string, writerCookies: string[], liked: Map<string, boolean> }} Account */
/** @typedef {{ post_id: string, recipe_id: string }} WritePost */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
/** @param {string} name */
const flag = (name) => args.includes(`--${name}`);
/**
 * @template {string | number} T
 * @param {string} name
 * @param {T} fallback
 * @returns {string | T}
 */
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  // Cast: the value was just checked (TypeScript does not narrow `args[index + 1]`).
  return index >= 0 && args[index + 1] !== undefined ? /** @type {string} */ (args[index + 1]) : fallback;
};
const COMPARE = flag("compare");
const USERS = Number(option("users", 10_000));
const DURATION = Number(option("duration", 10));
const CONNECTIONS = String(option("connections", "1,16")).split(",").map(Number);
const REPEAT = Number(option("repeat", 1));
const ONLY = option("only", "") ? new Set(String(option("only", "")).split(",")) : null;
const LABEL = option("label", COMPARE ? "compare" : "");
const FROM_DB = option("from-db", "");
const WORKERS = Number(option("workers", 1));
const WRITE_RATE = Number(option("write-rate", 20));
const DATABASE = option("database", "");
const NODES = Number(option("nodes", COMPARE ? 2 : 1));
const BASELINE = option("baseline", "") ? path.resolve(option("baseline", "")) : "";
const WARMUP_SECONDS = 2;
const WRITERS = 50;
const PASSWORD = "ReciPals"; // every scale user's password (seed/scale.ts)
const BUDGET = { p50: 15, p99: 60, searchP50: 10, homeRps: 500 };
/** What the issue asks to compare across setups: visitors (cached), signed-in pages, writes. */
const COMPARE_SCENARIOS = ["home-anon", "recipe", "home-signed-in", "profile", "post-viewer", "writes-mixed"];

/**
 * @param {string} message
 * @returns {never}
 */
function refuse(message) {
  console.error(`bench: ${message}`);
  process.exit(2);
}
if (DATABASE && !/^postgres(ql)?:\/\//.test(DATABASE)) refuse("--database takes a postgres:// (or postgresql://) URL.");
if (!Number.isInteger(NODES) || NODES < 1 || NODES > 8) refuse("--nodes must be a whole number from 1 to 8.");
if (!Number.isInteger(WORKERS) || WORKERS < 1 || WORKERS > 64) refuse("--workers must be a whole number from 1 to 64.");
if (COMPARE && !DATABASE) refuse("--compare needs --database postgres://… (a server and a role that may create databases).");
if (NODES > 1 && !DATABASE) {
  refuse("--nodes above 1 needs --database postgres://…: several servers share PostgreSQL (one SQLite file shared by servers works on one machine only, and is not what this measures).");
}
if (BASELINE && (DATABASE || COMPARE)) refuse("--baseline compares two SQLite servers: leave out --database and --compare.");
if (BASELINE && !fs.existsSync(path.join(BASELINE, "scripts/server.js"))) refuse(`--baseline ${BASELINE} holds no scripts/server.js.`);
if (COMPARE && NODES < 2) refuse("--compare sets one server against --nodes servers: give --nodes 2 or more (default 2).");

/** The setups measured: one unless --compare. Each is served by `nodes` servers of WORKERS processes. */
// Cast: the fields Setup adds to these are filled in when the servers start (see Setup).
const SETUPS = /** @type {Setup[]} */ (COMPARE
  ? [
      { name: "sqlite", engine: "sqlite", nodes: 1 },
      { name: "pg", engine: "postgres", nodes: 1 },
      { name: `pg x${NODES} nginx`, engine: "postgres", nodes: NODES },
    ]
  : [
      ...(BASELINE ? [{ name: "baseline", engine: "sqlite", nodes: 1, appRoot: BASELINE }] : []),
      { name: DATABASE ? (NODES > 1 ? `pg x${NODES} nginx` : "pg") : "sqlite", engine: DATABASE ? "postgres" : "sqlite", nodes: NODES },
    ]);
const PG_NODES = Math.max(0, ...SETUPS.filter((setup) => setup.engine === "postgres").map((setup) => setup.nodes));
const USES_NGINX = SETUPS.some((setup) => setup.nodes > 1);

const buildDir = process.env.RECIPALS_BUILD_DIR ?? "build";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-bench-"));
const databasePath = path.join(tmp, "recipals.db");
const benchDatabase = `recipals_bench_${process.pid}`;
const benchDatabaseUrl = DATABASE ? withDatabase(DATABASE, benchDatabase) : "";
/** @type {NodeJS.ProcessEnv} */
const baseEnv = {
  ...process.env,
  NODE_ENV: "production",
  RECIPALS_BUILD_DIR: buildDir,
  DATABASE_PATH: databasePath,
  RECIPALS_SEED_FILE: process.env.RECIPALS_SEED_FILE ?? path.resolve(root, "../shared/data/recipals-seed.json"),
  SEED_ADMIN_PASSWORD: "bench-admin-password",
  // The same on every server: a session made on one is honoured by the others.
  SESSION_SECRET: "bench-session-secret-0123456789abcdef",
  ADMIN_SECRET: "bench-admin-secret",
  MEALDB_BASE_URL: "http://127.0.0.1:9/none",
  RECIPALS_SEED_PHOTOS: "link",
};
// The engine is chosen per setup below, never inherited from the shell.
delete baseEnv.DATABASE_URL;

/** Processes this run started ({ name, child, signal }), stopped in reverse order by pid. */
/** @type {Child[]} */
const children = [];
let databaseCreated = false;
let stopping = false;

/**
 * @param {string} url
 * @param {string} name
 */
function withDatabase(url, name) {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}


/**
 * @template T
 * @param {string} url
 * @param {(client: import("pg").Client) => T | Promise<T>} body
 * @returns {Promise<T>}
 */
async function withPostgres(url, body) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    // Cast: pg rejects with an Error.
    throw new Error(`PostgreSQL is not reachable at ${redactUrl(url)}: ${/** @type {Error} */ (error).message}`);
  }
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** @param {Child} entry */
async function stopChild({ child, signal }) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

async function stopAll() {
  // Cast: the loop condition says there is one to pop.
  while (children.length > 0) await stopChild(/** @type {Child} */ (children.pop()));
}

async function cleanUp() {
  if (databaseCreated) {
    if (flag("keep")) console.log(`Kept the PostgreSQL database ${redactUrl(benchDatabaseUrl)}.`);
    else {
      await withPostgres(DATABASE, (client) => client.query(`drop database if exists "${benchDatabase}" with (force)`)).catch((error) =>
        console.error(`Could not drop ${benchDatabase}: ${error.message}`),
      );
    }
  }
  if (flag("keep")) console.log(`Kept ${tmp} (database and server logs).`);
  else fs.rmSync(tmp, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.once(signal, async () => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${signal}: stopping the servers…`);
    await stopAll();
    await cleanUp();
    process.exit(130);
  });
}

/**
 * @param {string} label
 * @param {string} command
 * @param {string[]} commandArgs
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {number} how long it took, in ms
 */
function run(label, command, commandArgs, env = baseEnv) {
  console.log(`${label}…`);
  const started = Date.now();
  const result = spawnSync(command, commandArgs, { cwd: root, env, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${label} failed (exit ${result.status ?? result.signal}).`);
  return Date.now() - started;
}

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      // Cast: a server listening on TCP has an AddressInfo (not a pipe name, nor null).
      const { port } = /** @type {import("node:net").AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

/** `count` free ports in a row (any free ones when no such row turns up): the servers' ports. */
/**
 * @param {number} count
 * @returns {Promise<number[]>}
 */
async function consecutivePorts(count) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const first = await freePort();
    if (first + count > 65_535) continue;
    const ports = Array.from({ length: count }, (_, i) => first + i);
    const free = await Promise.all(ports.slice(1).map((port) => isFree(port)));
    if (free.every(Boolean)) return ports;
  }
  return Promise.all(Array.from({ length: count }, () => freePort()));
}

/**
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function isFree(port) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** Parent pid and CPU time used so far (user + system, all threads, ms) of one process, from /proc. */
/**
 * @param {number} pid
 * @returns {{ ppid: number, cpuMs: number } | null}
 */
function statOf(pid) {
  try {
    // Cast: the stat line has ") " after the command name (were it missing, .split throws and the catch answers).
    const fields = /** @type {string} */ (fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]).split(" ");
    // ppid is field 4, utime and stime 14 and 15 of stat(5), counted from the state field (3).
    return { ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS };
  } catch {
    return null; // gone meanwhile
  }
}

function allPids() {
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/** A process and its children (node:cluster workers, nginx's worker), from Linux /proc. */
/**
 * @param {number} pid
 * @param {boolean} withChildren
 * @returns {number[]}
 */
function processTree(pid, withChildren) {
  if (!withChildren) return [pid];
  return [pid, ...allPids().filter((one) => statOf(one)?.ppid === pid)];
}

/**
 * PostgreSQL's backends serving the bench database: their process titles read
 * "postgres: [cluster: ]user database client state". Only when PostgreSQL runs on this machine.
 */
const POSTGRES_LOCAL = DATABASE ? ["127.0.0.1", "localhost", "[::1]", ""].includes(new URL(DATABASE).hostname) : false;
function postgresBackends() {
  /** @type {number[]} */
  const pids = [];
  for (const pid of allPids()) {
    let title;
    try {
      title = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    // Backends, and the autovacuum workers that clean up after the bench's writes.
    if (title.startsWith("postgres:") && ` ${title.replace(/\0/g, " ")} `.includes(` ${benchDatabase} `)) pids.push(pid);
  }
  return pids;
}

/**
 * CPU time a group of processes uses from now until stop(), in ms. The group is listed again every
 * second: a process that appears meanwhile (a new PostgreSQL backend) counts from zero, one that
 * exits counts up to its last sample.
 */
/**
 * @param {() => number[]} listPids
 * @returns {{ stop(): number }}
 */
function cpuMeter(listPids) {
  /** @type {Map<number, number>} */
  const first = new Map();
  /** @type {Map<number, number>} */
  const last = new Map();
  /** @param {boolean} initial */
  const sample = (initial) => {
    for (const pid of listPids()) {
      const stat = statOf(pid);
      if (!stat) continue;
      if (!first.has(pid)) first.set(pid, initial ? stat.cpuMs : 0);
      last.set(pid, stat.cpuMs);
    }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 1_000);
  return {
    stop() {
      clearInterval(timer);
      sample(false);
      let total = 0;
      // Cast: sample() sets `last` for every pid it puts in `first`.
      for (const [pid, base] of first) total += /** @type {number} */ (last.get(pid)) - base;
      return total;
    },
  };
}

/** Peak and current resident memory (summed over the processes), in MB (Linux /proc). */
/**
 * @param {number[]} pids
 * @returns {Memory}
 */
function memoryOf(pids) {
  let peakMb = 0;
  let rssMb = 0;
  for (const one of pids) {
    try {
      const status = fs.readFileSync(`/proc/${one}/status`, "utf8");
      /** @param {string} key */
      const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
      peakMb += kb("VmHWM") / 1024;
      rssMb += kb("VmRSS") / 1024;
    } catch {
      return { peakMb: NaN, rssMb: NaN };
    }
  }
  return { peakMb, rssMb };
}

/**
 * @param {string} file
 * @param {number} [chars]
 */
function tail(file, chars = 2000) {
  try {
    return fs.readFileSync(file, "utf8").slice(-chars);
  } catch {
    return "(no log)";
  }
}

/**
 * @param {string} url
 * @param {ChildProcess} child
 * @param {string} log
 */
async function waitForAnswer(url, child, log) {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer:\n${tail(log)}`);
}

/** One app server (WORKERS processes) on 127.0.0.1:port. */
/**
 * @param {string} name
 * @param {number} port
 * @param {NodeJS.ProcessEnv} env
 * @param {string} [appRoot]
 * @returns {Promise<AppServer>}
 */
async function startAppServer(name, port, env, appRoot = root) {
  const log = path.join(tmp, `server-${name}.log`);
  const out = fs.openSync(log, "a");
  const child = spawn(process.execPath, [path.join(appRoot, "scripts/server.js")], {
    cwd: appRoot,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1", WEB_CONCURRENCY: String(WORKERS) },
    stdio: ["ignore", out, out],
  });
  fs.closeSync(out);
  children.push({ name, child, signal: "SIGTERM" });
  const origin = `http://127.0.0.1:${port}`;
  await waitForAnswer(`${origin}/ReciPals/Info`, child, log);
  // Cast: it answered, so it was spawned and has a pid.
  return { name, origin, pid: /** @type {number} */ (child.pid), log };
}

function nginxBinary() {
  const candidates = process.env.NGINX_PATH ? [process.env.NGINX_PATH] : ["/usr/sbin/nginx", "/usr/bin/nginx", "nginx"];
  for (const candidate of candidates) {
    if (spawnSync(candidate, ["-v"], { encoding: "utf8" }).status === 0) return candidate;
  }
  throw new Error(`nginx ${process.env.NGINX_PATH ? `is not at NGINX_PATH=${process.env.NGINX_PATH}` : "is not installed"}: --nodes puts it in front of the servers (apt-get install -y nginx, or set NGINX_PATH).`);
}

/**
 * The balancer, as tests/support/cluster.ts starts it (config, temp folders and logs in our temp
 * folder, `user root` when run as root), but tuned to stay out of the way: one worker, kept-alive
 * connections to the servers, no access log.
 */
/**
 * @param {string} name
 * @param {number} port
 * @param {number[]} upstreams the servers' ports
 * @returns {Promise<Balancer>}
 */
async function startNginx(name, port, upstreams) {
  const binary = nginxBinary();
  const dir = path.join(tmp, `nginx-${port}`);
  /** @param {string} folder */
  const temp = (folder) => path.join(dir, folder);
  for (const folder of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) fs.mkdirSync(temp(folder), { recursive: true });
  const errorLog = path.join(dir, "error.log");
  const config = path.join(dir, "nginx.conf");
  // Running as root, nginx would hand its worker to `nobody`, who cannot write in our temp folder.
  const user = process.getuid?.() === 0 ? "user root;\n" : "";
  fs.writeFileSync(
    config,
    `${user}worker_processes 1;
pid ${path.join(dir, "nginx.pid")};
error_log ${errorLog} warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${temp("client_body")};
  proxy_temp_path ${temp("proxy")};
  fastcgi_temp_path ${temp("fastcgi")};
  uwsgi_temp_path ${temp("uwsgi")};
  scgi_temp_path ${temp("scgi")};
  client_max_body_size 32m;
  upstream recipals {
${upstreams.map((upstream) => `    server 127.0.0.1:${upstream};`).join("\n")}
    # Connections to the servers are reused, as a production balancer's are: otherwise every
    # request would pay a TCP connect and the balancer, not the servers, would be measured.
    keepalive 64;
    # Below Node's 5 s keep-alive timeout: nginx lets an idle connection go before the server
    # closes it, so no request is ever sent on a connection being closed (a 502).
    keepalive_timeout 4s;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${port} backlog=4096;
    # nginx closes a client connection after 1,000 requests by default. autocannon then keeps the
    # request it had sent as pending and pairs every later answer with the request before it:
    # latencies grew by one request's time per thousand (1 ms and more after a few seconds).
    keepalive_requests 1000000;
    location / {
      proxy_pass http://recipals;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The client's Host, so the app's same-origin check sees the balancer's address.
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }
  }
}
`,
  );
  const log = path.join(dir, "stdout.log");
  const out = fs.openSync(log, "a");
  // -p and -e keep nginx away from its root-owned defaults (/var/log/nginx, /usr/share/nginx).
  const child = spawn(binary, ["-p", dir, "-e", errorLog, "-c", config, "-g", "daemon off;"], { stdio: ["ignore", out, out] });
  fs.closeSync(out);
  // SIGQUIT: graceful stop (finish the requests in flight).
  children.push({ name, child, signal: "SIGQUIT" });
  const origin = `http://127.0.0.1:${port}`;
  await waitForAnswer(`${origin}/ReciPals/Info`, child, errorLog);
  // Cast: it answered, so it was spawned and has a pid.
  return { origin, pid: /** @type {number} */ (child.pid), log: errorLog };
}

/**
 * Fills the empty bench database from the SQLite file with copyDatabase (scripts/db-copy.js), in a
 * process of its own: the copy loads the app's modules, which read their settings from the
 * environment when they load, and the bench's own process must not open any database.
 */
function copyIntoPostgres() {
  const script = `
    import { pathToFileURL } from "node:url";
    const { copyDatabase } = await import(pathToFileURL(process.env.BENCH_COPY_MODULE).href);
    let shown = 0;
    const result = await copyDatabase({
      from: process.env.BENCH_COPY_FROM,
      to: process.env.BENCH_COPY_TO,
      batchSize: 5000,
      onProgress: ({ table, done, total, index, count }) => {
        if (Date.now() - shown < 5000) return;
        shown = Date.now();
        console.log("  " + table + ": " + Number(done).toLocaleString("en") + " of " + Number(total).toLocaleString("en") + " rows (table " + (index + 1) + " of " + count + ")");
      },
    });
    const tables = result?.tables ?? [];
    console.log("  copied " + tables.length + " tables, " + tables.reduce((sum, t) => sum + Number(t.rows), 0).toLocaleString("en") + " rows.");
    process.exit(0);
  `;
  const copyModule = path.join(root, "scripts/db-copy.js");
  if (!fs.existsSync(copyModule)) throw new Error("scripts/db-copy.js is missing: it moves the scale seed into PostgreSQL.");
  return run(`Copying ${databasePath} into ${redactUrl(benchDatabaseUrl)}`, process.execPath, ["--input-type=module", "-e", script], {
    ...baseEnv,
    BENCH_COPY_MODULE: copyModule,
    BENCH_COPY_FROM: databasePath,
    BENCH_COPY_TO: benchDatabaseUrl,
  });
}

/**
 * @param {string} origin
 * @param {string} username
 * @returns {Promise<string>} the session cookie
 */
async function signIn(origin, username) {
  const res = await fetch(`${origin}/ReciPals/Account/Login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ username, password: PASSWORD, redirectTo: "" }),
  });
  await res.arrayBuffer();
  const cookie = (res.headers.getSetCookie?.() ?? [])
    // Cast: split() always returns at least one piece.
    .map((value) => /** @type {string} */ (value.split(";")[0]))
    .find((value) => value.startsWith("recipals_session="));
  if (res.status !== 302 || !cookie) throw new Error(`Sign-in as ${username} failed: HTTP ${res.status}`);
  return cookie;
}

/** Cycles through `items`, one per request, across all connections. */
/**
 * @template T
 * @param {T[]} items
 * @returns {() => T}
 */
function rotating(items) {
  let i = 0;
  // Cast: the index is taken modulo the length (the lists come from the scale seed, never empty).
  return () => /** @type {T} */ (items[i++ % items.length]);
}

/** @param {Record<string, string>} fields */
const formBody = (fields) => new URLSearchParams(fields).toString();
/**
 * @param {number} value
 * @param {number} [digits]
 */
const num = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "-");

/** @param {Row[]} rows */
function percentileTable(rows) {
  /**
   * @param {string | number} text
   * @param {number} width
   */
  const pad = (text, width) => String(text).padEnd(width);
  const setupWidth = Math.max(8, ...SETUPS.map((setup) => setup.name.length + 2));
  const lines = [
    `${pad("setup", setupWidth)}${pad("scenario", 22)}${pad("conns", 7)}${"req/s".padStart(8)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}${"errors".padStart(8)}${"non-2xx".padStart(9)}${"cpu ms".padStart(8)}${"db cpu".padStart(8)}${"lb cpu".padStart(8)}${"total".padStart(8)}${"load".padStart(7)}  verdict`,
  ];
  for (const r of rows) {
    lines.push(
      `${pad(r.setup, setupWidth)}${pad(r.scenario + (REPEAT > 1 ? ` #${r.run}` : ""), 22)}${pad(r.connections, 7)}${num(r.rps).padStart(8)}${num(r.p50, 1).padStart(9)}${num(r.p99, 1).padStart(9)}${String(r.errors).padStart(8)}${String(r.non2xx).padStart(9)}${num(r.cpuMsPerRequest, 2).padStart(8)}${num(r.dbCpuMsPerRequest, 2).padStart(8)}${num(r.lbCpuMsPerRequest, 2).padStart(8)}${num(r.totalCpuMsPerRequest, 2).padStart(8)}${num(r.loadBefore, 2).padStart(7)}  ${r.verdict}`,
    );
  }
  return lines.join("\n");
}

/** The same rows as a Markdown table (for bench/README.md), the highest connection count first. */
/** @param {Row[]} rows */
function markdownTable(rows) {
  const sorted = [...rows].sort((a, b) => b.connections - a.connections);
  const lines = [
    "| scenario | conns | setup | req/s | p50 ms | p99 ms | errors | app cpu ms/req | db cpu ms/req | nginx cpu ms/req | total cpu ms/req |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of sorted) {
    lines.push(
      `| ${r.scenario}${REPEAT > 1 ? ` #${r.run}` : ""} | ${r.connections} | ${r.setup} | ${num(r.rps)} | ${num(r.p50, 1)} | ${num(r.p99, 1)} | ${r.errors + r.non2xx} | ${num(r.cpuMsPerRequest, 2)} | ${num(r.dbCpuMsPerRequest, 2)} | ${num(r.lbCpuMsPerRequest, 2)} | ${num(r.totalCpuMsPerRequest, 2)} |`,
    );
  }
  return lines.join("\n");
}

/**
 * @param {string} name
 * @param {number} connections
 * @param {Measurement} r
 */
function verdictOf(name, connections, r) {
  if (connections < 16) return r.errors + r.non2xx === 0 ? "" : "errors";
  const misses = [];
  if (r.p50 > BUDGET.p50) misses.push(`p50>${BUDGET.p50}`);
  if (r.p99 > BUDGET.p99) misses.push(`p99>${BUDGET.p99}`);
  if (name.includes("search") && r.p50 > BUDGET.searchP50) misses.push(`p50>${BUDGET.searchP50}`);
  if (name === "home-anon" && r.rps < BUDGET.homeRps) misses.push(`<${BUDGET.homeRps} req/s`);
  if (r.errors + r.non2xx > 0) misses.push("errors");
  return misses.length === 0 ? "ok" : `MISS ${misses.join(", ")}`;
}

/**
 * @param {MeasureOptions} options
 * @returns {Promise<Measurement>}
 */
async function measure({ url, connections, duration, requests, headers, overallRate }) {
  /** @type {CannonResult} */
  const result = await autocannon({
    url,
    connections,
    duration,
    ...(overallRate ? { overallRate } : {}),
    headers: { "accept-encoding": "gzip, deflate, br", ...headers },
    requests,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    bytesPerRequest: result.requests.total > 0 ? Math.round(result.throughput.total / result.requests.total) : 0,
  };
}

const started = Date.now();
/** @type {Row[]} */
const rows = [];
try {
  /** @type {{ buildMs?: number, seedMs?: number, copyMs?: number, vacuumMs?: number, startMs?: number }} */
  const timings = {};
  if (USES_NGINX) nginxBinary(); // fail at once, before building and seeding, when nginx is missing
  if (DATABASE) await withPostgres(DATABASE, () => null); // likewise when PostgreSQL cannot be reached
  if (!flag("no-build")) {
    timings.buildMs = run(`Building into ${buildDir}`, process.execPath, [path.join(root, "scripts/build.js")]);
  }
  if (FROM_DB) {
    fs.copyFileSync(FROM_DB, databasePath);
    timings.seedMs = run("Migrating the copied database", process.execPath, [path.join(root, "scripts/prepare.js"), "--migrate-only"]);
  } else {
    timings.seedMs = run(`Seeding the sample data and ${USERS.toLocaleString("en")} scale users into ${databasePath}`, process.execPath, [
      path.join(root, "scripts/prepare.js"),
      "--scale",
      String(USERS),
    ]);
  }

  // Test subjects, read straight from the database (read-only; no server is running yet). The
  // PostgreSQL copy holds the same rows, so the same subjects serve every setup.
  const data = new SQLite(databasePath, { readonly: true });
  // Cast: every query given to pluck selects one text column.
  /**
   * @param {string} query
   * @param {...unknown} params
   */
  const pluck = (query, ...params) => /** @type {string[]} */ (data.prepare(query).pluck().all(...params));
  const counts = {
    users: Number(data.prepare("select count(*) from users").pluck().get()),
    posts: Number(data.prepare("select count(*) from posts").pluck().get()),
    likes: Number(data.prepare("select count(*) from likes").pluck().get()),
    comments: Number(data.prepare("select count(*) from comments").pluck().get()),
    follows: Number(data.prepare("select count(*) from follows").pluck().get()),
  };
  const heavy = /** @type {string | undefined} */ (data.prepare("select username from users where id = 'scale-u0'").pluck().get());
  if (!heavy) throw new Error("No scale-u0: the scale seed did not run.");
  // Spread over the table by seq, so pages are a fair sample rather than one hot row.
  /**
   * @param {string} table
   * @param {number} n
   */
  const spread = (table, n) => Math.max(1, Math.floor(Number(data.prepare(`select count(*) from ${table}`).pluck().get()) / n));
  const recipeStep = spread("recipes", 100);
  const recipes = pluck(`select id from recipes where seq % ? = 0 and id like 'scale-%' order by seq limit 100`, recipeStep);
  const postRows = /** @type {{ id: string, created_by: string }[]} */ (
    data
      .prepare(`select id, created_by from posts where seq % ? = 0 and created_by is not null and id like 'scale-%' order by seq limit 100`)
      .all(spread("posts", 100))
  );
  // Profiles: the most followed users (the heaviest profiles) and ordinary ones, half and half.
  const popular = pluck("select followee_id from follows group by followee_id order by count(*) desc limit 50");
  const ordinary = pluck("select id from users where id like 'scale-u%' and seq % 97 = 0 limit 50");
  const profiles = [...popular, ...ordinary];
  const writers = pluck("select username from users where id like 'scale-u%' and id <> 'scale-u0' order by seq limit ?", WRITERS);
  const writePosts = /** @type {WritePost[]} */ (
    data.prepare(`select p.id as post_id, p.recipe_id from posts p where p.seq % ? = 1 and p.id like 'scale-%' limit 500`).all(spread("posts", 500))
  );
  data.close();

  if (DATABASE) {
    await withPostgres(DATABASE, async (client) => {
      await client.query(`drop database if exists "${benchDatabase}" with (force)`);
      await client.query(`create database "${benchDatabase}"`);
    });
    databaseCreated = true;
    timings.copyMs = copyIntoPostgres();
    // The copy has analyzed the tables; vacuum now too, as autovacuum soon would after a million
    // inserts, so that it does not land in the middle of a measurement (and index-only scans work).
    const vacuumStarted = Date.now();
    console.log(`Vacuuming ${benchDatabase}…`);
    await withPostgres(benchDatabaseUrl, (client) => client.query("vacuum (analyze)"));
    timings.vacuumMs = Date.now() - vacuumStarted;
  }

  // The servers: one on the SQLite file; the PostgreSQL ones on consecutive ports, each with a
  // data folder of its own (nothing shared but the database). A one-server PostgreSQL setup is
  // the first of them, addressed directly; a setup of N servers is the first N behind nginx.
  const startMs = Date.now();
  /** @type {AppServer | null} */
  let sqliteServer = null;
  // The baseline's copy is taken before any server opens the database.
  const baselineDatabase = path.join(tmp, "baseline.db");
  if (BASELINE) fs.copyFileSync(databasePath, baselineDatabase);
  if (SETUPS.some((setup) => setup.engine === "sqlite" && !setup.appRoot)) sqliteServer = await startAppServer("sqlite", await freePort(), baseEnv);
  const baselineServer = BASELINE ? await startAppServer("baseline", await freePort(), { ...baseEnv, DATABASE_PATH: baselineDatabase }, BASELINE) : null;
  /** @type {AppServer[]} */
  const pgServers = [];
  if (PG_NODES > 0) {
    const ports = await consecutivePorts(PG_NODES);
    for (const [index, port] of ports.entries()) {
      const dataDir = path.join(tmp, `data-pg-${index + 1}`);
      fs.mkdirSync(dataDir, { recursive: true });
      const env = {
        ...baseEnv,
        DATABASE_URL: benchDatabaseUrl,
        DATABASE_PATH: path.join(dataDir, "recipals.db"),
        // Behind nginx on loopback: the client's address comes from X-Forwarded-For.
        ...(USES_NGINX ? { TRUST_PROXY: "loopback" } : {}),
      };
      // One after the other: both at once would double the start-up load on two cores for nothing.
      pgServers.push(await startAppServer(`pg-${index + 1}`, port, env));
    }
  }
  for (const setup of SETUPS) {
    setup.database = setup.appRoot ? "baseline" : setup.engine;
    if (setup.engine === "sqlite") {
      // Cast: both servers were started above for the setups that use them.
      setup.servers = [/** @type {AppServer} */ (setup.appRoot ? baselineServer : sqliteServer)];
      setup.origin = setup.servers[0].origin;
      setup.balancer = null;
    } else {
      // Cast: nodes is at least 1, and PG_NODES servers were started.
      setup.servers = /** @type {[AppServer, ...AppServer[]]} */ (pgServers.slice(0, setup.nodes));
      setup.balancer = setup.nodes > 1 ? await startNginx(`nginx-${setup.nodes}`, await freePort(), setup.servers.map((server) => Number(new URL(server.origin).port))) : null;
      setup.origin = setup.balancer?.origin ?? setup.servers[0].origin;
    }
    console.log(
      `Setup ${setup.name}: ${setup.origin}${setup.balancer ? ` (nginx pid ${setup.balancer.pid})` : ""} → ` +
        `${setup.servers.map((server) => `${server.origin} pid ${server.pid}`).join(", ")} (${WORKERS} process${WORKERS > 1 ? "es" : ""} each)`,
    );
  }
  timings.startMs = Date.now() - startMs;
  console.log(`${JSON.stringify(counts)}`);

  // Sign in once per database (sessions live in the database: the PostgreSQL ones hold on every server).
  // Cast: filled for every setup's database right here, before any read.
  const accounts = /** @type {Record<Setup["database"], Account>} */ ({});
  for (const setup of SETUPS) {
    if (accounts[setup.database]) continue;
    const heavyCookie = await signIn(setup.origin, heavy);
    /** @type {string[]} */
    const writerCookies = [];
    for (const username of writers) writerCookies.push(await signIn(setup.origin, username));
    accounts[setup.database] = { heavyCookie, writerCookies, liked: new Map() };
    console.log(`Signed in ${heavy} and ${writerCookies.length} writers on ${setup.database}.`);
  }

  let hasApiSearch = true;
  for (const setup of SETUPS) {
    const apiProbe = await fetch(`${setup.origin}/api/recipes/search?q=chicken`);
    hasApiSearch &&= apiProbe.status === 200 && (apiProbe.headers.get("content-type") ?? "").includes("json");
    await apiProbe.arrayBuffer();
    // Sanity: the pages the bench hits really render (a 200 full of errors would flatter the figures).
    const homeCheck = await fetch(`${setup.origin}/ReciPals/Home`, { headers: { cookie: accounts[setup.database].heavyCookie } });
    const homeHtml = await homeCheck.text();
    const articles = (homeHtml.match(/<article/g) ?? []).length;
    if (!homeCheck.ok || articles === 0) throw new Error(`Home (signed in) on ${setup.name} answered ${homeCheck.status} with ${articles} posts.`);
  }
  if (!hasApiSearch) console.log("GET /api/recipes/search did not answer JSON: skipping that scenario.");

  const recipePath = rotating(recipes.map((id) => `/ReciPals/Recipes/${encodeURIComponent(id)}`));
  const profilePath = rotating(profiles.map((id) => `/ReciPals/Account/Profile/${encodeURIComponent(id)}`));
  const postPath = rotating(postRows.map((p) => `/ReciPals/Account/Profile/${encodeURIComponent(p.created_by)}/Posts/${encodeURIComponent(p.id)}`));
  let writeCounter = 0;

  // What a browser with JavaScript sends: fetcher posts to the route's single-fetch endpoint
  // (`.data`), three like toggles for every comment, from 50 signed-in users. Which posts each
  // writer has liked is kept per database.
  /**
   * @param {Setup} setup
   * @returns {CannonRequest[]}
   */
  const writeRequestsFor = (setup) => {
    const { writerCookies, liked } = accounts[setup.database];
    const nextWriter = rotating(writerCookies.map((cookie, index) => ({ cookie, index })));
    return [
      {
        method: "POST",
        setupRequest: (req) => {
          const { cookie, index } = nextWriter();
          const n = writeCounter++;
          // Cast: an index modulo the length (the scale seed's posts are never none).
          const target = /** @type {WritePost} */ (writePosts[(n * 7 + index) % writePosts.length]);
          const headers = { ...req.headers, cookie, origin: setup.origin, "content-type": "application/x-www-form-urlencoded" };
          if (n % 4 === 3) {
            return {
              ...req,
              headers,
              path: `/ReciPals/Recipes/${encodeURIComponent(target.recipe_id)}.data`,
              body: formBody({ intent: "comment", text: `Bench comment ${n}: lovely!`, _fetcher: "1" }),
            };
          }
          const key = `${index}:${target.post_id}`;
          const like = !liked.get(key);
          liked.set(key, like);
          return {
            ...req,
            headers,
            path: `/ReciPals/Posts/${encodeURIComponent(target.post_id)}/Like.data`,
            body: formBody({ intent: like ? "like" : "unlike", _fetcher: "1" }),
          };
        },
      },
    ];
  };

  // Each scenario says what to send to one setup.
  /** @param {Setup} setup */
  const heavyHeaders = (setup) => ({ cookie: accounts[setup.database].heavyCookie });
  const scenarios = /** @type {Scenario[]} */ ([
    { name: "home-anon", load: () => ({ requests: [{ method: "GET", path: "/ReciPals/Home" }] }) },
    { name: "home-signed-in", load: (setup) => ({ headers: heavyHeaders(setup), requests: [{ method: "GET", path: "/ReciPals/Home" }] }) },
    // A signed-in page with nothing of its own to read or show (Info): what every signed-in page
    // costs before its own content (the session, the header, the framework's document).
    { name: "info-signed-in", load: (setup) => ({ headers: heavyHeaders(setup), requests: [{ method: "GET", path: "/ReciPals/Info" }] }) },
    { name: "recipe", load: () => ({ requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: recipePath() }) }] }) },
    {
      name: "recipe-signed-in",
      load: (setup) => ({ headers: heavyHeaders(setup), requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: recipePath() }) }] }),
    },
    { name: "search", load: () => ({ requests: [{ method: "GET", path: "/ReciPals/Search?q=chicken" }] }) },
    {
      name: "profile",
      load: (setup) => ({ headers: heavyHeaders(setup), requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: profilePath() }) }] }),
    },
    {
      name: "post-viewer",
      load: (setup) => ({ headers: heavyHeaders(setup), requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: postPath() }) }] }),
    },
    ...(hasApiSearch ? [{ name: "api-search", load: () => ({ requests: [{ method: "GET", path: "/api/recipes/search?q=chicken" }] }) }] : []),
    { name: "writes-mixed", load: (setup) => ({ requests: writeRequestsFor(setup) }) },
    // Visitors while the community writes (WRITE_RATE likes and comments a second): each write
    // drops the cached pages showing what it changed (docs/scaling.md), so this is what visitors
    // get between writes rather than without any.
    { name: "home-anon+writes", load: (setup) => ({ requests: [{ method: "GET", path: "/ReciPals/Home" }], background: writeRequestsFor(setup) }) },
    {
      name: "recipe+writes",
      load: (setup) => ({ requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: recipePath() }) }], background: writeRequestsFor(setup) }),
    },
  ])
    .filter((scenario) => (ONLY ? ONLY.has(scenario.name) : !COMPARE || COMPARE_SCENARIOS.includes(scenario.name)))
    // --compare: in the issue's order (visitors, signed in, writes).
    .sort((a, b) => (COMPARE ? COMPARE_SCENARIOS.indexOf(a.name) - COMPARE_SCENARIOS.indexOf(b.name) : 0));

  /** @param {Setup} setup */
  const appPids = (setup) => setup.servers.flatMap((server) => processTree(server.pid, WORKERS > 1));
  const measurementSeconds = scenarios.length * SETUPS.length * (WARMUP_SECONDS + REPEAT * CONNECTIONS.length * DURATION);
  console.log(
    `Measuring ${scenarios.length} scenarios × ${SETUPS.length} setup${SETUPS.length > 1 ? "s" : ""} (${SETUPS.map((setup) => setup.name).join(", ")}), ` +
      `${CONNECTIONS.join(" and ")} connections: about ${Math.ceil(measurementSeconds / 60)} min.`,
  );

  // Interleaved: every setup takes its turn at each scenario and connection count, so a noisy
  // neighbour on this machine hits them all alike rather than one setup's whole run.
  for (const scenario of scenarios) {
    const loads = new Map(SETUPS.map((setup) => [setup, scenario.load(setup)]));
    for (const setup of SETUPS) {
      // Cast: `loads` has every setup.
      const load = /** @type {Load} */ (loads.get(setup));
      await measure({ url: setup.origin, headers: load.headers, requests: load.requests, connections: Math.max(...CONNECTIONS), duration: WARMUP_SECONDS });
    }
    for (let runNumber = 1; runNumber <= REPEAT; runNumber++) {
      for (const connections of CONNECTIONS) {
        for (const setup of SETUPS) {
          // Casts: `loads` has every setup; loadavg() always lists three figures.
          const load = /** @type {Load} */ (loads.get(setup));
          const loadBefore = /** @type {number} */ (os.loadavg()[0]);
          const appCpu = cpuMeter(() => appPids(setup));
          const dbCpu = setup.engine === "postgres" && POSTGRES_LOCAL ? cpuMeter(postgresBackends) : null;
          // Cast: checked just before (TypeScript forgets it inside the callback).
          const lbCpu = setup.balancer ? cpuMeter(() => processTree(/** @type {Balancer} */ (setup.balancer).pid, true)) : null;
          const background = load.background
            ? measure({ url: setup.origin, requests: load.background, connections: 2, duration: DURATION, overallRate: WRITE_RATE })
            : null;
          const result = await measure({ url: setup.origin, headers: load.headers, requests: load.requests, connections, duration: DURATION });
          if (background) result.backgroundRps = (await background).rps;
          // CPU per request: unlike latency, barely moved by other load on the machine.
          /** @param {number | null} ms */
          const perRequest = (ms) => (result.requests > 0 && ms !== null ? ms / result.requests : NaN);
          const cpuMsPerRequest = perRequest(appCpu.stop());
          const dbCpuMsPerRequest = perRequest(dbCpu ? dbCpu.stop() : null);
          const lbCpuMsPerRequest = perRequest(lbCpu ? lbCpu.stop() : null);
          const totalCpuMsPerRequest = cpuMsPerRequest + (Number.isFinite(dbCpuMsPerRequest) ? dbCpuMsPerRequest : 0) + (Number.isFinite(lbCpuMsPerRequest) ? lbCpuMsPerRequest : 0);
          /** @type {Row} */
          const row = {
            setup: setup.name,
            scenario: scenario.name,
            run: runNumber,
            connections,
            loadBefore,
            ...result,
            cpuMsPerRequest,
            dbCpuMsPerRequest,
            lbCpuMsPerRequest,
            totalCpuMsPerRequest,
            rssMbAfter: Math.round(memoryOf(appPids(setup)).rssMb),
          };
          row.verdict = verdictOf(scenario.name, connections, row);
          rows.push(row);
          console.log(percentileTable([row]).split("\n")[1] + (background ? `  (with ${/** @type {number} */ (row.backgroundRps).toFixed(0)} writes/s behind)` : ""));
        }
      }
    }
  }
  for (const setup of SETUPS) setup.memory = memoryOf(appPids(setup));

  console.log(`\n${percentileTable(rows)}`);
  if (SETUPS.length > 1) console.log(`\n${markdownTable(rows)}`);
  console.log(
    `\n${SETUPS.map((setup) => `${setup.name}: app servers' peak RSS ${num(setup.memory.peakMb)} MB (now ${num(setup.memory.rssMb)} MB)`).join("; ")}; load average now ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} on ${os.cpus().length} CPUs; ${DURATION} s per measurement after a ${WARMUP_SECONDS} s warm-up.` +
      (DATABASE && !POSTGRES_LOCAL ? " PostgreSQL runs on another machine: its CPU is not counted (db cpu -)." : ""),
  );

  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const resultsDir = path.join(root, "bench", "results");
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${stamp}${LABEL ? `-${LABEL.replace(/[^\w.-]+/g, "_")}` : ""}.json`);
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim();
  const dirty = spawnSync("git", ["status", "--porcelain"], { cwd: root, encoding: "utf8" }).stdout.trim() !== "";
  /**
   * @param {number} value
   * @param {number} digits
   */
  const fixed = (value, digits) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);
  // Cast: there is always at least one setup.
  const first = /** @type {Setup} */ (SETUPS[0]);
  fs.writeFileSync(
    file,
    `${JSON.stringify(
      {
        label: LABEL || null,
        date: new Date().toISOString(),
        commit: `${commit}${dirty ? "+dirty" : ""}`,
        command: `npm run bench -- ${args.map((arg) => (/^postgres(ql)?:/.test(arg) ? redactUrl(arg) : arg)).join(" ")}`.trim(),
        node: process.version,
        cpus: os.cpus().length,
        users: USERS,
        workers: WORKERS,
        database: DATABASE ? redactUrl(benchDatabaseUrl) : null,
        setups: SETUPS.map((setup) => ({
          name: setup.name,
          engine: setup.engine,
          nodes: setup.nodes,
          workersPerNode: WORKERS,
          balancer: setup.balancer ? "nginx, 1 worker, keepalive 64 to the servers" : null,
          peakRssMb: Math.round(setup.memory.peakMb),
          rssMb: Math.round(setup.memory.rssMb),
        })),
        counts,
        durationSeconds: DURATION,
        warmupSeconds: WARMUP_SECONDS,
        budgets: BUDGET,
        timings: { ...timings, totalMs: Date.now() - started },
        // The one setup's figures where older results had them.
        server: { peakRssMb: Math.round(first.memory.peakMb), rssMb: Math.round(first.memory.rssMb) },
        loadAverageAtEnd: os.loadavg(),
        results: rows.map((r) => ({
          ...r,
          rps: Math.round(r.rps),
          loadBefore: Number(r.loadBefore.toFixed(2)),
          cpuMsPerRequest: fixed(r.cpuMsPerRequest, 3),
          dbCpuMsPerRequest: fixed(r.dbCpuMsPerRequest, 3),
          lbCpuMsPerRequest: fixed(r.lbCpuMsPerRequest, 3),
          totalCpuMsPerRequest: fixed(r.totalCpuMsPerRequest, 3),
        })),
      },
      null,
      2,
    )}\n`,
  );
  console.log(`Wrote ${path.relative(root, file)} (${((Date.now() - started) / 1000).toFixed(0)} s in all).`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  for (const entry of children) {
    const log = entry.name.startsWith("nginx") ? null : path.join(tmp, `server-${entry.name}.log`);
    if (log && fs.existsSync(log)) console.error(`Server ${entry.name} log tail:\n${tail(log)}`);
  }
  process.exitCode = 1;
} finally {
  await stopAll();
  await cleanUp();
}
