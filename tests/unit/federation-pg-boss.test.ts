import { Temporal } from "@js-temporal/polyfill";
import { afterAll, describe, expect, it } from "vitest";

import { db, postgresUrlOf } from "~/server/db/connection.server";
import { blockDomain, unblockDomain } from "~/server/services/federation-service.server";
import { federationQueueDepth } from "~/server/federation/federation.server";
import { PgBossMessageQueue } from "~/server/federation/pg-boss-queue.server";

import { makeUser } from "../support/app";
import { until } from "../support/federation";

// On PostgreSQL the federation's deliveries go through pg-boss (docs/federation.md), a maintained
// job queue in its own schema of the app's database. What a delivery queue must do, on the real
// thing: a message queued while no server works survives until one starts (a restart loses
// nothing), waits out its delay, is handled once by one of several workers of several servers,
// a delivery to a server blocked since is dropped, and the operator's depth counts what waits.
// The embedded SQLite default's queue is tested in federation.test.ts.

const url = postgresUrlOf(db);
const stops: AbortController[] = [];
afterAll(() => stops.forEach((stop) => stop.abort()));

/** A server's worker on the queue, until the test ends (or `stop` aborts). */
function work(queue: PgBossMessageQueue, handler: (message: unknown) => Promise<void> | void, stop = new AbortController()) {
  stops.push(stop);
  void queue.listen(handler, { signal: stop.signal });
  return stop;
}

describe.runIf(url)("federation on PostgreSQL: the pg-boss queue", () => {
  it("keeps a message queued while no server works, and one of two servers delivers it once; the depth counts it meanwhile", async () => {
    const before = await federationQueueDepth();
    await new PgBossMessageQueue(url!, db).enqueue({ deliver: "after a restart", n: 1 });
    expect(await federationQueueDepth()).toBe(before + 1);

    const delivered: unknown[] = [];
    // Two servers start (each its own pg-boss on the same database) and work side by side.
    work(new PgBossMessageQueue(url!, db), (message) => void delivered.push(message));
    work(new PgBossMessageQueue(url!, db), (message) => void delivered.push(message));
    await until(async () => delivered.length >= 1, "a server delivering it", 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(delivered).toEqual([{ deliver: "after a restart", n: 1 }]);
    await until(async () => (await federationQueueDepth()) === before, "the depth falling back", 10_000);
  });

  it("waits out a message's delay (a retry's backoff)", async () => {
    const queue = new PgBossMessageQueue(url!, db);
    const handled: number[] = [];
    work(queue, () => void handled.push(Date.now()));
    const sent = Date.now();
    await queue.enqueue({ later: true }, { delay: Temporal.Duration.from({ seconds: 3 }) });
    await until(async () => handled.length === 1, "the delayed message", 20_000);
    expect(handled[0]! - sent).toBeGreaterThanOrEqual(2900);
  });

  it("drops a delivery to a server blocked since it was queued", async () => {
    const admin = { id: (await makeUser({ role: "ADMIN" })).id, role: "ADMIN" as const };
    const queue = new PgBossMessageQueue(url!, db);
    await queue.enqueue({ type: "outbox", inbox: "https://spam.pgboss.example/inbox", marker: "blocked" });
    await queue.enqueue({ type: "outbox", inbox: "https://fine.pgboss.example/inbox", marker: "fine" });
    expect(await blockDomain({ actor: admin, domain: "spam.pgboss.example" })).toMatchObject({ ok: true });
    try {
      const handled: unknown[] = [];
      work(queue, (message) => void handled.push((message as { marker: string }).marker));
      await until(async () => handled.includes("fine"), "the other delivery", 20_000);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(handled).toEqual(["fine"]);
    } finally {
      await unblockDomain({ actor: admin, domain: "spam.pgboss.example" });
    }
  });
});
