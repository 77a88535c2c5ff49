// The production server: Express + Remix's request handler. It replaces remix-serve because
// the app needs what remix-serve cannot give: the client address in the load context (sign-in
// throttling), a cross-site guard for every non-GET request, security headers on every
// answer, and a graceful stop that closes the database.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { createRequestHandler } from "@remix-run/express";
import { installGlobals } from "@remix-run/node";
import compression from "compression";
import express from "express";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const buildFile = path.join(root, process.env.RECIPALS_BUILD_DIR ?? "build", "index.js");

export async function startServer() {
  const build = await import(pathToFileURL(buildFile).href);
  installGlobals({ nativeFetch: build.future.v3_singleFetch });
  const production = process.env.NODE_ENV === "production";
  const allowedOrigins = new Set(
    (process.env.ALLOWED_ORIGINS ?? "")
      .split(",")
      .map((origin) => origin.trim())
      .filter(Boolean),
  );

  const app = express();
  app.disable("x-powered-by");
  // Behind a proxy, TRUST_PROXY (e.g. "loopback" or 1) lets req.ip be the real client.
  if (process.env.TRUST_PROXY) app.set("trust proxy", process.env.TRUST_PROXY);

  app.use((req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "strict-origin-when-cross-origin");
    res.setHeader("X-Frame-Options", "DENY");
    if (production) res.setHeader("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
    next();
  });

  // Cross-site guard (DESIGN §3): a state-changing request from a page on another origin is
  // refused before any route sees it. Requests without Origin (curl, old clients) pass; the
  // SameSite=Lax session cookie is not sent cross-site anyway.
  app.use((req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return next();
    const origin = req.get("origin");
    if (!origin) return next();
    const own = [`http://${req.get("host")}`, `https://${req.get("host")}`];
    if (own.includes(origin) || allowedOrigins.has(origin)) return next();
    const message = "Cross-site requests are not allowed.";
    res.status(403);
    if (req.path.startsWith("/api/")) {
      if (allowedOrigins.has(origin)) res.setHeader("Access-Control-Allow-Origin", origin);
      res.json({ message });
    } else {
      res.type("text/plain").send(message);
    }
  });

  app.use(compression());
  app.use(build.publicPath, express.static(build.assetsBuildDirectory, { immutable: true, maxAge: "1y" }));
  app.use(express.static(path.join(root, "public"), { maxAge: "1h" }));
  app.all(
    "*",
    createRequestHandler({
      build,
      mode: process.env.NODE_ENV,
      getLoadContext: (req) => ({ clientAddress: req.ip ?? req.socket.remoteAddress ?? null }),
    }),
  );

  const port = Number(process.env.PORT ?? 4000);
  const host = process.env.HOST;
  const server = await new Promise((resolve) => {
    const listening = host ? app.listen(port, host, () => resolve(listening)) : app.listen(port, () => resolve(listening));
  });
  console.log(`ReciPals listening on http://${host && host !== "0.0.0.0" && host !== "::" ? host : "localhost"}:${port}/ReciPals/Home`);

  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the database.
  let stopping = false;
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests…`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close(async () => {
      await build.entry.module.closeDatabase?.();
      process.exit(0);
    });
    server.closeIdleConnections?.();
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await startServer();
