import type { KvKey, KvStore, KvStoreSetOptions, MessageQueue, MessageQueueEnqueueOptions, MessageQueueListenOptions } from "@fedify/fedify";

import type { DB } from "../db/connection.server";
import { log } from "../observability/log.server";
import { hostIsBlocked } from "./domain-blocks.server";

// What the ActivityPub library keeps, in our own database (docs/federation.md): its key–value
// store (remote documents and keys it fetched, activities it has seen) and its message queue
// (deliveries to other servers and the inbox's work). In the database, deliveries survive a
// restart, and every app server of a cluster shares them.

export const durationMs = (duration: { total(unit: "millisecond"): number } | undefined) => (duration ? Math.max(0, Math.round(duration.total("millisecond"))) : 0);

/** The library's key–value store over the `federation_kv` table. */
export class DatabaseKvStore implements KvStore {
  constructor(private readonly database: DB) {}

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const row = await this.database.selectFrom("federation_kv").select(["value", "expires_at"]).where("key", "=", JSON.stringify(key)).executeTakeFirst();
    if (!row) return undefined;
    if (row.expires_at !== null && row.expires_at <= Date.now()) {
      await this.delete(key);
      return undefined;
    }
    return JSON.parse(row.value) as T;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    const ttl = durationMs(options?.ttl);
    const row = { key: JSON.stringify(key), value: JSON.stringify(value), expires_at: ttl > 0 ? Date.now() + ttl : null };
    await this.database
      .insertInto("federation_kv")
      .values(row)
      .onConflict((conflict) => conflict.column("key").doUpdateSet({ value: row.value, expires_at: row.expires_at }))
      .execute();
  }

  async delete(key: KvKey): Promise<void> {
    await this.database.deleteFrom("federation_kv").where("key", "=", JSON.stringify(key)).execute();
  }
}

/** Removes what the library's store keeps past its time (entries are otherwise only dropped when read). */
export async function sweepExpiredEntries(database: DB): Promise<void> {
  await database.deleteFrom("federation_kv").where("expires_at", "<=", Date.now()).execute();
}

/** How long a taken message is a worker's before another may take it (a worker that stopped mid-delivery). */
export const LEASE_MS = 5 * 60 * 1000;
/** The longest one message's handling may take: well inside its lease, so no two workers handle it. */
const HANDLING_MS = 2 * 60 * 1000;

/** The store's key of an inbox that answered 410 Gone. */
const goneKey = (inbox: string): KvKey => ["recipals", "gone-inbox", inbox];
/** How long an inbox that answered 410 Gone gets nothing more. */
const GONE_FOR_MS = 30 * 24 * 60 * 60 * 1000;

/** An inbox answered 410 Gone (its account was deleted): nothing more is delivered there for a month. */
export async function markInboxGone(inbox: string, database: DB): Promise<void> {
  const { Temporal } = await import("@js-temporal/polyfill");
  await new DatabaseKvStore(database).set(goneKey(inbox), Date.now(), { ttl: Temporal.Duration.from({ milliseconds: GONE_FOR_MS }) });
}

/**
 * Whether `message` is a delivery that is to go nowhere when its turn comes: to an inbox on a
 * server blocked since it was queued, or to an inbox that answered 410 Gone.
 */
export async function undeliverable(message: unknown, database: DB): Promise<boolean> {
  const inbox = (message as { type?: unknown; inbox?: unknown } | null)?.inbox;
  if ((message as { type?: unknown } | null)?.type !== "outbox" || typeof inbox !== "string") return false;
  try {
    if (await hostIsBlocked(new URL(inbox).host, database)) return true;
    return (await new DatabaseKvStore(database).get(goneKey(inbox))) !== undefined;
  } catch {
    return false;
  }
}

/** `work`, or a failure once HANDLING_MS have passed (a server that never answers holds no worker for long). */
export function withinLease(work: Promise<void> | void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`handling took over ${HANDLING_MS / 1000} s`)), HANDLING_MS);
    timer.unref();
    Promise.resolve(work).then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
const POLL_MS = 1000;
/** Messages handled at once: a slow or dead server never holds the others' deliveries back. */
export const WORKERS = 4;

/**
 * The library's message queue over the `federation_queue` table: a message waits for its time
 * (a retry's backoff), is taken by one worker of one server at a time (a lease), and is deleted
 * only once handled, so a restart mid-delivery loses nothing.
 */
export class DatabaseMessageQueue implements MessageQueue {
  readonly #wake = new Set<() => void>();

  constructor(private readonly database: DB) {}

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    if (messages.length === 0) return;
    const now = Date.now();
    const runAt = now + durationMs(options?.delay);
    await this.database
      .insertInto("federation_queue")
      .values(messages.map((message) => ({ message: JSON.stringify(message), run_at: runAt, taken_until: null, created_at: now })))
      .execute();
    if (runAt <= now) for (const wake of this.#wake) wake();
  }

  /** Messages waiting (the operator's queue depth). */
  async depth(): Promise<number> {
    const row = await this.database.selectFrom("federation_queue").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Takes the next due message, or nothing. Its lease's end is the taker's token: a worker that
   * outlived its lease (and lost the message to another) changes nothing of it afterwards.
   */
  async #take(): Promise<{ id: number; message: unknown; token: number } | null> {
    for (let tries = 0; tries < 5; tries += 1) {
      const now = Date.now();
      const due = await this.database
        .selectFrom("federation_queue")
        .select(["id", "message"])
        .where("run_at", "<=", now)
        .where((eb) => eb.or([eb("taken_until", "is", null), eb("taken_until", "<", now)]))
        .orderBy("run_at")
        .orderBy("id")
        .limit(1)
        .executeTakeFirst();
      if (!due) return null;
      // Another worker (of this server or another) may have taken it meanwhile: only one update wins.
      const token = now + LEASE_MS;
      const taken = await this.database
        .updateTable("federation_queue")
        .set({ taken_until: token })
        .where("id", "=", due.id)
        .where((eb) => eb.or([eb("taken_until", "is", null), eb("taken_until", "<", now)]))
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { id: Number(due.id), message: JSON.parse(due.message), token };
    }
    return null;
  }

  /** Waits up to POLL_MS, or until a message is enqueued here or `signal` aborts. */
  #pause(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, POLL_MS);
      this.#wake.add(done);
      signal?.addEventListener("abort", done);
    });
  }

  async listen(handler: (message: unknown) => Promise<void> | void, options?: MessageQueueListenOptions): Promise<void> {
    const signal = options?.signal;
    const worker = async () => {
      while (!signal?.aborted) {
        const taken = await this.#take().catch((error: unknown) => {
          log.warn({ err: error }, "federation queue: taking a message failed");
          return null;
        });
        if (!taken) {
          await this.#pause(signal);
          continue;
        }
        try {
          // A delivery to a server blocked since it was queued, or to a gone inbox, goes nowhere.
          if (!(await undeliverable(taken.message, this.database))) await withinLease(handler(taken.message));
          await this.database.deleteFrom("federation_queue").where("id", "=", taken.id).where("taken_until", "=", taken.token).execute();
        } catch (error) {
          // The library retries deliveries itself (new messages with a delay); a message whose
          // handling threw or outlasted its time is tried again a minute later.
          log.warn({ err: error }, "federation queue: handling a message failed");
          await this.database
            .updateTable("federation_queue")
            .set({ taken_until: null, run_at: Date.now() + 60_000 })
            .where("id", "=", taken.id)
            .where("taken_until", "=", taken.token)
            .execute()
            .catch(() => undefined);
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
  }
}
