import cluster from "node:cluster";

import { AggregatorRegistry } from "prom-client";

import { metrics } from "./metrics.server";

// Under WEB_CONCURRENCY above 1 each worker process counts its own requests, and whichever worker
// a scrape reaches answers for all: it asks the primary, which gathers every worker's metrics
// (prom-client's cluster aggregation: counters and gauges added up) and hands the text back.

const ASK = "recipals:metrics-ask";
const ANSWER = "recipals:metrics-answer";

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

const isAnswer = (message: unknown): message is Answer => (message as { type?: unknown } | null)?.type === ANSWER;

/** In the primary: answers workers that ask for everyone's metrics. */
export function gatherWorkerMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker, message: { type?: unknown; id?: unknown }) => {
    if (message?.type !== ASK || typeof message.id !== "number") return;
    const id = message.id;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: ANSWER, id, text } satisfies Answer),
      (error: unknown) => worker.isConnected() && worker.send({ type: ANSWER, id, error: String(error) } satisfies Answer),
    );
  });
}

let asked = 0;
const waiting = new Map<number, (answer: Answer) => void>();

/** In a worker, when it starts: lets the primary read this worker's metrics, and hear its answers. */
export function joinWorkerMetrics(): void {
  AggregatorRegistry.setRegistries([metrics]);
  // Constructing one in a worker is what makes prom-client answer the primary's requests.
  new AggregatorRegistry();
  process.on("message", (message: unknown) => {
    if (!isAnswer(message)) return;
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
}

/** In a worker: every worker's metrics, added up (through the primary). */
export function clusterMetricsText(): Promise<string> {
  const id = (asked += 1);
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error("the primary process did not answer with the workers' metrics within 5 s"));
    }, 5000);
    waiting.set(id, (answer) => {
      clearTimeout(timer);
      if (answer.text !== undefined) resolve(answer.text);
      else reject(new Error(answer.error ?? "no metrics"));
    });
    process.send?.({ type: ASK, id });
  });
}
