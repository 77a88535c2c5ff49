import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { contentHash, copyNameOf, isAvifCopy, PHOTO_COPIES, webpTwinOf, type PhotoCopy } from "~/server/media/storage.server";

import { progressLine, progressReporter } from "../../scripts/images-variants.js";
import { startS3Server, type S3TestServer } from "../support/s3rver";

// npm run images:variants, run as the command it is (a child process) against real stores: an
// uploads folder, and a bucket on s3rver. Photos are stored "the old way" first (a main file and
// no copies), as they were before copies existed.

const ROOT = path.resolve(__dirname, "../..");
const SCRIPT = path.join(ROOT, "scripts/images-variants.js");
/** Loading the app's modules (esbuild) and encoding take a few seconds per run. */
const RUN_TIMEOUT_MS = 60_000;
/** The store settings the script reads: each run gets only those it is given, never the test process's. */
const STORE_SETTINGS = ["IMAGE_STORE", "UPLOADS_DIR", "S3_ENDPOINT", "S3_BUCKET", "S3_REGION", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_PUBLIC_URL"];
const PROGRESS = /^images:variants \[[#.]{20}\] \d{1,3}% \d+\/\d+ photos$/;

type Run = { code: number; stdout: string; stderr: string };

function runVariants(env: Record<string, string>): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const key of STORE_SETTINGS) delete base[key];
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT], { cwd: ROOT, env: { ...base, ...env }, timeout: RUN_TIMEOUT_MS }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** A main file as the pipeline stored it: a 1200×800 gradient shrunk to 800 px (800×533), WebP. */
async function mainPhoto(from: string, to: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/></svg>`;
  return sharp(Buffer.from(svg)).resize({ width: 800, height: 800, fit: "inside" }).webp({ quality: 82 }).toBuffer();
}

/** Every stored name of a photo with all its copies. */
const allNamesOf = (hash: string) => [`${hash}.webp`, ...PHOTO_COPIES.map((copy) => copyNameOf(hash, copy))];

/**
 * A copy is of its size and format: WebP, or for an AVIF twin AVIF or the WebP when that was
 * smaller (these smooth gradients sometimes are; tests/unit/images.test.ts has the choice itself);
 * the placeholder 16 px and a few hundred bytes, the card 400 px on its longer side, a width copy
 * exactly that wide, the photo's twin as wide as the photo, in its proportions. Answers the media type.
 */
async function expectCopyOfItsSize(bytes: Buffer, copy: PhotoCopy): Promise<string> {
  const { format, width, height } = await sharp(bytes).metadata();
  expect(format).toMatch(isAvifCopy(copy) ? /^(heif|webp)$/ : /^webp$/);
  const size = isAvifCopy(copy) ? (webpTwinOf(copy) ?? 800) : copy;
  if (size === "tiny") {
    expect(Math.max(width!, height!)).toBe(16);
    expect(bytes.byteLength).toBeLessThan(400);
  } else if (size === "card") {
    expect(Math.max(width!, height!)).toBe(400);
    expect(Math.abs(height! - (400 * 533) / 800)).toBeLessThanOrEqual(1);
  } else {
    expect(width).toBe(size);
    expect(Math.abs(height! - (size * 533) / 800)).toBeLessThanOrEqual(1);
  }
  return format === "heif" ? "image/avif" : "image/webp";
}

/** stderr of a run without a terminal: plain progress lines only, no carriage returns, ending at 100%. */
function expectPlainProgress(stderr: string, photos: number): void {
  expect(stderr).not.toContain("\r");
  const lines = stderr.trimEnd().split("\n");
  for (const line of lines) expect(line).toMatch(PROGRESS);
  expect(lines.length).toBeLessThanOrEqual(11);
  expect(lines.at(-1)).toBe(progressLine(photos, photos));
}

let photoA: Buffer;
let photoB: Buffer;
let hashA: string;
let hashB: string;
beforeAll(async () => {
  photoA = await mainPhoto("#c2410c", "#fde68a");
  photoB = await mainPhoto("#166534", "#1e3a8a");
  hashA = contentHash(photoA);
  hashB = contentHash(photoB);
  expect(await sharp(photoA).metadata()).toMatchObject({ width: 800, height: 533 });
});

describe("the progress bar", () => {
  it("draws how far the photos are", () => {
    expect(progressLine(90, 200)).toBe("images:variants [#########...........] 45% 90/200 photos");
    expect(progressLine(0, 3)).toBe("images:variants [....................] 0% 0/3 photos");
    expect(progressLine(199, 200)).toBe("images:variants [###################.] 99% 199/200 photos");
    expect(progressLine(200, 200)).toBe("images:variants [####################] 100% 200/200 photos");
  });

  it("redraws one line on a terminal, and prints a plain line at most every tenth elsewhere", () => {
    const tty: string[] = [];
    const onTerminal = progressReporter(200, { isTTY: true, write: (text: string) => tty.push(text) });
    for (let done = 0; done <= 200; done += 1) onTerminal.update(done);
    onTerminal.end();
    expect(tty).toHaveLength(202);
    expect(tty[90]).toBe(`\r${progressLine(90, 200)}\x1b[K`);
    expect(tty.slice(0, -1).every((text) => text.startsWith("\r") && !text.includes("\n"))).toBe(true);
    expect(tty.at(-1)).toBe("\n");

    const log: string[] = [];
    const inLog = progressReporter(200, { isTTY: false, write: (text: string) => log.push(text) });
    for (let done = 0; done <= 200; done += 1) inLog.update(done);
    inLog.end();
    expect(log).toEqual([0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200].map((done) => `${progressLine(done, 200)}\n`));
  });
});

describe("images:variants on the uploads folder", () => {
  const folders: string[] = [];
  const scratch = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-variants-"));
    folders.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    "gives photos stored without copies every copy, then finds nothing left to do",
    async () => {
      // The default disk store: `uploads` beside the database.
      const data = scratch();
      const uploads = path.join(data, "uploads");
      fs.mkdirSync(uploads);
      fs.writeFileSync(path.join(uploads, `${hashA}.webp`), photoA);
      fs.writeFileSync(path.join(uploads, `${hashB}.webp`), photoB);
      const env = { DATABASE_PATH: path.join(data, "recipals.db") };

      const first = await runVariants(env);
      expect(first.code).toBe(0);
      expect(first.stdout).toBe(`images:variants: 2 photos in ${uploads}, 2 given 20 copies, 0 already complete.\n`);
      expectPlainProgress(first.stderr, 2);
      expect(fs.readdirSync(uploads).sort()).toEqual([...allNamesOf(hashA), ...allNamesOf(hashB)].sort());
      expect(fs.readFileSync(path.join(uploads, `${hashA}.webp`)).equals(photoA)).toBe(true);
      expect(fs.readFileSync(path.join(uploads, `${hashB}.webp`)).equals(photoB)).toBe(true);
      for (const hash of [hashA, hashB]) {
        for (const copy of PHOTO_COPIES) await expectCopyOfItsSize(fs.readFileSync(path.join(uploads, copyNameOf(hash, copy))), copy);
      }

      const again = await runVariants(env);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(`images:variants: 2 photos in ${uploads}, 0 given 0 copies, 2 already complete.\n`);
      expect(again.stderr).toBe("");
      expect(fs.readdirSync(uploads).sort()).toEqual([...allNamesOf(hashA), ...allNamesOf(hashB)].sort());
    },
    RUN_TIMEOUT_MS * 2,
  );

  it(
    "finishes a half-done store: makes only the missing copies, and leaves copies without a main photo alone",
    async () => {
      const uploads = scratch();
      // Photo A was stopped half-way: its card and 480 px copy are there (made here, so that a
      // rewrite would show), the 320 and 640 px copies, the placeholder and the five AVIF twins
      // are not. Photo B has none. C's main is gone.
      const card = await sharp(photoA).resize({ width: 400, height: 400, fit: "inside" }).webp({ quality: 50 }).toBuffer();
      const w480 = await sharp(photoA).resize({ width: 480 }).webp({ quality: 50 }).toBuffer();
      const orphan = await sharp(photoB).resize({ width: 320 }).webp().toBuffer();
      const hashC = contentHash(Buffer.from("a photo removed since"));
      fs.writeFileSync(path.join(uploads, `${hashA}.webp`), photoA);
      fs.writeFileSync(path.join(uploads, copyNameOf(hashA, "card")), card);
      fs.writeFileSync(path.join(uploads, copyNameOf(hashA, 480)), w480);
      fs.writeFileSync(path.join(uploads, `${hashB}.webp`), photoB);
      fs.writeFileSync(path.join(uploads, copyNameOf(hashC, 320)), orphan);

      const result = await runVariants({ UPLOADS_DIR: uploads });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`images:variants: 2 photos in ${uploads}, 2 given 18 copies, 0 already complete; 1 copy without a main photo left alone.\n`);
      expectPlainProgress(result.stderr, 2);
      expect(fs.readdirSync(uploads).sort()).toEqual([...allNamesOf(hashA), ...allNamesOf(hashB), copyNameOf(hashC, 320)].sort());
      expect(fs.readFileSync(path.join(uploads, copyNameOf(hashA, "card"))).equals(card)).toBe(true);
      expect(fs.readFileSync(path.join(uploads, copyNameOf(hashA, 480))).equals(w480)).toBe(true);
      expect(fs.readFileSync(path.join(uploads, copyNameOf(hashC, 320))).equals(orphan)).toBe(true);
      for (const copy of [320, 640] as const) await expectCopyOfItsSize(fs.readFileSync(path.join(uploads, copyNameOf(hashA, copy))), copy);
      for (const copy of PHOTO_COPIES) await expectCopyOfItsSize(fs.readFileSync(path.join(uploads, copyNameOf(hashB, copy))), copy);

      const again = await runVariants({ UPLOADS_DIR: uploads });
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(`images:variants: 2 photos in ${uploads}, 0 given 0 copies, 2 already complete; 1 copy without a main photo left alone.\n`);
    },
    RUN_TIMEOUT_MS * 2,
  );
});

describe("images:variants on an S3 bucket", () => {
  let s3: S3TestServer;
  let probe: S3Client;

  async function objectKeys(bucket: string): Promise<string[]> {
    const page = await probe.send(new ListObjectsV2Command({ Bucket: bucket }));
    return (page.Contents ?? []).map((object) => object.Key!).sort();
  }
  async function objectBytes(bucket: string, key: string): Promise<Buffer> {
    const answer = await probe.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await answer.Body!.transformToByteArray());
  }

  beforeAll(async () => {
    s3 = await startS3Server({ bucket: "old-photos" });
    // The test's own client: what the bucket holds is checked without the app's storage module.
    probe = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
  });
  afterAll(async () => {
    probe?.destroy();
    await s3?.stop();
  });

  it(
    "gives the bucket's photos every copy, then finds nothing left to do",
    async () => {
      await probe.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${hashA}.webp`, Body: photoA, ContentType: "image/webp" }));
      await probe.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${hashB}.webp`, Body: photoB, ContentType: "image/webp" }));
      // A disk folder that must stay empty: with IMAGE_STORE=s3 the bucket is the store.
      const disk = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-variants-disk-"));
      try {
        const env = { ...s3.env, UPLOADS_DIR: disk };
        const first = await runVariants(env);
        expect(first.code).toBe(0);
        expect(first.stdout).toBe(`images:variants: 2 photos in bucket ${s3.bucket} at ${s3.endpoint}, 2 given 20 copies, 0 already complete.\n`);
        expectPlainProgress(first.stderr, 2);
        expect(await objectKeys(s3.bucket)).toEqual([...allNamesOf(hashA), ...allNamesOf(hashB)].sort());
        for (const hash of [hashA, hashB]) {
          for (const copy of PHOTO_COPIES) {
            const type = await expectCopyOfItsSize(await objectBytes(s3.bucket, copyNameOf(hash, copy)), copy);
            const head = await probe.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: copyNameOf(hash, copy) }));
            expect(head.ContentType).toBe(type);
          }
        }
        expect(fs.readdirSync(disk)).toEqual([]);

        const again = await runVariants(env);
        expect(again.code).toBe(0);
        expect(again.stdout).toBe(`images:variants: 2 photos in bucket ${s3.bucket} at ${s3.endpoint}, 0 given 0 copies, 2 already complete.\n`);
        expect(again.stderr).toBe("");
      } finally {
        fs.rmSync(disk, { recursive: true, force: true });
      }
    },
    RUN_TIMEOUT_MS * 2,
  );

  it(
    "stops with one line when the store cannot be reached, has no such bucket, or lacks its settings",
    async () => {
      const down = await startS3Server({ bucket: "gone" });
      await down.stop();
      const unreachable = await runVariants(down.env);
      expect(unreachable.code).toBe(1);
      expect(unreachable.stdout).toBe("");
      expect(unreachable.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^images:variants: The object store .*could not be reached.*ECONNREFUSED/)]);

      const noBucket = await runVariants({ ...s3.env, S3_BUCKET: "no-such-bucket" });
      expect(noBucket.code).toBe(1);
      expect(noBucket.stdout).toBe("");
      expect(noBucket.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^images:variants: .*has no bucket named no-such-bucket\.$/)]);

      const unset = await runVariants({ IMAGE_STORE: "s3" });
      expect(unset.code).toBe(1);
      expect(unset.stdout).toBe("");
      expect(unset.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^images:variants: Invalid environment: S3_BUCKET: is needed when IMAGE_STORE=s3/)]);
    },
    RUN_TIMEOUT_MS * 3,
  );
});
