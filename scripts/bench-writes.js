// `npm run bench:writes -- --database postgres://USER:PW@HOST/DB [options]`: independent writers on
// PostgreSQL behind several app servers, with a network between them (docs/scaling.md, "How
// writers meet"). Each writer is one person liking and unliking a post of their own, as the
// page's like button does with JavaScript (a fetcher POST), as fast as the answers come back.
//
//   --database URL    a server and a role that may create databases (the database in it is only
//                     used to connect); RECIPALS_TEST_POSTGRES or TEST_POSTGRES_URL otherwise
//   --delay MS        held per chunk in each direction between the app servers and PostgreSQL
//                     (scripts/delay-proxy.js; default 1)
//   --writers LIST    comma-separated numbers of writers (default 1,32)
//   --nodes N         app servers per setup (default 2); writer i talks to server i mod N
//   --duration S      seconds per measurement (default 10); --repeat R (default 2)
//   --baseline DIR    also measure the app in DIR (a checkout with its build and node_modules),
//                     interleaved with this one, each on its own database and proxy
//   --label TEXT      added to the result file under bench/results/
//
// For each measurement: writes/s (answers per second, all writers together), p50/p99 of one
// write, errors, and with one writer the round trips per write (chunks the app servers sent to
// PostgreSQL, counted by the proxy). Afterwards every writer's like is checked against the last
// answer it got: a lost or doubled write fails the run.
import { fork, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import pg from "pg";

import { redactUrl } from "./redact-url.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (/** @type {string} */ name, /** @type {string} */ fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] !== undefined ? /** @type {string} */ (args[at + 1]) : fallback;
};

const DATABASE = option("database", process.env.RECIPALS_TEST_POSTGRES ?? process.env.TEST_POSTGRES_URL ?? "");
const DELAY_MS = Number(option("delay", "1"));
const WRITERS = option("writers", "1,32").split(",").map(Number);
const NODES = Number(option("nodes", "2"));
const DURATION_S = Number(option("duration", "10"));
const REPEAT = Number(option("repeat", "2"));
const BASELINE = option("baseline", "");
const LABEL = option("label", "");
const PASSWORD = "bench-writer-password";
if (!/^postgres(ql)?:\/\//.test(DATABASE)) {
  console.error("bench:writes needs --database postgres://… (a server and a role that may create databases).");
  process.exit(2);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-bench-writes-"));
/** @type {{ kill(signal?: NodeJS.Signals): boolean }[]} */
const children = [];
/** @type {string[]} */
const databases = [];

/** @param {string} url @param {string} name */
function withDatabase(url, name) {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** One statement on its own connection to `url` (the server's, or a bench database's). */
async function query(/** @type {string} */ url, /** @type {string} */ sql, /** @type {unknown[]} */ params = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** Runs a command to the end (its output in a log), failing with the log's tail. */
function run(/** @type {string} */ label, /** @type {string} */ cwd, /** @type {string[]} */ command, /** @type {NodeJS.ProcessEnv} */ env) {
  const log = path.join(tmp, `${label}.log`);
  return new Promise((resolve, reject) => {
    const out = fs.openSync(log, "a");
    const child = spawn(/** @type {string} */ (command[0]), command.slice(1), { cwd, env, stdio: ["ignore", out, out] });
    fs.closeSync(out);
    child.on("exit", (code) => (code === 0 ? resolve(undefined) : reject(new Error(`${label} failed (${code}): ${fs.readFileSync(log, "utf8").slice(-1500)}`))));
  });
}

/** Starts scripts/delay-proxy.js in front of PostgreSQL; its port and a way to read its count. */
async function startProxy() {
  const target = new URL(DATABASE);
  const child = fork(path.join(root, "scripts/delay-proxy.js"), ["--target", `${target.hostname}:${target.port || 5432}`, "--delay", String(DELAY_MS)], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  children.push(child);
  const port = await new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      const match = /listening (\d+)/.exec(String(chunk));
      if (match) resolve(Number(match[1]));
    });
    child.on("exit", () => reject(new Error("the delay proxy stopped")));
  });
  /** @returns {Promise<{ sent: number, heldMs: number, held: number }>} */
  const counts = () =>
    new Promise((resolve) => {
      child.once("message", (message) => resolve(/** @type {{ sent: number, heldMs: number, held: number }} */ (message)));
      child.send("count");
    });
  return { port: /** @type {number} */ (port), counts };
}

