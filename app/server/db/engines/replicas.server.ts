import { AsyncLocalStorage } from "node:async_hooks";

import pg from "pg";

// Read replicas of the PostgreSQL primary (DATABASE_REPLICA_URLS; docs/scaling.md, "Read
// replicas"). The driver (postgres.server.ts) sends a read here when it is not inside a
// transaction and the request being served allows it (`readsMayUseReplicas`: signed-in GET pages
// and API reads); everything else — writes, reads inside a write, the change feed, what visitors
// are shown — stays on the primary.
//
// Read your own writes by replay position, not by a guess of time: every 250 ms this process asks
// the primary where its write-ahead log ends and each replica how far it has replayed. A replica
// that has replayed past the position the primary had at time t holds every commit made before t.
// A person who wrote at time w (their `recipals_wrote` cookie) reads from a replica only once it
// has caught up to a position taken after w (plus a second for clocks between servers); until
// then, from the primary. Who is signed in is always read from the primary (`onPrimary`). A replica far behind
// (more than MAX_BEHIND_MS) serves nobody; one that fails is skipped for a few seconds and its
// query answered by the primary, so a replica stopping fails no request.

const SAMPLE_MS = 250;
const MAX_BEHIND_MS = 30_000;
const RETRY_DOWN_MS = 5_000;

// App servers' clocks differ a little: a write's time (from the server that took it) is compared
// with sample times of the server reading, so a replica must be this much further along.
const CLOCK_MARGIN_MS = 1_000;

interface ReadRoute {
  /** When the person last wrote (ms since the epoch); 0 when not lately. */
  wroteAt: number;
  /** The replica this request reads from, once chosen: one page never mixes two replay positions. */
  replica?: Replica;
}

const route = new AsyncLocalStorage<ReadRoute>();

/** Runs `work` (a request) with its reads allowed on replicas caught up with `wroteAt`. */
export function readsMayUseReplicas<T>(wroteAt: number, work: () => T): T {
  return route.run({ wroteAt }, work);
}

/** Runs `work` with its reads on the primary whatever the request allows (who is signed in). */
export function onPrimary<T>(work: () => T): T {
  return route.exit(work);
}

/** The part of a URL a log line may show (no password). */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an unreadable URL)";
  }
}

