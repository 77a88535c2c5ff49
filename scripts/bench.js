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
//   --keep             keep the temporary directory (database, server log)
//   --no-build         serve the existing build in RECIPALS_BUILD_DIR
//   --write-rate W     writes a second behind the "+writes" visitor scenarios (default 20)
//   --workers N        serve with N processes (WEB_CONCURRENCY; default 1 — the issue's targets
//                      are for one process; CPU and memory are summed over the workers)
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

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 && args[index + 1] !== undefined ? args[index + 1] : fallback;
};
const USERS = Number(option("users", 10_000));
const DURATION = Number(option("duration", 10));
const CONNECTIONS = String(option("connections", "1,16")).split(",").map(Number);
const REPEAT = Number(option("repeat", 1));
const ONLY = option("only", "") ? new Set(String(option("only", "")).split(",")) : null;
const LABEL = option("label", "");
const FROM_DB = option("from-db", "");
const WORKERS = Number(option("workers", 1));
const WRITE_RATE = Number(option("write-rate", 20));
const WARMUP_SECONDS = 2;
const WRITERS = 50;
const PASSWORD = "ReciPals"; // every scale user's password (seed/scale.ts)
const BUDGET = { p50: 15, p99: 60, searchP50: 10, homeRps: 500 };

const buildDir = process.env.RECIPALS_BUILD_DIR ?? "build";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-bench-"));
const databasePath = path.join(tmp, "recipals.db");
const serverLog = path.join(tmp, "server.log");
const baseEnv = {
  ...process.env,
  NODE_ENV: "production",
  RECIPALS_BUILD_DIR: buildDir,
  DATABASE_PATH: databasePath,
  RECIPALS_SEED_FILE: process.env.RECIPALS_SEED_FILE ?? path.resolve(root, "../shared/data/recipals-seed.json"),
  SEED_ADMIN_PASSWORD: "bench-admin-password",
  SESSION_SECRET: "bench-session-secret-0123456789abcdef",
  MEALDB_BASE_URL: "http://127.0.0.1:9/none",
};

let server = null;
let stopping = false;

