import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";

import { guardedLookup, REFUSED_CODE } from "./addresses.server";
import { ImportError, IMPORT_MESSAGES } from "./errors.server";

// Fetching a page (or its photo) for an import, under the rules set out in import.server.ts.

/** What a fetch may do: the addresses it may connect to, its deadline, how many redirects it follows. */
export interface Rules {
  allows: (address: string) => boolean;
  timeoutMs: number;
  maxRedirects: number;
}

export interface Fetched {
  url: URL;
  body: Buffer;
  contentType: string;
}

/** GET under `rules`: manual redirects, address checks per hop, one deadline, a byte cap. */
export async function guardedGet(start: URL, rules: Rules, { maxBytes, accept }: { maxBytes: number; accept: string }): Promise<Fetched> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), rules.timeoutMs);
  try {
    let url = start;
    for (let hop = 0; ; hop += 1) {
      const response = await requestOnce(url, rules, controller.signal, accept);
      const status = response.statusCode ?? 0;
      if ([301, 302, 303, 307, 308].includes(status)) {
        response.destroy();
        const location = response.headers.location;
        if (!location) throw new ImportError("http-status", IMPORT_MESSAGES.httpStatus(status));
        if (hop >= rules.maxRedirects) throw new ImportError("too-many-redirects", IMPORT_MESSAGES.tooManyRedirects);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new ImportError("unreachable", IMPORT_MESSAGES.unreachable);
        }
        if (next.protocol !== "http:" && next.protocol !== "https:") throw new ImportError("refused", IMPORT_MESSAGES.redirectNotHttp);
        url = next;
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        throw new ImportError("http-status", IMPORT_MESSAGES.httpStatus(status));
      }
      const body = await readCapped(response, maxBytes, controller.signal, rules.timeoutMs);
      return { url, body, contentType: String(response.headers["content-type"] ?? "") };
    }
  } catch (error) {
    if (error instanceof ImportError) throw error;
    if ((error as NodeJS.ErrnoException | null)?.code === REFUSED_CODE) throw new ImportError("refused", IMPORT_MESSAGES.refused);
    if (controller.signal.aborted) throw new ImportError("timeout", IMPORT_MESSAGES.timeout(rules.timeoutMs));
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") throw new ImportError("unreachable", IMPORT_MESSAGES.unknownHost);
    throw new ImportError("unreachable", IMPORT_MESSAGES.unreachable);
  } finally {
    clearTimeout(timer);
  }
}

function requestOnce(url: URL, rules: Rules, signal: AbortSignal, accept: string): Promise<http.IncomingMessage> {
  // A literal address in the link never reaches the DNS lookup: check it here.
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host) && !rules.allows(host)) return Promise.reject(new ImportError("refused", IMPORT_MESSAGES.refused));
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "GET",
        headers: {
          Accept: accept,
          "Accept-Encoding": "gzip, deflate, br",
          "User-Agent": "ReciPals-Importer/1.0 (recipe import by link)",
        },
        // A fresh connection per hop: a pooled socket would skip the lookup (and its check).
        agent: false,
        lookup: guardedLookup(rules.allows),
        signal,
      },
      resolve,
    );
    request.on("error", reject);
    request.end();
  });
}

function readCapped(response: http.IncomingMessage, maxBytes: number, signal: AbortSignal, timeoutMs: number): Promise<Buffer> {
  const tooLarge = () => new ImportError("too-large", IMPORT_MESSAGES.tooLarge(maxBytes));
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return Promise.reject(tooLarge());
  }
  const encoding = String(response.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  let stream: Readable = response;
  if (encoding === "gzip" || encoding === "x-gzip") stream = response.pipe(zlib.createGunzip());
  else if (encoding === "deflate") stream = response.pipe(zlib.createInflate());
  else if (encoding === "br") stream = response.pipe(zlib.createBrotliDecompress());
  else if (encoding !== "identity" && encoding !== "") {
    response.destroy();
    return Promise.reject(new ImportError("unreachable", IMPORT_MESSAGES.unreachable));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      if (error) {
        response.destroy();
        if (stream !== response) stream.destroy();
        reject(error);
      } else {
        resolve(Buffer.concat(chunks, size));
      }
    };
    const onAbort = () => finish(new ImportError("timeout", IMPORT_MESSAGES.timeout(timeoutMs)));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    stream.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) return finish(tooLarge());
      chunks.push(chunk);
    });
    stream.on("end", () => finish(null));
    const broken = () => finish(new ImportError("unreachable", IMPORT_MESSAGES.unreachable));
    stream.on("error", broken);
    response.on("error", broken);
    response.on("close", () => {
      if (!response.complete) broken();
    });
  });
}

export function decodeBody({ body, contentType }: Fetched): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
