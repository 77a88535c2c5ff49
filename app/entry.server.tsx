import crypto from "node:crypto";
import { PassThrough } from "node:stream";

import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";

import { NonceContext } from "./lib/nonce";
import { db } from "./server/db.server";
import { env } from "./server/env.server";
import { seedDatabase, type SeedReport } from "../seed/index";

const ABORT_DELAY = 5_000;

/**
 * Called by scripts/start.js (through the server build) before the server starts, and by
 * `npm run seed`: migrations already ran when db.server loaded; this seeds when needed.
 */
export async function prepareDatabase(): Promise<SeedReport> {
  return seedDatabase(db, {
    seedFile: env.RECIPALS_SEED_FILE,
    mealDbBaseUrl: env.MEALDB_BASE_URL,
    adminPassword: env.SEED_ADMIN_PASSWORD,
  });
}

/** Called by scripts/server.js on SIGTERM, after the last request has finished. */
export async function closeDatabase(): Promise<void> {
  await db.destroy();
}

/**
 * Only our own scripts run: Remix's inline scripts carry this request's nonce. Images may
 * come from other https hosts (the sample recipes' photos); nothing else may.
 */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self'",
    "img-src 'self' data: blob: https:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  // Remix's handler signature; unused here.
  _loadContext: AppLoadContext,
) {
  // Bots and no-JS crawlers get the whole document at once; browsers get it streamed.
  const waitForAll = isbot(request.headers.get("user-agent") ?? "");
  const nonce = crypto.randomBytes(16).toString("base64");
  responseHeaders.set("Content-Security-Policy", contentSecurityPolicy(nonce));
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        [waitForAll ? "onAllReady" : "onShellReady"]() {
          shellRendered = true;
          const body = new PassThrough();
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          );
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) console.error(error);
        },
      },
    );
    setTimeout(abort, ABORT_DELAY);
  });
}

/**
 * `npm run seed -- --scale N` (scripts/prepare.js): adds the synthetic scale data of seed/scale.ts
 * (N users, ~5N recipes with posts, follows, likes, comments) to DATABASE_PATH.
 */
export async function scaleSeed(users: number) {
  const { scaleSeed: seedAtScale } = await import("../seed/scale");
  return seedAtScale(env.DATABASE_PATH, { users });
}