/** Waits until `origin` answers its Info page. */
async function waitForAnswer(/** @type {string} */ origin, /** @type {string} */ log) {
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    try {
      const res = await fetch(`${origin}/ReciPals/Info`);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${origin} did not answer: ${fs.readFileSync(log, "utf8").slice(-1500)}`);
}

let nextPort = 4700 + (process.pid % 200);

/**
 * One setup: its own database (migrated and seeded by its app's own prepare step, directly), its
 * proxy, NODES servers reaching PostgreSQL through the proxy, and the writers signed up.
 * @param {string} name @param {string} appRoot
 */
async function startSetup(name, appRoot) {
  const database = `recipals_bw_${process.pid}_${databases.length}`;
  await query(DATABASE, `create database ${database}`);
  databases.push(database);
  const direct = withDatabase(DATABASE, database);
  /** @type {NodeJS.ProcessEnv} */
  const env = {
    ...process.env,
    NODE_ENV: "production",
    RECIPALS_BUILD_DIR: "build",
    RECIPALS_SEED_FILE: process.env.RECIPALS_SEED_FILE ?? path.resolve(root, "../shared/data/recipals-seed.json"),
    SEED_ADMIN_PASSWORD: "bench-admin-password",
    SESSION_SECRET: "bench-session-secret-0123456789abcdef",
    ADMIN_SECRET: "bench-admin-secret",
    MEALDB_BASE_URL: "http://127.0.0.1:9/none",
    RECIPALS_SEED_PHOTOS: "link",
    SIGNUP_LIMIT: "100000",
    DATABASE_PATH: path.join(tmp, `${name}.db`),
  };
  console.log(`${name}: seeding ${redactUrl(direct)} …`);
  await run(`${name}-prepare`, appRoot, [process.execPath, "scripts/prepare.js"], { ...env, DATABASE_URL: direct });
  const proxy = await startProxy();
  const proxied = new URL(direct);
  proxied.host = `127.0.0.1:${proxy.port}`;
  /** @type {string[]} */
  const origins = [];
  for (let node = 0; node < NODES; node++) {
    const port = nextPort++;
    const log = path.join(tmp, `${name}-server-${node}.log`);
    const out = fs.openSync(log, "a");
    const child = spawn(process.execPath, ["scripts/server.js"], {
      cwd: appRoot,
      env: { ...env, DATABASE_URL: proxied.toString(), PORT: String(port), HOST: "127.0.0.1", WEB_CONCURRENCY: "1" },
      stdio: ["ignore", out, out],
    });
    fs.closeSync(out);
    children.push(child);
    const origin = `http://127.0.0.1:${port}`;
    await waitForAnswer(origin, log);
    origins.push(origin);
  }
  // Writers, each with a post of their own to like (someone else's: the seed's, newest first).
  const most = Math.max(...WRITERS);
  const { rows: posts } = await query(direct, "select id from posts order by seq desc limit $1", [most]);
  if (posts.length < most) throw new Error(`${name}: only ${posts.length} posts for ${most} writers`);
  /** @type {{ cookie: string, postId: string, origin: string, userId: string }[]} */
  const writers = [];
  for (let i = 0; i < most; i++) {
    const origin = /** @type {string} */ (origins[i % origins.length]);
    const res = await fetch(`${origin}/api/users/signup`, {
      method: "POST",
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify({ username: `writer_${process.pid}_${i}`, password: PASSWORD, name: `Writer ${i}` }),
    });
    const body = /** @type {{ _id?: string }} */ (await res.json());
    const cookie = (res.headers.getSetCookie?.() ?? []).map((value) => value.split(";")[0] ?? "").find((value) => value.startsWith("recipals_session="));
    if (res.status !== 201 || !cookie || !body._id) throw new Error(`${name}: sign-up ${i} answered ${res.status}`);
    writers.push({ cookie, postId: /** @type {{ id: string }} */ (posts[i]).id, origin, userId: body._id });
  }
  console.log(`${name}: ${NODES} servers, ${writers.length} writers, ${DELAY_MS} ms each way to PostgreSQL.`);
  return { name, direct, proxy, writers };
}