async function stopServer() {
  const child = server;
  server = null;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

function cleanUp() {
  if (flag("keep")) console.log(`Kept ${tmp} (database and server.log).`);
  else fs.rmSync(tmp, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.once(signal, async () => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${signal}: stopping the server…`);
    await stopServer();
    cleanUp();
    process.exit(130);
  });
}

function run(label, command, commandArgs, env = baseEnv) {
  console.log(`${label}…`);
  const started = Date.now();
  const result = spawnSync(command, commandArgs, { cwd: root, env, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${label} failed (exit ${result.status ?? result.signal}).`);
  return Date.now() - started;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** The server and its worker processes (node:cluster children), from Linux /proc. */
function processTree(pid) {
  const pids = [pid];
  if (WORKERS > 1) {
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const parent = Number(fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ")[1]);
        if (parent === pid) pids.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
  }
  return pids;
}

/** CPU time the server (all its processes) has used so far (user + system), in ms (Linux /proc). */
function cpuMsOf(pid) {
  let total = 0;
  for (const one of processTree(pid)) {
    try {
      const fields = fs.readFileSync(`/proc/${one}/stat`, "utf8").split(") ")[1].split(" ");
      // utime and stime are fields 14 and 15 of stat(5), counted from the state field (3).
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
    } catch {
      return NaN;
    }
  }
  return total;
}
const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** Peak and current resident memory of the server (summed over its processes), in MB (Linux /proc). */
function memoryOf(pid) {
  let peakMb = 0;
  let rssMb = 0;
  for (const one of processTree(pid)) {
    try {
      const status = fs.readFileSync(`/proc/${one}/status`, "utf8");
      const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
      peakMb += kb("VmHWM") / 1024;
      rssMb += kb("VmRSS") / 1024;
    } catch {
      return { peakMb: NaN, rssMb: NaN };
    }
  }
  return { peakMb, rssMb };
}

async function startServer(port) {
  const log = fs.openSync(serverLog, "a");
  server = spawn(process.execPath, [path.join(root, "scripts/server.js")], {
    cwd: root,
    env: { ...baseEnv, PORT: String(port), HOST: "127.0.0.1", WEB_CONCURRENCY: String(WORKERS) },
    stdio: ["ignore", log, log],
  });
  fs.closeSync(log);
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (server.exitCode !== null) break;
    try {
      const res = await fetch(`${origin}/ReciPals/Info`);
      if (res.ok) return origin;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The server did not start:\n${fs.readFileSync(serverLog, "utf8").slice(-2000)}`);
}

async function signIn(origin, username) {
  const res = await fetch(`${origin}/ReciPals/Account/Login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ username, password: PASSWORD, redirectTo: "" }),
  });
  const cookie = (res.headers.getSetCookie?.() ?? [])
    .map((value) => value.split(";")[0])
    .find((value) => value.startsWith("recipals_session="));
  if (res.status !== 302 || !cookie) throw new Error(`Sign-in as ${username} failed: HTTP ${res.status}`);
  return cookie;
}

/** Cycles through `items`, one per request, across all connections. */
function rotating(items) {
  let i = 0;
  return () => items[i++ % items.length];
}

const formBody = (fields) => new URLSearchParams(fields).toString();

function percentileTable(rows) {
  const pad = (text, width) => String(text).padEnd(width);
  const num = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
  const lines = [
    `${pad("scenario", 22)}${pad("conns", 7)}${"req/s".padStart(8)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}${"errors".padStart(8)}${"non-2xx".padStart(9)}${"cpu ms".padStart(8)}${"load".padStart(7)}  verdict`,
  ];
  for (const r of rows) {
    lines.push(
      `${pad(r.scenario + (REPEAT > 1 ? ` #${r.run}` : ""), 22)}${pad(r.connections, 7)}${num(r.rps).padStart(8)}${num(r.p50, 1).padStart(9)}${num(r.p99, 1).padStart(9)}${String(r.errors).padStart(8)}${String(r.non2xx).padStart(9)}${num(r.cpuMsPerRequest, 2).padStart(8)}${num(r.loadBefore, 2).padStart(7)}  ${r.verdict}`,
    );
  }
  return lines.join("\n");
}

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

async function measure({ url, connections, duration, requests, headers, overallRate }) {
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
const rows = [];
let memory = { peakMb: NaN, rssMb: NaN };
try {
  const timings = {};
  if (!flag("no-build")) {
    timings.buildMs = run(`Building into ${buildDir}`, process.execPath, [path.join(root, "node_modules/@remix-run/dev/dist/cli.js"), "build"]);
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

  // Test subjects, read straight from the database (read-only; the server is not running yet).
  const data = new SQLite(databasePath, { readonly: true });
  const pluck = (query, ...params) => data.prepare(query).pluck().all(...params);
  const counts = {
    users: Number(data.prepare("select count(*) from users").pluck().get()),
    posts: Number(data.prepare("select count(*) from posts").pluck().get()),
    likes: Number(data.prepare("select count(*) from likes").pluck().get()),
    comments: Number(data.prepare("select count(*) from comments").pluck().get()),
    follows: Number(data.prepare("select count(*) from follows").pluck().get()),
  };
  const heavy = data.prepare("select username from users where id = 'scale-u0'").pluck().get();
  if (!heavy) throw new Error("No scale-u0: the scale seed did not run.");
  // Spread over the table by seq, so pages are a fair sample rather than one hot row.
  const spread = (table, n) => Math.max(1, Math.floor(Number(data.prepare(`select count(*) from ${table}`).pluck().get()) / n));
  const recipeStep = spread("recipes", 100);
  const recipes = pluck(`select id from recipes where seq % ? = 0 and id like 'scale-%' order by seq limit 100`, recipeStep);
  const postRows = data
    .prepare(`select id, created_by from posts where seq % ? = 0 and created_by is not null and id like 'scale-%' order by seq limit 100`)
    .all(spread("posts", 100));
  // Profiles: the most followed users (the heaviest profiles) and ordinary ones, half and half.
  const popular = pluck("select followee_id from follows group by followee_id order by count(*) desc limit 50");
  const ordinary = pluck("select id from users where id like 'scale-u%' and seq % 97 = 0 limit 50");
  const profiles = [...popular, ...ordinary];
  const writers = pluck("select username from users where id like 'scale-u%' and id <> 'scale-u0' order by seq limit ?", WRITERS);
  const writePosts = data
    .prepare(`select p.id as post_id, p.recipe_id from posts p where p.seq % ? = 1 and p.id like 'scale-%' limit 500`)
    .all(spread("posts", 500));
  data.close();

  const port = await freePort();
  const origin = await startServer(port);
  console.log(`Server pid ${server.pid} on ${origin} (${WORKERS} process${WORKERS > 1 ? "es" : ""}); ${JSON.stringify(counts)}`);

  const heavyCookie = await signIn(origin, heavy);
  const writerCookies = [];
  for (const username of writers) writerCookies.push(await signIn(origin, username));
  console.log(`Signed in ${heavy} and ${writerCookies.length} writers.`);

  const apiProbe = await fetch(`${origin}/api/recipes/search?q=chicken`);
  const hasApiSearch = apiProbe.status === 200 && (apiProbe.headers.get("content-type") ?? "").includes("json");
  await apiProbe.arrayBuffer();
  if (!hasApiSearch) console.log(`GET /api/recipes/search answered ${apiProbe.status}: skipping that scenario.`);

  // Sanity: the pages the bench hits really render (a 200 full of errors would flatter the figures).
  const homeCheck = await fetch(`${origin}/ReciPals/Home`, { headers: { cookie: heavyCookie } });
  const homeHtml = await homeCheck.text();
  const articles = (homeHtml.match(/<article/g) ?? []).length;
  if (!homeCheck.ok || articles === 0) throw new Error(`Home (signed in) answered ${homeCheck.status} with ${articles} posts.`);

  const recipePath = rotating(recipes.map((id) => `/ReciPals/Recipes/${encodeURIComponent(id)}`));
  const profilePath = rotating(profiles.map((id) => `/ReciPals/Account/Profile/${encodeURIComponent(id)}`));
  const postPath = rotating(postRows.map((p) => `/ReciPals/Account/Profile/${encodeURIComponent(p.created_by)}/Posts/${encodeURIComponent(p.id)}`));
  const nextWriter = rotating(writerCookies.map((cookie, index) => ({ cookie, index })));
  const liked = new Map();
  let writeCounter = 0;

  // What a browser with JavaScript sends: fetcher posts to the route's single-fetch endpoint
  // (`.data`), three like toggles for every comment, from 50 signed-in users.
  const writeRequests = [
    {
      method: "POST",
      setupRequest: (req) => {
        const { cookie, index } = nextWriter();
        const n = writeCounter++;
        const target = writePosts[(n * 7 + index) % writePosts.length];
        const headers = { ...req.headers, cookie, origin, "content-type": "application/x-www-form-urlencoded" };
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

  const scenarios = [
    { name: "home-anon", requests: [{ method: "GET", path: "/ReciPals/Home" }] },
    { name: "home-signed-in", headers: { cookie: heavyCookie }, requests: [{ method: "GET", path: "/ReciPals/Home" }] },
    { name: "recipe", requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: recipePath() }) }] },
    { name: "search", requests: [{ method: "GET", path: "/ReciPals/Search?q=chicken" }] },
    {
      name: "profile",
      headers: { cookie: heavyCookie },
      requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: profilePath() }) }],
    },
    {
      name: "post-viewer",
      headers: { cookie: heavyCookie },
      requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: postPath() }) }],
    },
    ...(hasApiSearch ? [{ name: "api-search", requests: [{ method: "GET", path: "/api/recipes/search?q=chicken" }] }] : []),
    { name: "writes-mixed", requests: writeRequests },
    // Visitors while the community writes (WRITE_RATE likes and comments a second): every write
    // empties the shared cache, so this is what visitors get between writes rather than without any.
    { name: "home-anon+writes", requests: [{ method: "GET", path: "/ReciPals/Home" }], background: writeRequests },
    { name: "recipe+writes", requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: recipePath() }) }], background: writeRequests },
  ].filter((scenario) => !ONLY || ONLY.has(scenario.name));

  for (const scenario of scenarios) {
    const base = { url: origin, headers: scenario.headers, requests: scenario.requests };
    await measure({ ...base, connections: Math.max(...CONNECTIONS), duration: WARMUP_SECONDS });
    for (let runNumber = 1; runNumber <= REPEAT; runNumber++) {
      for (const connections of CONNECTIONS) {
        const loadBefore = os.loadavg()[0];
        const cpuBefore = cpuMsOf(server.pid);
        const background = scenario.background
          ? measure({ url: origin, requests: scenario.background, connections: 2, duration: DURATION, overallRate: WRITE_RATE })
          : null;
        const result = await measure({ ...base, connections, duration: DURATION });
        if (background) result.backgroundRps = (await background).rps;
        // Server CPU per request: unlike latency, barely moved by other load on the machine.
        const cpuMsPerRequest = result.requests > 0 ? (cpuMsOf(server.pid) - cpuBefore) / result.requests : NaN;
        const row = { scenario: scenario.name, run: runNumber, connections, loadBefore, ...result, cpuMsPerRequest, rssMbAfter: Math.round(memoryOf(server.pid).rssMb) };
        row.verdict = verdictOf(scenario.name, connections, row);
        rows.push(row);
        console.log(percentileTable([row]).split("\n")[1] + (background ? `  (with ${row.backgroundRps.toFixed(0)} writes/s behind)` : ""));
      }
    }
  }
  memory = memoryOf(server.pid);

  console.log(`\n${percentileTable(rows)}`);
  console.log(
    `\nServer peak RSS ${memory.peakMb.toFixed(0)} MB (now ${memory.rssMb.toFixed(0)} MB); load average now ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} on ${os.cpus().length} CPUs; ${DURATION} s per measurement after a ${WARMUP_SECONDS} s warm-up.`,
  );

  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const resultsDir = path.join(root, "bench", "results");
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${stamp}${LABEL ? `-${LABEL.replace(/[^\w.-]+/g, "_")}` : ""}.json`);
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim();
  const dirty = spawnSync("git", ["status", "--porcelain"], { cwd: root, encoding: "utf8" }).stdout.trim() !== "";
  fs.writeFileSync(
    file,
    `${JSON.stringify(
      {
        label: LABEL || null,
        date: new Date().toISOString(),
        commit: `${commit}${dirty ? "+dirty" : ""}`,
        node: process.version,
        cpus: os.cpus().length,
        users: USERS,
        workers: WORKERS,
        counts,
        durationSeconds: DURATION,
        warmupSeconds: WARMUP_SECONDS,
        budgets: BUDGET,
        timings,
        server: { peakRssMb: Math.round(memory.peakMb), rssMb: Math.round(memory.rssMb) },
        loadAverageAtEnd: os.loadavg(),
        results: rows.map((r) => ({
          ...r,
          rps: Math.round(r.rps),
          loadBefore: Number(r.loadBefore.toFixed(2)),
          cpuMsPerRequest: Number(r.cpuMsPerRequest.toFixed(3)),
        })),
      },
      null,
      2,
    )}\n`,
  );
  console.log(`Wrote ${path.relative(root, file)} (${((Date.now() - started) / 1000).toFixed(0)} s in all).`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  if (fs.existsSync(serverLog)) console.error(`Server log tail:\n${fs.readFileSync(serverLog, "utf8").slice(-2000)}`);
  process.exitCode = 1;
} finally {
  await stopServer();
  cleanUp();
}
