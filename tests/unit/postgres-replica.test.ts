import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { db } from "~/server/db/connection.server";

import { makeUser } from "../support/app";
import { makeRecipeWithPost } from "../support/factories";
import { TEST_POSTGRES } from "../support/postgres";
import { replicaUnavailableReason, startReplica, type Replica } from "../support/replica";
import { freePort, postForm, request, startServer, stopAllServers, type RunningServer } from "../support/server/server";

// Read replicas (docs/scaling.md, "Read replicas") with a real streaming replica of the test
// PostgreSQL server, made here by pg_basebackup, and the real production server in front of both:
// signed-in pages are read from the replica, a person's own write shows on their very next page
// while the replica lags, and the replica stopping mid-load fails no request.

const reason = TEST_POSTGRES ? replicaUnavailableReason() : "no PostgreSQL";
if (TEST_POSTGRES && reason) console.warn(`[postgres-replica] skipped: ${reason}`);

/** The cookies a response sets, over the ones sent (name=value pairs). */
function jar(previous: string, setCookies: string[]): string {
  const cookies = new Map(previous.split(/;\s*/).filter(Boolean).map((pair) => [pair.split("=")[0]!, pair] as const));
  for (const line of setCookies) {
    const pair = line.split(";")[0]!;
    cookies.set(pair.split("=")[0]!, pair);
  }
  return [...cookies.values()].join("; ");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!TEST_POSTGRES || reason)("read replicas: a real streaming replica behind the production server", () => {
  let replica: Replica;
  let server: RunningServer;
  let recipeId: string;
  let postId: string;
  const people: Record<"liker" | "reader" | "leaver", { id: string; username: string; password: string; cookie: string }> = {
    liker: { id: "", username: "", password: "", cookie: "" },
    reader: { id: "", username: "", password: "", cookie: "" },
    leaver: { id: "", username: "", password: "", cookie: "" },
  };

  beforeAll(async () => {
    const primary = new URL(TEST_POSTGRES);
    replica = await startReplica(Number(primary.port || 5432), await freePort());
    const owner = await makeUser();
    const made = await makeRecipeWithPost({ userId: owner.id, name: "Replica Stew" });
    recipeId = made.recipeId;
    postId = made.postId!;
    for (const role of ["liker", "reader", "leaver"] as const) {
      const user = await makeUser();
      people[role] = { id: user.id, username: user.username, password: user.password, cookie: "" };
    }
    server = await startServer({
      databasePath: ":unused:",
      env: { DATABASE_URL: process.env.DATABASE_URL!, DATABASE_REPLICA_URLS: replica.urlFor(process.env.DATABASE_URL!) },
    });
    for (const person of Object.values(people)) {
      const res = await postForm(server, "/ReciPals/Account/Login", { username: person.username, password: person.password, redirectTo: "/ReciPals/Home" });
      expect(res.status).toBe(302);
      person.cookie = jar("", res.setCookies);
      expect(person.cookie).toContain("recipals_wrote=");
    }
    // The replica replays the sign-ins (and the samples of its position catch up).
    await sleep(1500);
  }, 240_000);

  // Stopping the servers (up to 5 s) and the replica's PostgreSQL (a fast shutdown, then its files)
  // took more than the default 10 s once on a busy 2-core CI machine.
  afterAll(async () => {
    await stopAllServers();
    replica?.remove();
  }, 60_000);

  const page = (path: string, cookie?: string) => request(server, "GET", path, { headers: cookie ? { Cookie: cookie } : {} });

  it("serves signed-in pages from the replica, and visitors' pages from the primary", async () => {
    const before = replica.statements().length;
    const home = await page("/ReciPals/Home", people.reader.cookie);
    expect(home.status).toBe(200);
    expect(home.body).toContain("Replica Stew");
    const afterSignedIn = replica.statements().length;
    expect(afterSignedIn - before).toBeGreaterThanOrEqual(3);

    const visitor = await page(`/ReciPals/Recipes/${recipeId}`);
    expect(visitor.status).toBe(200);
    expect(replica.statements().length).toBe(afterSignedIn);
  });

  it("a like shows on its author's very next page while the replica lags; others read the replica", async () => {
    await replica.pauseReplay();
    try {
      await sleep(600);
      const liked = await postForm(server, `/ReciPals/Posts/${postId}/Like`, { intent: "like", redirectTo: "/ReciPals/Home" }, people.liker.cookie);
      expect(liked.status).toBe(302);
      people.liker.cookie = jar(people.liker.cookie, liked.setCookies);

      const before = replica.statements().length;
      const own = await page("/ReciPals/Home", people.liker.cookie);
      expect(own.status).toBe(200);
      expect(own.body).toContain('aria-pressed="true"');
      // From the primary: the paused replica has not got the like.
      expect(replica.statements().length).toBe(before);

      const other = await page("/ReciPals/Home", people.reader.cookie);
      expect(other.status).toBe(200);
      expect(other.body).toContain("Replica Stew");
      expect(replica.statements().length).toBeGreaterThan(before);

      // Who is signed in is read from the primary: sessions ended elsewhere (a sign-out everywhere,
      // a suspension) hold at once, though the replica still has them.
      expect((await page("/ReciPals/Notifications", people.leaver.cookie)).status).toBe(200);
      await db.deleteFrom("sessions").where("user_id", "=", people.leaver.id).execute();
      const ended = await page("/ReciPals/Notifications", people.leaver.cookie);
      expect(ended.status).toBe(302);
      expect(ended.headers.location).toContain("/ReciPals/Account/Login");
    } finally {
      await replica.resumeReplay();
    }
  });

  it("a block hides at once for the person blocked, though their pages read a replica that has not got it", async () => {
    await replica.pauseReplay();
    try {
      await sleep(600);
      // The recipe's owner blocks the reader, on the primary only while the replica is paused.
      const owner = (await db.selectFrom("recipes").select("user_created").where("id", "=", recipeId).executeTakeFirstOrThrow()).user_created!;
      await db.insertInto("blocks").values({ blocker_id: owner, blocked_id: people.reader.id, created_at: new Date().toISOString() }).execute();
      const before = replica.statements().length;
      const home = await page("/ReciPals/Home", people.reader.cookie);
      expect(home.status).toBe(200);
      // The feed came from the replica, and the lens from the primary: the owner's post is gone.
      expect(replica.statements().length).toBeGreaterThan(before);
      expect(home.body).not.toContain("Replica Stew");
      expect((await page(`/ReciPals/Recipes/${recipeId}`, people.reader.cookie)).status).toBe(404);
    } finally {
      await replica.resumeReplay();
      await db.deleteFrom("blocks").where("blocked_id", "=", people.reader.id).execute();
      await sleep(600);
    }
  });

  it("the replica stopped mid-load: no request fails, the primary answers", async () => {
    const statuses: number[] = [];
    for (let wave = 0; wave < 6; wave++) {
      if (wave === 2) replica.stop();
      const answers = await Promise.all(Array.from({ length: 10 }, () => page("/ReciPals/Home", people.reader.cookie)));
      for (const answer of answers) {
        statuses.push(answer.status);
        expect(answer.body).toContain("Replica Stew");
      }
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(server.output()).toMatch(/PostgreSQL replica .* cannot be reached/);
  });

  it("a replica that cannot be reached at start: one warning line, everything from the primary", async () => {
    const unreachable = new URL(process.env.DATABASE_URL!);
    unreachable.host = `127.0.0.1:${await freePort()}`;
    const other = await startServer({
      databasePath: ":unused:",
      env: { DATABASE_URL: process.env.DATABASE_URL!, DATABASE_REPLICA_URLS: unreachable.toString() },
    });
    const login = await postForm(other, "/ReciPals/Account/Login", { username: people.reader.username, password: people.reader.password, redirectTo: "/ReciPals/Home" });
    const cookie = jar("", login.setCookies);
    for (let i = 0; i < 5; i++) {
      const home = await request(other, "GET", "/ReciPals/Home", { headers: { Cookie: cookie } });
      expect(home.status).toBe(200);
      await sleep(300);
    }
    const warnings = other.output().split("\n").filter((line) => /PostgreSQL replica .* cannot be reached/.test(line));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain(`:${new URL(process.env.DATABASE_URL!).password}@`);
  });
});
