import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";

import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { action as profileEditAction } from "~/routes/ReciPals.Account.Profile.$uid_.Edit";
import { action as editorAction } from "~/routes/ReciPals.Editor.$rid";
import { loader as uploadsLoader } from "~/routes/uploads.$file";
import { db } from "~/server/db/connection.server";
import { IMAGE_MESSAGES } from "~/server/media/images.server";
import { useSetting } from "../support/settings";

import { requireRouteHandler } from "../support/server/routes";
import { jsonRequest, makeWorld, ORIGIN, outcomeOf, type World } from "../support/server/world";
import { messageOf } from "../support/server/nasty";

// Hostile uploads (issue 10 item 4): truncated images, a decompression bomb, SVG with script,
// a polyglot, an oversized file and file names that are paths — through the recipe editor, the
// profile editor and the JSON API's data URLs. Each refusal has a clear message and writes no file.

let uploads: string;
let scratch: string;
let w: World;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-sec-uploads-"));
  uploads = path.join(scratch, "a", "b", "uploads");
  fs.mkdirSync(uploads, { recursive: true });
  useSetting("UPLOADS_DIR", uploads);
  w = await makeWorld();
});
afterAll(() => {
  useSetting("UPLOADS_DIR", undefined);
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Every file under the scratch folder (uploads and anything a path-like name could have reached). */
function filesOnDisk(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(path.relative(scratch, full));
    }
  };
  walk(scratch);
  return out.sort();
}

// ---------------------------------------------------------------------------------------------
// Hostile files

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A valid PNG of 20,000 × 20,000 one-bit pixels: 400 megapixels (≈1.2 GB once decoded to RGB)
 * in a file of about 60 KB. Built by hand: IHDR, one zlib stream of all-zero rows, IEND.
 */
function decompressionBomb(side = 20_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const rowBytes = 1 + Math.ceil(side / 8); // filter byte + packed pixels
  const idat = zlib.deflateSync(Buffer.alloc(rowBytes * side), { level: 9 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk("IHDR", ihdr), pngChunk("IDAT", idat), pngChunk("IEND", Buffer.alloc(0))]);
}

let goodPng: Buffer;
let goodJpeg: Buffer;
let bomb: Buffer;
const SVG_WITH_SCRIPT = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><script>alert(document.cookie)</script><rect width="100" height="100" fill="red" onload="alert(1)"/></svg>',
);
const PASSWD = Buffer.from("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n");

beforeAll(async () => {
  const noise = { width: 300, height: 200, channels: 3 as const, background: "#888", noise: { type: "gaussian" as const, mean: 128, sigma: 60 } };
  goodPng = await sharp({ create: noise }).png().toBuffer();
  goodJpeg = await sharp({ create: noise }).jpeg().toBuffer();
  bomb = decompressionBomb();
});

const RECIPE_FIELDS: [string, string][] = [
  ["intent", "save"],
  ["mode", "create"],
  ["name", "Upload probe"],
  ["description", "Has a hostile photo"],
  ["sectionId", ""],
  ["sectionTitle", "Main"],
  ["ingredient-0", "Salt"],
  ["step", "Stir."],
  ["totalTime", "1min"],
  ["serves", "1"],
  ["tags", ""],
];

function multipart(fields: [string, string][], file: { field: string; bytes: Buffer; name: string; type: string } | null, cookie: string): Request {
  const formData = new FormData();
  for (const [name, value] of fields) formData.append(name, value);
  if (file) formData.append(file.field, new File([new Uint8Array(file.bytes)], file.name, { type: file.type }));
  return new Request(`${ORIGIN}/x`, { method: "POST", body: formData, headers: { Cookie: cookie } });
}

