import { PassThrough } from "node:stream";

import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";

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
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />,
      {
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
