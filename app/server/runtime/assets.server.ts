import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

import type { RequestHandler } from "express";

// The build's scripts and stylesheets, compressed once at their best when the server starts
// (brotli quality 11; gzip from the build's Zopfli copy `<file>.gz` when it holds this very file,
// else zlib at level 9), kept in memory and sent whole with a Content-Length: fewer bytes for
// every page's scripts on a slow phone, no zlib work per request. The compiler names them by
// content, so they never change in place.

const TYPES: Record<string, string> = { ".js": "application/javascript; charset=UTF-8", ".css": "text/css; charset=UTF-8" };
const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

export type AssetEncoding = "br" | "gzip";

interface CompressedAsset {
  type: string;
  etag: string;
  br: Buffer;
  gzip: Buffer;
}

function* filesUnder(dir: string, prefix = ""): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const relative = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) yield* filesUnder(path.join(dir, entry.name), relative);
    else yield relative;
  }
}

/** The build's gzip copy of `file` (scripts/build.js writes it with Zopfli), if it unpacks to `identity`. */
function buildGzip(file: string, identity: Buffer): Buffer | null {
  try {
    const gzip = fs.readFileSync(`${file}.gz`);
    return zlib.gunzipSync(gzip).equals(identity) ? gzip : null;
  } catch {
    return null;
  }
}

/** Every .js and .css file under `dir`, by its URL path below the assets' public path ("/_shared/chunk-X.js"). */
export function compressAssets(dir: string): Map<string, CompressedAsset> {
  const assets = new Map<string, CompressedAsset>();
  if (!fs.existsSync(dir)) return assets;
  for (const relative of filesUnder(dir)) {
    const type = TYPES[path.extname(relative)];
    if (!type) continue;
    const identity = fs.readFileSync(path.join(dir, relative));
    assets.set(relative, {
      type,
      etag: `"${crypto.createHash("sha1").update(identity).digest("base64url")}"`,
      br: zlib.brotliCompressSync(identity, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
        },
      }),
      gzip: buildGzip(path.join(dir, relative), identity) ?? zlib.gzipSync(identity, { level: 9 }),
    });
  }
  return assets;
}

/** The encoding to send: brotli or gzip when the request accepts it (q=0 refuses), else null. */
export function chosenEncoding(acceptEncoding: string | string[] | undefined): AssetEncoding | null {
  const accepted = new Set<string>();
  for (const part of String(acceptEncoding ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const refused = params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(param));
    if (name && !refused) accepted.add(name.trim());
  }
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip")) return "gzip";
  return null;
}

/**
 * Serves the compressed copies; anything else (other files, a request that accepts neither
 * encoding) goes on to `next` (express.static serves it as it is).
 */
export function precompressedAssets(dir: string): RequestHandler {
  const assets = compressAssets(dir);
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const asset = assets.get(req.path);
    const encoding = asset ? chosenEncoding(req.headers["accept-encoding"]) : null;
    if (!asset || !encoding) return next();
    res.setHeader("Content-Type", asset.type);
    res.setHeader("Cache-Control", `public, max-age=${ONE_YEAR_SECONDS}, immutable`);
    res.setHeader("Vary", "Accept-Encoding");
    res.setHeader("ETag", asset.etag);
    if (req.headers["if-none-match"] === asset.etag) {
      res.statusCode = 304;
      return void res.end();
    }
    const body = asset[encoding];
    res.setHeader("Content-Encoding", encoding);
    res.setHeader("Content-Length", String(body.length));
    res.statusCode = 200;
    res.end(req.method === "HEAD" ? undefined : body);
  };
}
