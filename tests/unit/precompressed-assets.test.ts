import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";

import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { chosenEncoding, precompressedAssets } from "../../app/server/runtime/assets.server";

// Build assets are compressed once, at their best, and sent whole (app/server/runtime/assets.server.ts):
// the same bytes as the file once decoded, smaller than the compression middleware's levels, with
// a Content-Length, cached for a year, revalidated by ETag; anything else goes on to the static
// file server.

// A real minified script (React itself), so the sizes compare as they do for our chunks.
const script = fs.readFileSync(path.resolve(__dirname, "../../node_modules/react/cjs/react.production.min.js"), "utf8");
const style = `.card { display: grid; gap: 1rem; padding: 1rem; }\n`.repeat(300);
let dir = "";
let server: http.Server;
let origin = "";

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-assets-"));
  fs.mkdirSync(path.join(dir, "_shared"));
  fs.writeFileSync(path.join(dir, "_shared", "chunk-ABC.js"), script);
  fs.writeFileSync(path.join(dir, "page-XYZ.css"), style);
  fs.writeFileSync(path.join(dir, "photo.png"), "not compressed here");
  const app = express();
  app.use(precompressedAssets(dir));
  // "next": the static file server's turn.
  app.use((_req, res) => {
    res.status(299).end("next");
  });
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A raw GET (fetch would decode the body and hide Content-Encoding's effect on length). */
function get(pathname: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const request = http.request(`${origin}${pathname}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on("error", reject);
    request.end();
  });
}

describe("precompressed build assets", () => {
  it("sends brotli when accepted: the file's bytes, smaller than on-the-fly brotli, whole with a length", async () => {
    const response = await get("/_shared/chunk-ABC.js", { "Accept-Encoding": "gzip, deflate, br" });
    expect(response.status).toBe(200);
    expect(response.headers["content-encoding"]).toBe("br");
    expect(response.headers["content-type"]).toBe("application/javascript; charset=UTF-8");
    expect(response.headers["content-length"]).toBe(String(response.body.length));
    expect(response.headers["transfer-encoding"]).toBeUndefined();
    expect(response.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(response.headers.vary).toBe("Accept-Encoding");
    expect(zlib.brotliDecompressSync(response.body).toString()).toBe(script);
    const everyday = zlib.brotliCompressSync(script, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
    expect(response.body.length).toBeLessThan(everyday.length);
  });

  it("sends gzip at level 9 to a browser that accepts only gzip", async () => {
    const response = await get("/page-XYZ.css", { "Accept-Encoding": "gzip, deflate" });
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(response.headers["content-type"]).toBe("text/css; charset=UTF-8");
    expect(zlib.gunzipSync(response.body).toString()).toBe(style);
    expect(response.body.length).toBeLessThanOrEqual(zlib.gzipSync(style, { level: 6 }).length);
  });

  it("answers a known ETag with 304 and no body, and HEAD with headers only", async () => {
    const first = await get("/_shared/chunk-ABC.js", { "Accept-Encoding": "br" });
    const again = await get("/_shared/chunk-ABC.js", { "Accept-Encoding": "br", "If-None-Match": String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const head = await get("/_shared/chunk-ABC.js", { "Accept-Encoding": "br" }, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe(first.headers["content-length"]);
    expect(head.body.length).toBe(0);
  });

  it("leaves other files, unknown paths, refused encodings and other methods to the static server", async () => {
    expect((await get("/photo.png", { "Accept-Encoding": "br" })).status).toBe(299);
    expect((await get("/_shared/missing.js", { "Accept-Encoding": "br" })).status).toBe(299);
    expect((await get("/_shared/../page-XYZ.css", { "Accept-Encoding": "br" })).status).not.toBe(500);
    expect((await get("/_shared/chunk-ABC.js", { "Accept-Encoding": "identity" })).status).toBe(299);
    expect((await get("/_shared/chunk-ABC.js", {})).status).toBe(299);
    expect((await get("/_shared/chunk-ABC.js", { "Accept-Encoding": "br" }, "POST")).status).toBe(299);
  });

  it("reads Accept-Encoding as browsers write it, q=0 refusing", () => {
    expect(chosenEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(chosenEncoding("gzip;q=1.0, br;q=0")).toBe("gzip");
    expect(chosenEncoding("BR")).toBe("br");
    expect(chosenEncoding("deflate")).toBeNull();
    expect(chosenEncoding(undefined)).toBeNull();
    expect(chosenEncoding("gzip;q=0, br;q=0.0")).toBeNull();
  });
});
