import { unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";

import { UPLOAD_LIMITS, UPLOAD_MESSAGES } from "~/lib/upload-limits";

// Reading a form within limits (docs/rules.md#request-bodies): urlencoded or multipart, counted
// as it streams in, one file's allowance held at most. The photo forms use the lenient reader (a
// file over its limit is left out and reported, so the page keeps what was typed); every other
// page form goes through readForm (body.server.ts), which uses the same reader.
// NUL is never text (docs/rules.md#input-limits): a field's name or text value holding one refuses
// the whole form here, with 400, so no form read by this module reaches a field's own checks or
// the database with one, whichever page reads it.

/**
 * A form refused while it was read; `message` is meant for the user, `status` for the response
 * (400, 413 or 415). `textField` names the text field at fault when the refusal is about what was
 * typed (NUL), not about the body's size or a file: a page shows it as the form's message, not
 * beside the photo.
 */
export class FormReadError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly textField: string | null = null,
  ) {
    super(message);
    this.name = "FormReadError";
  }
}

export interface MultipartOptions {
  /** Bytes per file; a bigger file is refused (default 10 MB). */
  maxFileBytes?: number;
  /** Bytes per text field (default 100 KB). */
  maxFieldBytes?: number;
  /** Parts in one form (default 2,000). */
  maxParts?: number;
  /** Bytes in the whole body (default UPLOAD_LIMITS.formBytes). */
  maxBodyBytes?: number;
}

export interface LenientMultipart {
  formData: FormData;
  /** File fields that were over `maxFileBytes`: left out of `formData`, their bytes discarded. */
  oversizedFiles: string[];
}

/**
 * Reads a form (multipart or urlencoded) within limits, never holding more than one file's
 * allowance in memory. A file over the limit is drained and left out (its field name is reported)
 * so the other fields survive and the page can show what was typed with a message; only a body
 * over `maxBodyBytes`, too many parts or a malformed body throw a FormReadError.
 */
export async function readMultipartFormLenient(request: Request, options: MultipartOptions = {}): Promise<LenientMultipart> {
  const maxFileBytes = options.maxFileBytes ?? UPLOAD_LIMITS.fileBytes;
  const maxFieldBytes = options.maxFieldBytes ?? 100 * 1024;
  const maxParts = options.maxParts ?? 2000;
  const maxBodyBytes = options.maxBodyBytes ?? UPLOAD_LIMITS.formBytes;

  const declared = Number(request.headers.get("Content-Length") ?? "");
  if (Number.isFinite(declared) && declared > maxBodyBytes) throw new FormReadError(bodyTooLargeMessage(maxFileBytes), 413);

  const contentType = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    // Only what a browser's form sends: urlencoded, or nothing at all. Any other type (text/plain,
    // JSON, XML) is refused rather than read as if it were a form.
    const bytes = await smallBody(request, maxBodyBytes, maxFileBytes);
    if (!/^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(contentType) && !(contentType === "" && bytes.byteLength === 0)) {
      throw new FormReadError(UPLOAD_MESSAGES.notAForm, 415);
    }
    const formData = parseUrlEncodedStrictly(bytes);
    if (!formData) throw new FormReadError(UPLOAD_MESSAGES.unreadableForm, 400);
    if ([...formData.keys()].length > maxParts) throw new FormReadError(UPLOAD_MESSAGES.formTooLarge, 413);
    for (const [name, value] of formData) refuseNul(name, typeof value === "string" ? value : "");
    return { formData, oversizedFiles: [] };
  }

  const body = cappedBody(request, maxBodyBytes, maxFileBytes);
  const oversizedFiles: string[] = [];
  let parts = 0;
  const handler: UploadHandler = async ({ name, filename, contentType: partType, data }) => {
    parts += 1;
    if (parts > maxParts) throw new FormReadError(UPLOAD_MESSAGES.formTooLarge, 413);
    refuseNul(name, "");
    const isFile = typeof filename === "string";
    const limit = isFile ? maxFileBytes : maxFieldBytes;
    const chunks: Uint8Array[] = [];
    let size = 0;
    let over = false;
    for await (const chunk of data) {
      size += chunk.byteLength;
      if (size > limit) {
        if (!isFile) throw new FormReadError(UPLOAD_MESSAGES.formTooLarge, 413);
        over = true; // keep draining (counted against maxBodyBytes) but hold nothing
        chunks.length = 0;
        continue;
      }
      if (!over) chunks.push(chunk);
    }
    if (over) {
      oversizedFiles.push(name);
      return undefined;
    }
    if (!isFile) {
      let text: string;
      try {
        text = STRICT_UTF8.decode(concat(chunks, size));
      } catch {
        throw new FormReadError(UPLOAD_MESSAGES.unreadableForm, 400);
      }
      refuseNul(name, text);
      return text;
    }
    // A file input left empty arrives as a nameless, empty part: treat it as "no file".
    if (!filename && size === 0) return undefined;
    return new File([concat(chunks, size)], filename || "upload", { type: partType || "application/octet-stream" });
  };

  try {
    const counted = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      // Required by undici for a streamed body.
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    const formData = await unstable_parseMultipartFormData(counted, handler);
    return { formData, oversizedFiles };
  } catch (error) {
    return rethrowCap(error);
  }
}

