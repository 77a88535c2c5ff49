import type { MessageQueue, MessageQueueEnqueueOptions, MessageQueueListenOptions } from "@fedify/fedify";
import { sql } from "kysely";
import type PgBoss from "pg-boss";

import type { DB } from "../db/connection.server";
import { log } from "../observability/log.server";
import { durationMs, LEASE_MS, undeliverable, withinLease, WORKERS } from "./federation-store.server";

// The ActivityPub library's message queue on PostgreSQL (docs/federation.md): pg-boss, a
// maintained job queue native to PostgreSQL, in its own schema (`pgboss`) of the app's database.
// Jobs survive a restart, wait out a retry's backoff (`startAfter`), are taken by one worker of one
// server at a time (SKIP LOCKED) and come back when a worker died holding one (its expiry, our
// lease). The embedded SQLite default keeps its small table behind the same interface
// (federation-store.server.ts).

/** The queue's name in pg-boss. */
export const PG_BOSS_QUEUE = "federation";
/** pg-boss's schema in the app's database. */
export const PG_BOSS_SCHEMA = "pgboss";
const POLL_SECONDS = 1;

export class PgBossMessageQueue implements MessageQueue {
  #boss: Promise<PgBoss> | null = null;
  /** This server's workers: woken at once by a message queued here (others find it by polling). */
  readonly #workers = new Set<string>();

  constructor(
    private readonly url: string,
    private readonly database: DB,
  ) {}

  /** pg-boss, started (its schema made or brought up to date) on first use. */
  #started(): Promise<PgBoss> {
    this.#boss ??= (async () => {
      const { default: Boss } = await import("pg-boss");
      const boss = new Boss({ connectionString: this.url, schema: PG_BOSS_SCHEMA, max: WORKERS + 1, schedule: false, application_name: "recipals-federation" });
      boss.on("error", (error) => log.warn({ err: error }, "federation queue (pg-boss): an error"));
      await boss.start();
      // Deliveries retry themselves (the library sends a new message with a backoff); a message
      // whose handling failed or outlasted its time is tried again a minute later, a few times.
      await boss.createQueue(PG_BOSS_QUEUE, { name: PG_BOSS_QUEUE, retryLimit: 5, retryDelay: 60, expireInSeconds: LEASE_MS / 1000, retentionDays: 14 });
      return boss;
    })();
    this.#boss.catch(() => (this.#boss = null));
    return this.#boss;
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    if (messages.length === 0) return;
    const boss = await this.#started();
    const delay = durationMs(options?.delay);
    const startAfter = delay > 0 ? new Date(Date.now() + delay) : undefined;
    await boss.insert(messages.map((message) => ({ name: PG_BOSS_QUEUE, data: { message: JSON.stringify(message) }, startAfter })));
    if (!startAfter) for (const worker of this.#workers) boss.notifyWorker(worker);
  }

  async listen(handler: (message: unknown) => Promise<void> | void, options?: MessageQueueListenOptions): Promise<void> {
    const signal = options?.signal;
    if (signal?.aborted) return;
    const boss = await this.#started();
    const work = async ([job]: PgBoss.Job<{ message: string }>[]) => {
      if (!job) return;
      const message = JSON.parse(job.data.message) as unknown;
      // A delivery to a server blocked since it was queued, or to a gone inbox, goes nowhere.
      if (await undeliverable(message, this.database)) return;
      await withinLease(handler(message));
    };
    // Several workers side by side: a slow or dead server never holds the others' deliveries back.
    for (let i = 0; i < WORKERS; i += 1) this.#workers.add(await boss.work(PG_BOSS_QUEUE, { batchSize: 1, pollingIntervalSeconds: POLL_SECONDS }, work));
    await new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }));
    this.#workers.clear();
    await boss.stop({ graceful: false, close: true, wait: false }).catch(() => undefined);
    this.#boss = null;
  }
}

/** Jobs waiting or running in pg-boss's queue (the operator's depth), read without starting it: 0 before it was ever used. */
export async function pgBossDepth(database: DB): Promise<number> {
  try {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(`${PG_BOSS_SCHEMA}.job`)} where name = ${PG_BOSS_QUEUE} and state in ('created', 'retry', 'active')`.execute(database);
    return Number(rows[0]?.n ?? 0);
  } catch (error) {
    // No such table: the queue was never used on this database.
    if ((error as { code?: string } | null)?.code === "42P01" || (error as { code?: string } | null)?.code === "3F000") return 0;
    throw error;
  }
}
