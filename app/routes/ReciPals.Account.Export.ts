import { Readable } from "node:stream";

import type { LoaderFunctionArgs } from "@remix-run/node";

import { requireUser } from "~/server/auth/session.server";
import { invariantResponse } from "~/server/http/responses.server";
import { siteOrigin } from "~/server/http/site.server";
import { exportAccount } from "~/server/services/account.server";

// "Download my data" (docs/rules.md#own-account): the signed-in person's data as a zip, streamed
// as it is made. Personal: never kept by any cache.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const outcome = await exportAccount({ actor: user, origin: siteOrigin(request) });
  invariantResponse(outcome.ok, outcome.ok ? "" : outcome.message, outcome.ok ? 200 : outcome.status);
  const { stream, filename } = outcome.value;
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
      "Cache-Control": "private, no-store",
    },
  });
}
