import type { LoaderFunctionArgs } from "@remix-run/node";

import { readStoredFile } from "~/server/storage.server";

// Stored images at /uploads/<sha256>.webp (and .card.webp). The name is the hash of the
// content, so the answer never changes: browsers and proxies may keep it for a year.
export async function loader({ params }: LoaderFunctionArgs) {
  const bytes = await readStoredFile(params.file ?? "");
  if (!bytes) {
    return new Response("Image not found.", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  return new Response(new Uint8Array(bytes), {
    status: 200,
    headers: {
      "Content-Type": "image/webp",
      "Content-Length": String(bytes.byteLength),
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'",
    },
  });
}
