import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { request, seededDatabase, startServer, stopAllServers, tempDir, type RunningServer } from "../support/server/server";

// /metrics under WEB_CONCURRENCY=2 (docs/operator-guide.md, "Metrics"): each worker counts only the
// requests it served, and a scrape reaches one worker or the other, so the answer must add up both
// (app/server/observability/cluster-metrics.server.ts) or a scraper sees counts that jump about.
// The real production server, two workers, requests spread over both by the cluster's round robin.

let server: RunningServer;
const INFO = "routes/ReciPals.Info";
const REQUESTS = 20;
const SCRAPES = 6;

beforeAll(async () => {
  const database = await seededDatabase(tempDir("observe-cluster"));
  server = await startServer({ databasePath: database, env: { WEB_CONCURRENCY: "2", LOG_LEVEL: "info" } });
  // startServer returns once one worker answers; the round robin hands out connections only to
  // workers that listen, so wait for the second one's "listening" line too.
  for (const deadline = Date.now() + 60_000; listeningWorkers().size < 2; ) {
    if (Date.now() > deadline) throw new Error(`the second worker did not start within 60 s:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 240_000);
afterAll(() => stopAllServers());

/** The JSON lines of the server's output (the primary's own lines are plain text). */
function logLines(): Record<string, unknown>[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function listeningWorkers(): Set<unknown> {
  return new Set(logLines().filter((line) => String(line.msg).startsWith("ReciPals listening")).map((line) => line.pid));
}

const requestLines = () => logLines().filter((line) => line.msg === "request" && line.route === INFO);

describe("/metrics with two worker processes", () => {
  it("counts every worker's requests in every scrape, whichever worker answers it", async () => {
    // The Info page startServer asked for while waiting for the server: counted, and logged once
    // its answer has gone (a moment after startServer read it).
    for (const deadline = Date.now() + 5_000; requestLines().length === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
    const earlier = requestLines().length;
    expect(earlier).toBeGreaterThanOrEqual(1);
    const ids: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      // A connection each (request's default): the cluster gives each to the next worker.
      const answer = await request(server, "GET", "/ReciPals/Info");
      expect(answer.status).toBe(200);
      ids.push(String(answer.headers["x-request-id"]));
    }
    // Both workers served some of them (each request's log line names its process).
    await expect.poll(() => requestLines().filter((line) => ids.includes(String(line.reqId))).length).toBe(REQUESTS);
    const servedBy = new Set(requestLines().filter((line) => ids.includes(String(line.reqId))).map((line) => line.pid));
    expect(servedBy.size).toBe(2);
    expect(requestLines()).toHaveLength(earlier + REQUESTS);

    for (let scrape = 0; scrape < SCRAPES; scrape++) {
      const answer = await request(server, "GET", "/metrics");
      expect(answer.status).toBe(200);
      const families = parsePrometheusTextFormat(answer.body);
      const names = families.map((family) => family.name);
      for (const name of ["process_cpu_user_seconds_total", "process_resident_memory_bytes", "nodejs_eventloop_lag_seconds", "nodejs_heap_size_used_bytes"]) {
        expect(names).toContain(name);
      }
      const served = families.find((family) => family.name === "recipals_http_requests_total")?.metrics ?? [];
      const info = served.filter((sample) => sample.labels?.route === INFO).reduce((sum, sample) => sum + Number(sample.value), 0);
      expect(info - earlier, `scrape ${scrape + 1}`).toBe(REQUESTS);
      // The duration histogram is added up too (its _count line; the parser merges a histogram's label sets).
      const timed = answer.body.split("\n").find((line) => line.startsWith(`recipals_http_request_duration_seconds_count{route="${INFO}"}`));
      expect(Number(timed?.split(" ").at(-1)) - earlier, `scrape ${scrape + 1}`).toBe(REQUESTS);
    }
  });
});
