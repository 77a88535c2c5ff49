import net from "node:net";
import path from "node:path";

import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import {
  MEMORY_PROBE,
  probeMemory,
  request,
  seededDatabase,
  SEEDED,
  signIn,
  startServer,
  stopAllServers,
  tempDir,
  untilIdle,
  type RunningServer,
} from "../support/server/server";

// Clients that ask for a long answer and then read nothing (a slow phone, or someone holding
// connections open on purpose) must not make the server hold that answer per connection: it
// writes only as fast as each client reads (app/server/runtime/remix-adapter.server.ts: pipeBody waits for 'drain',
// coalesceWrites keeps write()'s answer), and a list is read from the database a few rows at a
// time as it goes out. The list here is far larger than what the kernel buffers for a
// connection, so what the server itself holds shows: its live memory after a full GC while the
// clients wait.

const RECIPES = 20_000;
const READERS = 200;

let server: RunningServer;
let cookie: string;

beforeAll(async () => {
  const dir = tempDir("slow");
  const file = await seededDatabase(path.join(dir, "db"));
  // A list of about 40 MB (long descriptions: cheap to produce per byte, so filling every
  // connection's kernel buffers takes seconds, not minutes).
  const sqlite = new SQLite(file);
  sqlite.exec(`
    insert into recipes (id, user_created, name, description, total_time, serves, photo, created_at, seq)
      with recursive k(i) as (select 1 union all select i + 1 from k where i < ${RECIPES})
      select 'slow-' || i, null, 'Slow recipe ' || i, 'Generated for the slow readers ' || replace(hex(zeroblob(900)), '0', 'x'), '10min', 2, '/images/noodleDish.png', '2026-01-01', 1000000 + i from k;
    insert into steps (recipe_id, position, text) select id, 0, 'Step one of a generated recipe' from recipes where id like 'slow-%';`);
  sqlite.close();
  server = await startServer({ databasePath: file, nodeArgs: MEMORY_PROBE });
  // Signed in: the answer is personal, so it is streamed for each client (never from the page cache).
  cookie = await signIn(server, SEEDED.username, SEEDED.password);
}, 300_000);

afterAll(async () => {
  await stopAllServers();
});

const live = (memory: Awaited<ReturnType<typeof probeMemory>>) => memory.heapMb + memory.externalMb;

describe("clients that read nothing", () => {
  it(`${READERS} of them waiting on a list of ${RECIPES.toLocaleString("en-US")} recipes hold the server to a few buffers each`, async () => {
    const before = await probeMemory(server);
    const sockets: net.Socket[] = [];
    for (let i = 0; i < READERS; i++) {
      const socket = net.connect(server.port, "127.0.0.1", () => {
        socket.write(`GET /api/recipes HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\nCookie: ${cookie}\r\n\r\n`);
      });
      socket.pause();
      socket.on("error", () => undefined);
      sockets.push(socket);
    }
    try {
      // Until the server has nothing left to do: every connection's buffers (ours and the
      // kernel's) are full, or, for a server that ignores backpressure, every list made whole.
      const settledMs = await untilIdle(server.pid);
      const waiting = await probeMemory(server);
      const held = live(waiting) - live(before);
      console.log(
        `slow readers: ${READERS} clients reading nothing of a ${RECIPES.toLocaleString("en-US")}-recipe list: ` +
          `live memory after GC ${live(before).toFixed(0)} → ${live(waiting).toFixed(0)} MB (+${held.toFixed(1)}), RSS ${waiting.rssMb.toFixed(0)} MB, settled in ${settledMs} ms`,
      );
      // Each list is tens of MB; the server holds a few buffers per client.
      expect(held).toBeLessThan(READERS / 4);
      const other = await request(server, "GET", "/ReciPals/Info", { timeoutMs: 10_000 });
      expect(other.status).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  }, 240_000);

  it("a client that reads it all gets the whole list, in order", async () => {
    const whole = await request(server, "GET", "/api/recipes?offset=0", { headers: { Cookie: cookie, "Accept-Encoding": "identity" }, timeoutMs: 60_000 });
    expect(whole.status).toBe(200);
    const list = JSON.parse(whole.body) as { _id: string }[];
    expect(list.filter((recipe) => recipe._id.startsWith("slow-"))).toHaveLength(RECIPES);
    expect(list.at(-1)!._id).toBe(`slow-${RECIPES}`);
  }, 120_000);
});
