import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { postForm, request, seededDatabase, SEEDED_2, signIn, startServer, stopAllServers, tempDir, type RunningServer } from "../support/server/server";

// WEB_CONCURRENCY=2 (app/server/runtime/serve.server.ts, serve()): two worker processes share the port and the
// database file. What one worker writes, the other shows at once — shared page caches included
// — a worker that dies is replaced, and SIGTERM stops everything cleanly.

let dir: string;
let server: RunningServer;

/** Live child processes of `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const afterName = fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1] ?? "";
      const [state, parent] = afterName.split(" ");
      if (Number(parent) === pid && state !== "Z") children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

const alive = (pid: number) => {
  try {
    const state = (fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" ")[0];
    return state !== "Z";
  } catch {
    return false;
  }
};

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `n` GETs, each on a new connection, so both workers answer some of them. */
function spread(n: number, urlPath: string) {
  return Promise.all(Array.from({ length: n }, () => request(server, "GET", urlPath)));
}

/** A server with WEB_CONCURRENCY=2 on its own copy of the seeded database, once both workers run. */
async function startTwoWorkers(name: string): Promise<RunningServer> {
  const started = await startServer({ databasePath: await seededDatabase(path.join(dir, name)), env: { WEB_CONCURRENCY: "2" } });
  await waitFor(() => childrenOf(started.pid).length === 2 && started.output().match(/listening on/g)?.length === 2, "two listening workers");
  return started;
}

beforeAll(async () => {
  dir = tempDir("workers");
  server = await startTwoWorkers("main");
}, 300_000);

afterAll(async () => {
  await stopAllServers();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("WEB_CONCURRENCY=2", () => {
  it("runs two workers that both answer", async () => {
    expect(childrenOf(server.pid)).toHaveLength(2);
    expect(server.output()).toContain("2 worker processes");
    const answers = await spread(30, "/ReciPals/Info");
    expect(answers.map((res) => res.status)).toEqual(Array(30).fill(200));
  });

  it("a comment written through one worker is on every visitor's page at once, from either worker", async () => {
    const page = "/ReciPals/Recipes/recipeBot-R12";
    // Both workers render and keep the visitor's page.
    await spread(12, page);
    const text = `Worker check ${crypto.randomUUID()}`;
    const cookie = await signIn(server, SEEDED_2.username, SEEDED_2.password);
    expect((await postForm(server, page, { intent: "comment", text }, cookie)).status).toBe(302);
    const after = await spread(12, page);
    for (const res of after) expect(res.body).toContain(text);
  });

  it("replaces a worker that dies, and keeps answering meanwhile", async () => {
    const [victim] = childrenOf(server.pid);
    expect(victim).toBeDefined();
    process.kill(victim!, "SIGKILL");
    // (A connection the primary hands over in the instant the worker dies is lost with it —
    // node:cluster's round robin — so the check starts once the primary has seen the exit.)
    await waitFor(() => /exited \(SIGKILL\); starting another/.test(server.output()), "the primary to see the exit");
    const answers = await spread(10, "/ReciPals/Info");
    expect(answers.every((res) => res.status === 200)).toBe(true);
    await waitFor(() => {
      const now = childrenOf(server.pid);
      return now.length === 2 && !now.includes(victim!);
    }, "a replacement worker");
    await waitFor(() => server.output().match(/listening on/g)?.length === 3, "the replacement to listen");
    const again = await spread(10, "/ReciPals/Info");
    expect(again.every((res) => res.status === 200)).toBe(true);
  }, 60_000);

  it("stops cleanly on SIGTERM: every worker finishes and exits, then the primary with code 0", async () => {
    const workers = childrenOf(server.pid);
    expect(workers).toHaveLength(2);
    server.kill("SIGTERM");
    const { code } = await server.exited;
    expect(code).toBe(0);
    for (const pid of workers) expect(alive(pid), `worker ${pid} still running`).toBe(false);
    expect(server.output().match(/SIGTERM: finishing in-flight requests/g)).toHaveLength(2);
  }, 30_000);

  it("Ctrl-C in a terminal (SIGINT to the primary and to every worker at once) still lets each worker finish and exit 0", async () => {
    const other = await startTwoWorkers(`sigint`);
    const workers = childrenOf(other.pid);
    // The terminal signals the whole process group; the primary then passes SIGINT on again.
    for (const pid of [other.pid, ...workers]) process.kill(pid, "SIGINT");
    const { code, signal } = await other.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(other.output().match(/SIGINT: finishing in-flight requests/g)).toHaveLength(2);
    for (const pid of workers) expect(alive(pid)).toBe(false);
  }, 60_000);

  it("workers do not outlive a primary that is killed outright", async () => {
    const other = await startTwoWorkers(`killed`);
    const workers = childrenOf(other.pid);
    other.kill("SIGKILL");
    await other.exited;
    await waitFor(() => workers.every((pid) => !alive(pid)), "the orphaned workers to exit", 10_000);
  }, 120_000);
});
