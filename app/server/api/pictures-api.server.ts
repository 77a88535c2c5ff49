import fs from "node:fs";
import net from "node:net";
import path from "node:path";

import { ImageError, IMAGE_MESSAGES, isStoredImageUrl, processImage } from "../media/images.server";
import { type PicturePlan } from "../media/pictures.server";
import { isPrivateAddress } from "../import/addresses.server";
import { LimitReachedError, takeUploadSlot } from "../auth/limits.server";
import { ApiError } from "../http/api.server";

// Pictures sent to the API (`photo` of recipes and posts, `profile` of users), (docs/rules.md#api-pictures):
// - the value already stored: kept as it is;
// - a data URL `data:image/…;base64,…`: decoded and run through the image pipeline like an
//   upload (sharp, 800 px, 0.5 MB, WebP), stored as a file; the answer carries its URL;
// - an upload URL our storage produced (`/uploads/<hash>.webp`): used as it is;
// - a site picture `/images/<file>` (the client's built-in defaults), also as an address on the
//   original client's own host (its recipe editor sends `https://recipals.netlify.app/images/default.jpg`
//   when no photo was chosen): kept when this server has that file, otherwise our default picture;
// - the http(s) address of a picture elsewhere (as the sample recipes' photos are): kept as the
//   address, at most 2,048 characters, without credentials in it, not a private or loopback address;
// - "" : the default picture.
// A field that takes uploads only (`uploadsOnly`: the photo of an "I made this" entry) takes a data
// URL, the value already stored and "", and refuses every address with 400.
// Anything else (other schemes such as javascript:, data that is not an image) is refused with 400.

export const PICTURE_MESSAGES = {
  notAPicture: "Please send the picture as an image data URL (data:image/…;base64,…) or the http(s) address of an image.",
  addressTooLong: "The picture's address is too long (2,048 characters at most).",
} as const;

const MAX_PICTURE_ADDRESS = 2048;
/** Where the original ReciPals client is served from: its `/images/…` are its built-in pictures. */
const ORIGINAL_CLIENT_HOSTS = new Set(["recipals.netlify.app"]);

const SITE_PICTURE = /^\/images\/([A-Za-z0-9][A-Za-z0-9._-]{0,100})$/;

/**
 * A data URL's header, split as `data:<type><;options>,<data>`: the media type, its parameters
 * (";base64", ";charset=…") and where the data starts; null for anything else. Read with indexOf,
 * not /^data:([^;,]*)((?:;[^;,]*)*),/: a body of 12 MB can carry a field of millions of ";", and
 * that expression keeps one backtracking entry per ";" until V8 gives up with a RangeError (a 500).
 */
function readDataUrl(value: string): { type: string; options: string; dataStart: number } | null {
  if (value.slice(0, 5).toLowerCase() !== "data:") return null;
  const comma = value.indexOf(",", 5);
  if (comma < 0) return null;
  const header = value.slice(5, comma);
  const semicolon = header.indexOf(";");
  return {
    type: semicolon < 0 ? header : header.slice(0, semicolon),
    options: semicolon < 0 ? "" : header.slice(semicolon),
    dataStart: comma + 1,
  };
}

let sitePictures: Set<string> | null = null;

/** The files in public/images (read once). */
function sitePictureExists(name: string): boolean {
  if (!sitePictures) {
    try {
      sitePictures = new Set(fs.readdirSync(path.resolve("public/images")));
    } catch {
      sitePictures = new Set();
    }
  }
  return sitePictures.has(name);
}

/**
 * Checks (and, for a data URL, processes in memory) a picture field without storing anything.
 * ImageErrors become ApiErrors with the field's name in `errors`.
 */
export async function planPicture(
  value: string,
  {
    current,
    fallback,
    field,
    uploader,
    uploadsOnly,
  }: {
    current: string | null;
    fallback: string;
    field: string;
    uploader?: string;
    /** Only a data URL (besides the current value and ""): anything else is refused with 400 and this message. */
    uploadsOnly?: string;
  },
): Promise<PicturePlan> {
  if (current !== null && value === current) return { kind: "keep" };
  if (value === "") return { kind: "set", url: fallback };
  const dataUrl = readDataUrl(value);
  if (!dataUrl && uploadsOnly !== undefined) throw pictureRefusal(field, uploadsOnly, 400);
  if (dataUrl) {
    const { type, options } = dataUrl;
    if (!/^image\//i.test(type)) throw pictureRefusal(field, IMAGE_MESSAGES.notAnImage, 400);
    if (!/;base64$/i.test(options)) throw pictureRefusal(field, PICTURE_MESSAGES.notAPicture, 400);
    const bytes = Buffer.from(value.slice(dataUrl.dataStart), "base64");
    try {
      // Counted against the person's uploads before it is decoded (a sign-up has its own limit).
      if (uploader) await takeUploadSlot(uploader);
      return { kind: "upload", image: await processImage(bytes) };
    } catch (error) {
      if (error instanceof ImageError) throw pictureRefusal(field, error.message, error.status);
      if (error instanceof LimitReachedError) throw pictureRefusal(field, error.message, 429, error.retryAfterSeconds);
      throw error;
    }
  }
  const site = SITE_PICTURE.exec(value);
  if (site) return { kind: "set", url: sitePictureExists(site[1]!) ? value : fallback };
  let stored: boolean;
  try {
    stored = await isStoredImageUrl(value);
  } catch (error) {
    // The image store cannot be reached to confirm the upload is there (503).
    if (error instanceof ImageError) throw pictureRefusal(field, error.message, error.status);
    throw error;
  }
  if (stored) return { kind: "set", url: value };
  const address = webPicture(value, field);
  const clientPicture = ORIGINAL_CLIENT_HOSTS.has(address.hostname) ? SITE_PICTURE.exec(address.pathname) : null;
  if (clientPicture) return { kind: "set", url: sitePictureExists(clientPicture[1]!) ? clientPicture[0] : fallback };
  return { kind: "set", url: address.href };
}

/** The address of a picture on the web, or a 400: http(s) only, no credentials, not over-long. */
function webPicture(value: string, field: string): URL {
  if (!/^https?:\/\//i.test(value)) throw pictureRefusal(field, PICTURE_MESSAGES.notAPicture, 400);
  if (value.length > MAX_PICTURE_ADDRESS) throw pictureRefusal(field, PICTURE_MESSAGES.addressTooLong, 400);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw pictureRefusal(field, PICTURE_MESSAGES.notAPicture, 400);
  }
  // A literal private or loopback address would make every visitor's browser ask their own network.
  const literalHost = url.hostname.replace(/^\[|\]$/g, "");
  const privateHost = url.hostname === "localhost" || (net.isIP(literalHost) !== 0 && isPrivateAddress(literalHost));
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !url.hostname || url.username || url.password || privateHost) {
    throw pictureRefusal(field, PICTURE_MESSAGES.notAPicture, 400);
  }
  if (url.href.length > MAX_PICTURE_ADDRESS) throw pictureRefusal(field, PICTURE_MESSAGES.addressTooLong, 400);
  return url;
}

function pictureRefusal(field: string, message: string, status: number, retryAfterSeconds?: number): ApiError {
  return new ApiError(status, message, { errors: { [field]: message } }, retryAfterSeconds ? { "Retry-After": String(retryAfterSeconds) } : {});
}