async function recipeCount() {
  return Number((await db.selectFrom("recipes").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
}

interface Attack {
  name: string;
  file: () => { bytes: Buffer; name: string; type: string };
  status: number[];
  message: string[];
}

const ATTACKS: Attack[] = [
  {
    name: "a truncated PNG",
    file: () => ({ bytes: goodPng.subarray(0, Math.floor(goodPng.length / 2)), name: "cut.png", type: "image/png" }),
    status: [400],
    message: [IMAGE_MESSAGES.failed, IMAGE_MESSAGES.notAnImage],
  },
  {
    name: "a truncated JPEG",
    file: () => ({ bytes: goodJpeg.subarray(0, Math.floor(goodJpeg.length / 3)), name: "cut.jpg", type: "image/jpeg" }),
    status: [400],
    message: [IMAGE_MESSAGES.failed, IMAGE_MESSAGES.notAnImage],
  },
  {
    name: "a decompression bomb (20,000 × 20,000 PNG)",
    file: () => ({ bytes: bomb, name: "bomb.png", type: "image/png" }),
    status: [400, 413],
    message: [IMAGE_MESSAGES.tooManyPixels],
  },
  {
    name: "an SVG with a script",
    file: () => ({ bytes: SVG_WITH_SCRIPT, name: "evil.svg", type: "image/svg+xml" }),
    status: [400],
    message: [IMAGE_MESSAGES.notAnImage],
  },
  {
    name: "an SVG with a script posing as a PNG",
    file: () => ({ bytes: SVG_WITH_SCRIPT, name: "innocent.png", type: "image/png" }),
    status: [400],
    message: [IMAGE_MESSAGES.notAnImage],
  },
  {
    name: "a text file whose name is a path (../../etc/passwd.png)",
    file: () => ({ bytes: PASSWD, name: "../../etc/passwd.png", type: "image/png" }),
    status: [400],
    message: [IMAGE_MESSAGES.notAnImage],
  },
  {
    name: "an empty file with a name",
    file: () => ({ bytes: Buffer.alloc(0), name: "empty.png", type: "image/png" }),
    status: [400],
    message: [IMAGE_MESSAGES.notAnImage],
  },
  {
    name: "an 11 MB file",
    file: () => ({ bytes: Buffer.concat([goodPng, Buffer.alloc(11 * 1024 * 1024)]), name: "huge.png", type: "image/png" }),
    status: [400, 413],
    message: [IMAGE_MESSAGES.tooLarge],
  },
];

describe("hostile uploads in the recipe editor", () => {
  it("decompression bomb is what it claims: a small file announcing 400 megapixels", async () => {
    expect(bomb.length).toBeLessThan(200 * 1024);
    const meta = await sharp(bomb, { limitInputPixels: false }).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([20_000, 20_000, "png"]);
  });

  for (const attack of ATTACKS) {
    it(`refuses ${attack.name} with a clear message, storing nothing`, async () => {
      const filesBefore = filesOnDisk();
      const recipesBefore = await recipeCount();
      const started = Date.now();
      const outcome = await outcomeOf(() =>
        editorAction({ request: multipart(RECIPE_FIELDS, { field: "photo", ...attack.file() }, w.owner.cookie), params: { rid: crypto.randomUUID() }, context: {} }),
      );
      expect(attack.status).toContain(outcome.status);
      const body = outcome.body as { fieldErrors?: Record<string, string> };
      expect(attack.message).toContain(body.fieldErrors?.photo);
      expect(filesOnDisk()).toEqual(filesBefore);
      expect(await recipeCount()).toBe(recipesBefore);
      // The bomb is refused from its header, before any pixel is decoded.
      expect(Date.now() - started).toBeLessThan(15_000);
    });
  }

  it("refuses the bomb on the no-JavaScript row path too (a photo chosen, then Add Step)", async () => {
    const filesBefore = filesOnDisk();
    const fields = RECIPE_FIELDS.map(([k, v]): [string, string] => (k === "intent" ? [k, "add-step"] : [k, v]));
    const outcome = await outcomeOf(() => editorAction({ request: multipart(fields, { field: "photo", bytes: bomb, name: "b.png", type: "image/png" }, w.owner.cookie), params: { rid: crypto.randomUUID() }, context: {} }));
    expect(outcome.status).toBe(400);
    expect((outcome.body as { fieldErrors: Record<string, string> }).fieldErrors.photo).toBe(IMAGE_MESSAGES.tooManyPixels);
    expect(filesOnDisk()).toEqual(filesBefore);
  });

  it("ignores a path-like file name on a real image: stored only under <sha256> names (WebP and AVIF copies) inside the uploads folder", async () => {
    const rid = crypto.randomUUID();
    const outcome = await outcomeOf(() =>
      editorAction({ request: multipart(RECIPE_FIELDS, { field: "photo", bytes: goodPng, name: "../../etc/passwd.png", type: "image/png" }, w.owner.cookie), params: { rid }, context: {} }),
    );
    expect(outcome.status).toBe(302);
    const written = filesOnDisk();
    for (const file of written) expect(file).toMatch(/^a\/b\/uploads\/[0-9a-f]{64}(\.tiny\.webp|(\.card|\.w(320|480|640))?\.(webp|avif))$/);
    const photo = (await db.selectFrom("recipes").select("photo").where("id", "=", rid).executeTakeFirstOrThrow()).photo;
    expect(photo).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
  });

  it("re-encodes a polyglot (a PNG with HTML and script appended): nothing of the payload is stored", async () => {
    const polyglot = Buffer.concat([goodPng, Buffer.from("<html><script>alert(document.cookie)</script></html>")]);
    const rid = crypto.randomUUID();
    const outcome = await outcomeOf(() =>
      editorAction({ request: multipart(RECIPE_FIELDS, { field: "photo", bytes: polyglot, name: "poly.png", type: "text/html" }, w.owner.cookie), params: { rid }, context: {} }),
    );
    expect(outcome.status).toBe(302);
    const photo = (await db.selectFrom("recipes").select("photo").where("id", "=", rid).executeTakeFirstOrThrow()).photo;
    const stored = fs.readFileSync(path.join(uploads, photo.replace("/uploads/", "")));
    expect(stored.subarray(0, 4).toString("ascii")).toBe("RIFF");
    expect(stored.includes(Buffer.from("<script"))).toBe(false);
  });
});

describe("hostile uploads in the profile editor", () => {
  for (const attack of ATTACKS) {
    it(`refuses ${attack.name} as a profile photo, changing nothing`, async () => {
      const before = await db.selectFrom("users").selectAll().where("id", "=", w.other.id).executeTakeFirstOrThrow();
      const filesBefore = filesOnDisk();
      const fields: [string, string][] = [
        ["name", "Changed Name"],
        ["username", w.other.username],
        ["password", ""],
        ["role", "USER"],
        ["bio", "changed"],
        ["adminPassword", ""],
      ];
      const outcome = await outcomeOf(() => profileEditAction({ request: multipart(fields, { field: "photo", ...attack.file() }, w.other.cookie), params: { uid: w.other.id }, context: {} }));
      expect(attack.status).toContain(outcome.status);
      const body = outcome.body as { formError?: string; fieldErrors?: Record<string, string> };
      expect(attack.message).toContain(body.fieldErrors?.photo);
      expect(body.formError).toBe("Failed to process the image. Please try again.");
      expect(filesOnDisk()).toEqual(filesBefore);
      expect(await db.selectFrom("users").selectAll().where("id", "=", w.other.id).executeTakeFirstOrThrow()).toEqual(before);
    });
  }
});

describe("hostile pictures sent to the JSON API as data URLs", () => {
  // The routes must exist: a missing one fails these tests (requireRouteHandler), never skips them.
  const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString("base64")}`;

  it("refuses each hostile profile picture with a JSON message, changing nothing", async () => {
    const action = await requireRouteHandler("/api/users/:");
    for (const attack of ATTACKS.filter((a) => !a.name.includes("11 MB"))) {
      const file = attack.file();
      const before = await db.selectFrom("users").selectAll().where("id", "=", w.owner.id).executeTakeFirstOrThrow();
      const filesBefore = filesOnDisk();
      const request = jsonRequest("PUT", `/api/users/${w.owner.id}`, { _id: w.owner.id, name: "Api Name", profile: dataUrl(file.type, file.bytes) }, w.owner.cookie);
      const outcome = await outcomeOf(() => action({ request, params: { id: w.owner.id }, context: {} }));
      expect(outcome.status, attack.name).toBeGreaterThanOrEqual(400);
      expect(outcome.status, attack.name).toBeLessThan(500);
      expect(messageOf(outcome), attack.name).not.toBe("");
      expect(filesOnDisk(), attack.name).toEqual(filesBefore);
      expect(await db.selectFrom("users").selectAll().where("id", "=", w.owner.id).executeTakeFirstOrThrow(), attack.name).toEqual(before);
    }
  });

  it("refuses a recipe whose photo is a bomb, an SVG, a script URL or a private network address", async () => {
    const action = await requireRouteHandler("/api/recipes");
    for (const photo of [
      dataUrl("image/png", bomb),
      dataUrl("image/svg+xml", SVG_WITH_SCRIPT),
      dataUrl("text/html", Buffer.from("<script>alert(1)</script>")),
      "javascript:alert(1)",
      "http://169.254.169.254/latest/meta-data/",
      "http://localhost:4000/uploads/x.webp",
      "https://[::1]/a.png",
      "ftp://example.com/a.png",
      "/uploads/../../../etc/passwd",
    ]) {
      const filesBefore = filesOnDisk();
      const recipesBefore = await recipeCount();
      const body = { recipe_id: crypto.randomUUID(), name: "Api upload probe", description: "x", ingredients_sec: [{ title: "Main", ingredients: ["Salt"] }], steps: ["Stir."], photo };
      const outcome = await outcomeOf(() => action({ request: jsonRequest("POST", "/api/recipes", body, w.owner.cookie), params: {}, context: {} }));
      expect(outcome.status, photo.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(outcome.status, photo.slice(0, 40)).toBeLessThan(500);
      expect(messageOf(outcome), photo.slice(0, 40)).not.toBe("");
      expect(filesOnDisk()).toEqual(filesBefore);
      expect(await recipeCount()).toBe(recipesBefore);
    }
  });
});

describe("serving uploads", () => {
  it("serves only content-addressed names: traversal and odd names are 404s", async () => {
    for (const file of ["../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "/etc/passwd", "x.webp", `${"a".repeat(64)}.webp/../../x`, `${"0".repeat(64)}.svg`, "\u0000"]) {
      const outcome = await outcomeOf(() => uploadsLoader({ request: new Request(`${ORIGIN}/uploads/x`), params: { file }, context: {} }));
      expect(outcome.status, file).toBe(404);
    }
  });
});
