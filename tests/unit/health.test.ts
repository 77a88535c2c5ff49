import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { closeDatabaseHandle, openDatabase } from "~/server/db/connection.server";
import { readinessProblems } from "~/server/readiness.server";
import { healthRoutes } from "~/server/runtime/health.server";

import { useSetting } from "../support/settings";

// /healthz and /readyz (docs/operator-guide.md, "Health and readiness") over real HTTP, on this
// file's real database and uploads folder; a database that is not there; a folder that cannot be written.

let base = "";
let close = () => {};
beforeAll(async () => {
  const app = express();
  app.use(healthRoutes());
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

describe("health", () => {
  it("/healthz answers ok; /readyz answers ready while the database, its migrations and the store are fine", async () => {
    const healthy = await fetch(`${base}/healthz`);
    expect([healthy.status, await healthy.text(), healthy.headers.get("cache-control")]).toEqual([200, "ok", "no-store"]);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
  });

  it("/readyz is 503 with what is wrong when the uploads folder cannot be written", async () => {
    const blocker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "recipals-ready-")), "a-file");
    fs.writeFileSync(blocker, "not a folder");
    const undo = useSetting("UPLOADS_DIR", path.join(blocker, "uploads"));
    try {
      const answer = await fetch(`${base}/readyz`);
      expect(answer.status).toBe(503);
      const body = (await answer.json()) as { status: string; problems: { check: string; message: string }[] };
      expect(body.status).toBe("not ready");
      expect(body.problems.map((problem) => problem.check)).toEqual(["image-store"]);
      expect(body.problems[0]!.message).toMatch(/cannot be written/);
    } finally {
      undo();
    }
  });

  it("a PostgreSQL server that is not there: a database problem, said within 2 s", async () => {
    const away = openDatabase({ engine: "postgres", url: "postgres://nobody:nothing@127.0.0.1:9/none", poolSize: 1, replicaUrls: [] });
    const started = performance.now();
    const problems = await readinessProblems(away);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(problems.map((problem) => problem.check)).toEqual(["database"]);
    await closeDatabaseHandle(away);
  });
});
