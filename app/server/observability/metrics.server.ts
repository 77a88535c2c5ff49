import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

// What the server counts for its operator (docs/operator-guide.md, "Metrics"), served as
// Prometheus text at GET /metrics (app/server/runtime/observe.server.ts). Counters move where
// the thing happens (a refused sign-in, a sent mail); what is a state (connections in use, the
// upload queue, the page cache's hits) is read when the metrics are asked for.

export const metrics = new Registry();
// The process's own: CPU, memory, event-loop lag, open handles, garbage collection.
collectDefaultMetrics({ register: metrics });

const registers = [metrics];

export const requestsServed = new Counter({
  name: "recipals_http_requests_total",
  help: "Requests answered, by the route that answered (its Remix route id), method and status.",
  labelNames: ["route", "method", "status"] as const,
  registers,
});

export const requestSeconds = new Histogram({
  name: "recipals_http_request_duration_seconds",
  help: "Time from a request's arrival to the end of its answer, by route.",
  labelNames: ["route"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

export const signInRefusals = new Counter({
  name: "recipals_sign_in_refusals_total",
  help: "Sign-ins refused: wrong name or password, too many tries, or a suspended account.",
  labelNames: ["reason"] as const,
  registers,
});

export const signUpRefusals = new Counter({
  name: "recipals_sign_up_refusals_total",
  help: "Sign-ups refused: a form the rules refuse, a name taken, or too many from one address.",
  labelNames: ["reason"] as const,
  registers,
});

export const mailMessages = new Counter({
  name: "recipals_mail_messages_total",
  help: "Mail the server tried to send, by result (sent or failed).",
  labelNames: ["result"] as const,
  registers,
});

const connectionWaits = new Histogram({
  name: "recipals_db_connection_wait_seconds",
  help: "Time a query waited for a database connection (the pool's, or SQLite's one connection).",
  buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
  registers,
});

const connections = { inUse: 0, waiting: 0 };

/** Takes a database connection through `acquire`, counting the wait and the connection in use until connectionReleased(). */
export async function countedAcquire<T>(acquire: () => Promise<T>): Promise<T> {
  const started = performance.now();
  connections.waiting += 1;
  try {
    const connection = await acquire();
    connections.inUse += 1;
    return connection;
  } finally {
    connections.waiting -= 1;
    connectionWaits.observe((performance.now() - started) / 1000);
  }
}

export function connectionReleased(): void {
  connections.inUse -= 1;
}

new Gauge({
  name: "recipals_db_connections",
  help: "Database connections in use by queries, and queries waiting for one.",
  labelNames: ["state"] as const,
  registers,
  collect() {
    this.set({ state: "in_use" }, connections.inUse);
    this.set({ state: "waiting" }, connections.waiting);
  },
});

/**
 * A gauge whose values are read when the metrics are asked for: `read` answers a value per
 * value of its one label. Registered once per name (the server calls it when it starts).
 */
export function gaugeReadAtScrape(
  name: string,
  help: string,
  label: string,
  read: () => Record<string, number> | Promise<Record<string, number>>,
  /** How several workers' values make one (prom-client's cluster aggregation): added up, or the largest for a value every worker reads alike. */
  aggregator: "sum" | "max" = "sum",
): void {
  metrics.removeSingleMetric(name);
  new Gauge({
    name,
    help,
    labelNames: [label],
    registers,
    aggregator,
    async collect() {
      for (const [value, count] of Object.entries(await read())) this.set({ [label]: value }, count);
    },
  });
}

/** A counter kept elsewhere (the page cache's own hit and miss counts), read when the metrics are asked for. */
export function counterReadAtScrape(name: string, help: string, label: string, read: () => Record<string, number>): void {
  metrics.removeSingleMetric(name);
  new Counter({
    name,
    help,
    labelNames: [label],
    registers,
    collect() {
      this.reset();
      for (const [value, count] of Object.entries(read())) this.inc({ [label]: value }, count);
    },
  });
}