/** "16/B374D848" → a number that orders positions. */
function position(lsn: string | null | undefined): bigint | null {
  if (!lsn) return null;
  const [high, low] = lsn.split("/");
  if (high === undefined || low === undefined) return null;
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

class Replica {
  /** Every commit the primary had made before this time is replayed here. */
  caughtUpTo = 0;
  downUntil = 0;
  down = false;
  constructor(
    readonly url: string,
    readonly pool: pg.Pool,
  ) {}
}

export interface ReplicaOptions {
  urls: readonly string[];
  poolSize: number;
  primary: pg.Pool;
  types: pg.CustomTypesConfig;
  log: (line: string) => void;
}

export class Replicas {
  readonly #replicas: Replica[];
  readonly #primary: pg.Pool;
  readonly #log: (line: string) => void;
  /** The primary's log end, sampled every SAMPLE_MS (the last MAX_BEHIND_MS of them). */
  readonly #samples: { at: number; lsn: bigint }[] = [];
  #next = 0;
  #timer: NodeJS.Timeout;
  #sampling = false;

  constructor({ urls, poolSize, primary, types, log }: ReplicaOptions) {
    this.#primary = primary;
    this.#log = log;
    this.#replicas = urls.map((url) => {
      // A replica that hangs must not hang the page: its read goes to the primary after 10 s.
      const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 2000, idleTimeoutMillis: 30_000, query_timeout: 10_000, types });
      pool.on("error", () => undefined);
      pool.on("connect", (client) => client.on("error", () => undefined));
      return new Replica(url, pool);
    });
    void this.sample();
    this.#timer = setInterval(() => void this.sample(), SAMPLE_MS);
    this.#timer.unref();
  }

  /** Where the primary's log ends now, and how far each replica has replayed. */
  async sample(): Promise<void> {
    if (this.#sampling) return;
    this.#sampling = true;
    try {
      const at = Date.now();
      const primary = await this.#primary.query<{ lsn: string }>("select pg_current_wal_insert_lsn()::text as lsn").catch(() => null);
      const lsn = position(primary?.rows[0]?.lsn);
      if (lsn !== null) {
        this.#samples.push({ at, lsn });
        while (this.#samples.length > 0 && this.#samples[0]!.at < at - MAX_BEHIND_MS) this.#samples.shift();
      }
      await Promise.all(this.#replicas.map((replica) => this.#sampleReplica(replica)));
    } finally {
      this.#sampling = false;
    }
  }

  async #sampleReplica(replica: Replica): Promise<void> {
    try {
      const { rows } = await replica.pool.query<{ lsn: string | null }>("select pg_last_wal_replay_lsn()::text as lsn");
      const replayed = position(rows[0]?.lsn);
      // Not in recovery (a primary given as a replica): it has everything.
      if (replayed === null) replica.caughtUpTo = Date.now();
      else for (const sample of this.#samples) if (sample.lsn <= replayed && sample.at > replica.caughtUpTo) replica.caughtUpTo = sample.at;
      if (replica.down) this.#log(`PostgreSQL replica ${shownUrl(replica.url)} answers again; reading from it.`);
      replica.down = false;
      replica.downUntil = 0;
    } catch (error) {
      this.#lost(replica, error);
    }
  }

  #lost(replica: Replica, error: unknown): void {
    if (!replica.down) {
      const why = error instanceof Error ? error.message : String(error);
      this.#log(`PostgreSQL replica ${shownUrl(replica.url)} cannot be reached (${why}); reading from the primary until it answers.`);
    }
    replica.down = true;
    replica.downUntil = Date.now() + RETRY_DOWN_MS;
  }

  #fit(replica: Replica, wanted: ReadRoute, now: number): boolean {
    if (replica.down && now < replica.downUntil) return false;
    return replica.caughtUpTo >= wanted.wroteAt + CLOCK_MARGIN_MS && now - replica.caughtUpTo <= MAX_BEHIND_MS;
  }

  /** The replica of the current request (chosen once, round robin among the fit); null for the primary. */
  #pick(): Replica | null {
    const wanted = route.getStore();
    if (!wanted) return null;
    const now = Date.now();
    if (wanted.replica && this.#fit(wanted.replica, wanted, now)) return wanted.replica;
    for (let tried = 0; tried < this.#replicas.length; tried++) {
      const replica = this.#replicas[(this.#next + tried) % this.#replicas.length]!;
      if (!this.#fit(replica, wanted, now)) continue;
      this.#next = (this.#next + tried + 1) % this.#replicas.length;
      wanted.replica = replica;
      return replica;
    }
    return null;
  }

  /** Answers a read from a replica when the request allows it and one is fit; null: ask the primary. */
  async read<R>(sql: string, parameters: readonly unknown[]): Promise<{ rows: R[] } | null> {
    const replica = this.#pick();
    if (!replica) return null;
    try {
      const result = await replica.pool.query(sql, [...parameters]);
      return { rows: (result.rows ?? []) as R[] };
    } catch (error) {
      // The primary answers instead: a fault of the statement fails there too and is reported from
      // there; a replica that is gone, cancels the query for its replay (40001), times out or has
      // not replayed the latest migration yet (a missing table or column) is skipped for a while.
      const code = (error as { code?: unknown }).code;
      const statementFault = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57P0|53|40001|42P01|42703|42883)/.test(code);
      if (!statementFault) this.#lost(replica, error);
      return null;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all(this.#replicas.map((replica) => replica.pool.end().catch(() => undefined)));
  }
}