// The writers' own client shares the machine with the servers, PostgreSQL and the proxy: it
// posts with node:http over kept connections, which costs it a fraction of what Node's `fetch`
// does per request, so the servers get the cores (bench/README.md, issue 52).
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/**
 * Posts a form as the like button's fetcher does; the answer's status and text.
 * @param {string} url @param {Record<string, string>} headers @param {string} body
 * @returns {Promise<{ status: number, text: string }>}
 */
function postForm(url, headers, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: "POST", agent, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } }, (response) => {
      /** @type {Buffer[]} */
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}

/**
 * `count` writers of `setup` like and unlike their posts for DURATION_S seconds.
 * @param {Awaited<ReturnType<typeof startSetup>>} setup @param {number} count
 */
async function measure(setup, count) {
  const writers = setup.writers.slice(0, count);
  /** @type {number[]} */
  const times = [];
  let errors = 0;
  const before = await setup.proxy.counts();
  const until = Date.now() + DURATION_S * 1000;
  /** What each writer's last answered write left: liked or not. */
  const last = new Map();
  await Promise.all(
    writers.map(async (writer) => {
      let liked = (await likedNow(setup, writer)) === 1;
      while (Date.now() < until) {
        const intent = liked ? "unlike" : "like";
        const started = performance.now();
        try {
          const res = await postForm(
            `${writer.origin}/ReciPals/Posts/${writer.postId}/Like.data`,
            { "content-type": "application/x-www-form-urlencoded", cookie: writer.cookie, origin: writer.origin },
            new URLSearchParams({ intent, _fetcher: "1" }).toString(),
          );
          const body = res.text;
          if (res.status >= 200 && res.status < 300 && body.includes(`"liked",${!liked}`)) {
            times.push(performance.now() - started);
            liked = !liked;
          } else {
            if (errors === 0) console.log(`  first refused write: HTTP ${res.status} ${body.slice(0, 300)}`);
            errors += 1;
          }
        } catch {
          errors += 1;
        }
      }
      last.set(writer, liked);
    }),
  );
  const after = await setup.proxy.counts();
  const sent = after.sent - before.sent;
  // What a chunk was really held, each way (Node's timers fire at the delay or up to a millisecond after).
  const heldMs = after.held > before.held ? (after.heldMs - before.heldMs) / (after.held - before.held) : 0;
  // No lost or doubled write: each post holds exactly the like its writer's last answer said.
  let wrong = 0;
  for (const [writer, liked] of last) if ((await likedNow(setup, writer)) !== (liked ? 1 : 0)) wrong += 1;
  times.sort((x, y) => x - y);
  const at = (/** @type {number} */ p) => times[Math.min(times.length - 1, Math.floor((times.length - 1) * p))] ?? NaN;
  return {
    setup: setup.name,
    writers: count,
    writes: times.length,
    perSecond: times.length / DURATION_S,
    p50: at(0.5),
    p99: at(0.99),
    errors,
    wrong,
    roundTrips: count === 1 && times.length > 0 ? sent / (times.length + errors) : null,
    heldMs,
  };
}

/** @param {Awaited<ReturnType<typeof startSetup>>} setup @param {{ postId: string, userId: string }} writer */
async function likedNow(setup, writer) {
  const { rows } = await query(setup.direct, "select count(*)::int as n from likes where post_id = $1 and user_id = $2", [writer.postId, writer.userId]);
  return Number(rows[0]?.n ?? 0);
}