/**
 * Reads a form with at most `maxFileBytes` (default 10 MB) per file: a bigger file, a body
 * over the limits or a malformed body is refused with a FormReadError (413 or 400) before more
 * than the allowance is held in memory.
 */
export async function readMultipartForm(request: Request, options: MultipartOptions = {}): Promise<FormData> {
  const { formData, oversizedFiles } = await readMultipartFormLenient(request, options);
  if (oversizedFiles.length > 0) {
    throw new FormReadError(bodyTooLargeMessage(options.maxFileBytes ?? UPLOAD_LIMITS.fileBytes), 413);
  }
  return formData;
}

/** A chosen file from a form, or null when the field is absent or left empty. */
export async function fileBytes(value: FormDataEntryValue | null): Promise<Uint8Array | null> {
  if (value === null || typeof value === "string") return null;
  if (value.size === 0 && !value.name) return null;
  return new Uint8Array(await value.arrayBuffer());
}

function bodyTooLargeMessage(maxFileBytes: number): string {
  if (maxFileBytes === UPLOAD_LIMITS.fileBytes) return UPLOAD_MESSAGES.fileTooLarge;
  return `The image is too large (${Math.round((maxFileBytes / 1024 / 1024) * 10) / 10} MB at most).`;
}

/** Refuses a field whose name or text holds NUL (U+0000). */
function refuseNul(name: string, text: string): void {
  if (name.includes("\u0000") || text.includes("\u0000")) throw new FormReadError(UPLOAD_MESSAGES.nul, 400, name.replaceAll("\u0000", ""));
}

class BodyCapError extends Error {}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A urlencoded body as a form, or null when it is not text a browser could have sent: raw bytes
 * or percent-escapes that are not UTF-8 are refused instead of being stored as U+FFFD. Otherwise
 * read as browsers write it (`+` is a space; a `%` not followed by two hex digits stays as it is).
 */
function parseUrlEncodedStrictly(bytes: Uint8Array): FormData | null {
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
  const formData = new FormData();
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const name = decodeComponent(equals < 0 ? pair : pair.slice(0, equals));
    const value = decodeComponent(equals < 0 ? "" : pair.slice(equals + 1));
    if (name === null || value === null) return null;
    formData.append(name, value);
  }
  return formData;
}

function decodeComponent(component: string): string | null {
  const spaced = component.replaceAll("+", " ");
  if (!spaced.includes("%")) return spaced;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < spaced.length; i++) {
    const char = spaced.charCodeAt(i);
    const hex = char === 0x25 ? spaced.slice(i + 1, i + 3) : "";
    if (hex.length === 2 && /^[0-9a-f]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      const codePoint = spaced.codePointAt(i)!;
      if (codePoint > 0xffff) i += 1;
      bytes.push(...encoder.encode(String.fromCodePoint(codePoint)));
    }
  }
  try {
    return STRICT_UTF8.decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

/**
 * A form's whole body (under `max` bytes, checked before). With its length declared it is read
 * as it is: the HTTP parser passes no byte past that length, so no stream needs to count them
 * (a form post's body is a few dozen bytes; the counting stream cost more than the rest of the
 * reading). Without a declared length it is counted as it arrives and refused past `max`.
 */
async function smallBody(request: Request, max: number, maxFileBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  if (request.headers.get("Content-Length") === null) {
    return new Uint8Array(await new Response(cappedBody(request, max, maxFileBytes)).arrayBuffer().catch(rethrowCap));
  }
  const bytes = new Uint8Array(await request.arrayBuffer().catch(rethrowCap));
  // A Request made in this process may say less than it carries: the limit holds all the same.
  if (bytes.byteLength > max) throw new FormReadError(bodyTooLargeMessage(maxFileBytes), 413);
  return bytes;
}

/** The request body, erroring as soon as more than `max` bytes have arrived. */
function cappedBody(request: Request, max: number, maxFileBytes: number): ReadableStream<Uint8Array> | null {
  if (!request.body) return null;
  let total = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > max) {
        controller.error(new BodyCapError(bodyTooLargeMessage(maxFileBytes)));
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return request.body.pipeThrough(counter);
}

function rethrowCap(error: unknown): never {
  if (error instanceof FormReadError) throw error;
  if (error instanceof BodyCapError) throw new FormReadError(error.message, 413);
  const cause = error instanceof Error ? (error as Error & { cause?: unknown }).cause : undefined;
  if (cause instanceof BodyCapError) throw new FormReadError(cause.message, 413);
  if (cause instanceof FormReadError) throw cause;
  throw new FormReadError(UPLOAD_MESSAGES.unreadableForm, 400);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
