import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { BUILD_DIR, childEnv, ensureBuild, freePort, request, ROOT, SEEDED, seededDatabase, signIn, stopAllServers, tempDir, type RunningServer } from "../support/server/server";

// A production install serves the patched framework (patches/README.md): `npm install --omit=dev`
// in a folder holding only what a deployment holds (package files, patches, scripts, public and a
// build made elsewhere), then the server started from that build. Dev dependencies (the compiler,
// its patch) are absent; the router's and the server runtime's patches are applied by the install
// and are what the running server loaded. Each performance patch can be switched off by its setting.
//
// Install scripts of dependencies are skipped (better-sqlite3 would compile SQLite for minutes:
// its binary is copied from this checkout instead); ours runs as npm runs it, `npm run postinstall`.

let dir = "";
let databasePath = "";

function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // Not NODE_ENV=production: --omit=dev alone must do (our postinstall notices the compiler missing).
    const { NODE_ENV: _production, ...env } = childEnv({});
    const child = spawn(command, args, { cwd, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** What a production server is started with: the test suites' low password cost left out. */
function productionEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { RECIPALS_TEST_PASSWORD_COST: _testCost, ...env } = childEnv(extra);
  return env;
}

/** The server of the production install, with the probe that reports which patches it loaded. */
async function startInstalled(env: Record<string, string> = {}): Promise<RunningServer & { report: () => Promise<PatchReport> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--require", path.join(ROOT, "tests/support/server/patch-probe.cjs"), "scripts/server.js"], {
    cwd: dir,
    env: productionEnv({ DATABASE_PATH: databasePath, PORT: String(port), RECIPALS_BUILD_DIR: "build", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const server = {
    port,
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    child,
    output: () => output,
    exited,
    kill: (signal: NodeJS.Signals = "SIGKILL") => void child.kill(signal),
    report: async (): Promise<PatchReport> => {
      const before = output.split("PATCHES ").length;
      child.kill("SIGUSR1");
      for (let waited = 0; waited < 10_000; waited += 50) {
        const parts = output.split("PATCHES ");
        if (parts.length > before) return JSON.parse(parts[parts.length - 1]!.split("\n")[0]!) as PatchReport;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the server did not report its patches:\n${output}`);
    },
  };
  for (let waited = 0; ; waited += 150) {
    if (child.exitCode !== null) throw new Error(`the installed server exited (${child.exitCode}):\n${output}`);
    const answer = await request(server, "GET", "/ReciPals/Info", { timeoutMs: 5_000 }).catch(() => null);
    if (answer?.status === 200) break;
    if (waited > 60_000) throw new Error(`the installed server did not answer:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return server;
}

interface PatchReport {
  router: string;
  data: string;
  routerLoaded: boolean;
  dataLoaded: boolean;
  routerPatched: boolean;
  dataPatched: boolean;
  stats: { flattened: number; scans: number; memoHits: number; compiled: number } | null;
  reactPatched: boolean;
  serverRoutes: { built: number; reused: number } | null;
}

let install = { code: null as number | null, output: "" };
let postinstall = { code: null as number | null, output: "" };

beforeAll(async () => {
  await ensureBuild();
  dir = tempDir("prod-install");
  for (const file of ["package.json", "package-lock.json"]) fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  for (const folder of ["patches", "scripts", "public"]) fs.cpSync(path.join(ROOT, folder), path.join(dir, folder), { recursive: true });
  fs.cpSync(path.join(ROOT, BUILD_DIR), path.join(dir, "build"), { recursive: true });
  databasePath = await seededDatabase(path.join(dir, "data"));
  install = await run("npm", ["install", "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"], dir, 600_000);
  if (install.code !== 0) return;
  const binary = "node_modules/better-sqlite3/build/Release/better_sqlite3.node";
  fs.mkdirSync(path.dirname(path.join(dir, binary)), { recursive: true });
  fs.copyFileSync(path.join(ROOT, binary), path.join(dir, binary));
  postinstall = await run("npm", ["run", "postinstall"], dir, 120_000);
}, 900_000);

afterAll(async () => {
  await stopAllServers();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("a production install (npm install --omit=dev, then the server from a build)", () => {
  it("installs no dev dependency and applies the router's and the server runtime's patches", () => {
    expect(install.code, install.output).toBe(0);
    expect(fs.existsSync(path.join(dir, "node_modules/@remix-run/dev"))).toBe(false);
    expect(postinstall.code, postinstall.output).toBe(0);
    expect(postinstall.output).toMatch(/@remix-run\/router@[\d.]+ ✔/);
    expect(postinstall.output).toMatch(/@remix-run\/server-runtime@[\d.]+ ✔/);
    expect(postinstall.output).toMatch(/@remix-run\/react@[\d.]+ ✔/);
    expect(postinstall.output).toMatch(/react-router-dom@[\d.]+ ✔/);
    expect(postinstall.output).toMatch(/Skipping dev-only @remix-run\/dev/);
  });

  it("serves pages with the patched router and server runtime it installed", async () => {
    const server = await startInstalled();
    try {
      for (const page of ["/ReciPals/Home", "/ReciPals/Recipes/jd-R1", "/ReciPals/Recipes/jd-R1", "/ReciPals/Search?q=chicken"]) {
        expect((await request(server, "GET", page)).status).toBe(200);
      }
      const report = await server.report();
      expect(report.router.startsWith(dir)).toBe(true);
      expect(report.data.startsWith(dir)).toBe(true);
      expect(report).toMatchObject({ routerLoaded: true, dataLoaded: true, routerPatched: true, dataPatched: true });
      // The same URL twice: the second match was remembered (the patch at work, not merely on disk).
      expect(report.stats!.memoHits).toBeGreaterThan(0);
      // The route objects were built once and used for the other pages.
      expect(report.reactPatched).toBe(true);
      expect(report.serverRoutes?.built).toBe(1);
      expect(report.serverRoutes?.reused).toBeGreaterThanOrEqual(2);
    } finally {
      server.kill();
    }
  }, 120_000);

  it("hashes passwords at production's cost: a sign-in upgrades the tests' cheaper seeded hash", async () => {
    const hashOf = () => {
      const sqlite = new SQLite(databasePath, { readonly: true });
      try {
        return (sqlite.prepare("select password_hash from users where id = ?").get(SEEDED.id) as { password_hash: string }).password_hash;
      } finally {
        sqlite.close();
      }
    };
    // The seeded template was made by the test suites, at their cost (docs/testing.md).
    expect(hashOf().split("$").slice(0, 4)).toEqual(["scrypt", "1024", "8", "1"]);
    const server = await startInstalled();
    try {
      await signIn(server, SEEDED.username, SEEDED.password);
      expect(hashOf().split("$").slice(0, 4)).toEqual(["scrypt", "32768", "8", "3"]);
    } finally {
      server.kill();
    }
  }, 120_000);

  it("RECIPALS_PATCH_ROUTE_MATCHING=off matches routes as upstream does, pages unchanged", async () => {
    const server = await startInstalled({ RECIPALS_PATCH_ROUTE_MATCHING: "off", PAGE_CACHE_SECONDS: "0" });
    try {
      const first = await request(server, "GET", "/ReciPals/Recipes/jd-R1");
      expect(first.status).toBe(200);
      expect(first.body).toContain("Beef Rice Noodles Stir Fry");
      expect((await request(server, "GET", "/ReciPals/Recipes/jd-R1")).status).toBe(200);
      const report = await server.report();
      expect(report.routerLoaded).toBe(true);
      expect(report.stats).toEqual({ flattened: 0, scans: 0, memoHits: 0, compiled: 0 });
    } finally {
      server.kill();
    }
  }, 120_000);
});