async function cleanUp() {
  for (const child of children) child.kill("SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const database of databases) await query(DATABASE, `drop database if exists ${database} with (force)`).catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
}

try {
  const setups = [];
  if (BASELINE) setups.push(await startSetup("baseline", path.resolve(BASELINE)));
  setups.push(await startSetup("this", root));
  const results = [];
  // Interleaved: every setup takes its turn at each writer count, repeat after repeat.
  for (let round = 0; round < REPEAT; round++) {
    for (const count of WRITERS) {
      for (const setup of setups) {
        const result = await measure(setup, count);
        results.push({ ...result, round: round + 1 });
        console.log(
          `${result.setup.padEnd(9)} writers ${String(count).padStart(3)}  #${round + 1}  ${result.perSecond.toFixed(1).padStart(7)} writes/s  p50 ${result.p50.toFixed(1).padStart(6)} ms  p99 ${result.p99.toFixed(1).padStart(6)} ms  errors ${result.errors}  lost/doubled ${result.wrong}  held ${result.heldMs.toFixed(2)} ms${result.roundTrips === null ? "" : `  round trips/write ${result.roundTrips.toFixed(1)}`}`,
        );
      }
    }
  }
  const median = (/** @type {number[]} */ values) => [...values].sort((x, y) => x - y)[Math.floor((values.length - 1) / 2)] ?? NaN;
  console.log(`\nMedians over ${REPEAT} runs of ${DURATION_S} s, ${NODES} servers, ${DELAY_MS} ms each way:`);
  console.log("| setup | writers | writes/s | p50 ms | p99 ms | round trips/write | held ms each way | errors | lost or doubled |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  const summary = [];
  for (const setup of setups) {
    for (const count of WRITERS) {
      const runs = results.filter((r) => r.setup === setup.name && r.writers === count);
      const row = {
        setup: setup.name,
        writers: count,
        perSecond: median(runs.map((r) => r.perSecond)),
        p50: median(runs.map((r) => r.p50)),
        p99: median(runs.map((r) => r.p99)),
        roundTrips: count === 1 ? median(runs.map((r) => r.roundTrips ?? NaN)) : null,
        heldMs: median(runs.map((r) => r.heldMs)),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
        wrong: runs.reduce((sum, r) => sum + r.wrong, 0),
      };
      summary.push(row);
      console.log(
        `| ${row.setup} | ${count} | ${row.perSecond.toFixed(1)} | ${row.p50.toFixed(1)} | ${row.p99.toFixed(1)} | ${row.roundTrips === null ? "" : row.roundTrips.toFixed(1)} | ${row.heldMs.toFixed(2)} | ${row.errors} | ${row.wrong} |`,
      );
    }
    const one = summary.find((r) => r.setup === setup.name && r.writers === Math.min(...WRITERS));
    const many = summary.find((r) => r.setup === setup.name && r.writers === Math.max(...WRITERS));
    if (one && many && one !== many) console.log(`${setup.name}: ${many.writers} writers commit ${(many.perSecond / one.perSecond).toFixed(1)}× what ${one.writers} writer does.`);
  }
  fs.mkdirSync(path.join(root, "bench/results"), { recursive: true });
  const file = path.join(root, "bench/results", `${new Date().toISOString().replace(/[:.]/g, "-")}-writes${LABEL ? `-${LABEL}` : ""}.json`);
  fs.writeFileSync(file, `${JSON.stringify({ delayMs: DELAY_MS, nodes: NODES, durationS: DURATION_S, repeat: REPEAT, baseline: BASELINE || null, results, summary }, null, 2)}\n`);
  console.log(`Wrote ${path.relative(root, file)}`);
  const failed = summary.some((r) => r.wrong > 0);
  await cleanUp();
  process.exit(failed ? 1 : 0);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await cleanUp();
  process.exit(1);
}
