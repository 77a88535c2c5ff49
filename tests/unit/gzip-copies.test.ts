import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";

import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { precompressedAssets } from "../../app/server/runtime/assets.server";
import { writeGzipCopies } from "../../scripts/build.js";

// The build writes a Zopfli gzip copy beside each script (scripts/build.js): smaller than zlib's
// best, sent as it is to browsers that take gzip only, and never sent for a file it does not hold
// (docs/decisions/0009-terser-and-zopfli.md).

const script = fs.readFileSync(path.resolve(__dirname, "../../node_modules/react/cjs/react.production.min.js"), "utf8");
let dir = "";

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-gzip-copies-"));
  fs.mkdirSync(path.join(dir, "_shared"));
  fs.writeFileSync(path.join(dir, "_shared", "chunk-ABC.js"), script);
  fs.writeFileSync(path.join(dir, "photo.png"), "left alone");
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function gzipServed(pathname: string) {
  const app = express();
  app.use(precompressedAssets(dir));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const { port } = server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}${pathname}`, { headers: { "Accept-Encoding": "gzip" } });
    expect(response.headers.get("content-encoding")).toBe("gzip");
    return Number(response.headers.get("content-length"));
  } finally {
    server.close();
  }
}

describe("the build's gzip copies", () => {
  it("writes one per script, the same bytes once unpacked and smaller than zlib's best", async () => {
    const handlers = () => [process.listeners("uncaughtException").length, process.listeners("unhandledRejection").length];
    const before = handlers();
    expect(await writeGzipCopies(dir)).toBe(1);
    // Zopfli's own process-wide handlers are taken off again (scripts/build.js, loadZopfli).
    expect(handlers()).toEqual(before);
    const copy = fs.readFileSync(path.join(dir, "_shared", "chunk-ABC.js.gz"));
    expect(zlib.gunzipSync(copy).toString()).toBe(script);
    expect(copy.length).toBeLessThan(zlib.gzipSync(script, { level: 9 }).length);
    expect(fs.existsSync(path.join(dir, "photo.png.gz"))).toBe(false);
    // The server sends that copy, whole.
    expect(await gzipServed("/_shared/chunk-ABC.js")).toBe(copy.length);
  });

  it("sends zlib's gzip of the file when the copy holds something else", async () => {
    fs.writeFileSync(path.join(dir, "_shared", "chunk-ABC.js.gz"), zlib.gzipSync("an older build's script"));
    expect(await gzipServed("/_shared/chunk-ABC.js")).toBe(zlib.gzipSync(script, { level: 9 }).length);
  });
});
