import type { Request, Response, Router } from "express";
import express from "express";

import { readinessProblems } from "../facade.server";

// Health for load balancers and orchestrators (docs/operator-guide.md, "Health and readiness"):
// `/healthz` says the process serves; `/readyz` says it can do its work (app/server/readiness.server.ts).
// No session, no page cache, no log line per request.

/** GET /healthz and GET /readyz, mounted before everything that reads sessions, caches or logs. */
export function healthRoutes(): Router {
  const router = express.Router();
  router.get("/healthz", (_req: Request, res: Response) => {
    res.set("Cache-Control", "no-store").type("text/plain").send("ok");
  });
  router.get("/readyz", (_req: Request, res: Response) => {
    readinessProblems().then(
      (problems) => {
        res.set("Cache-Control", "no-store");
        if (problems.length === 0) res.json({ status: "ready" });
        else res.status(503).json({ status: "not ready", problems });
      },
      () => res.status(503).json({ status: "not ready", problems: [] }),
    );
  });
  return router;
}
