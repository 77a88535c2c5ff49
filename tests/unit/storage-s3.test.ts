import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";

import { draftToFields, type EditorResult, type RecipeDraft } from "~/lib/recipe-form";
import { action as profileEditAction } from "~/routes/ReciPals.Account.Profile.$uid_.Edit";
import { action as editorAction } from "~/routes/ReciPals.Editor.$rid";
import * as recipesRoute from "~/routes/api.recipes";
import * as userRoute from "~/routes/api.users.$id";
import { loader as uploadsLoader } from "~/routes/uploads.$file";
import { db } from "~/server/db/connection.server";
import { IMAGE_MESSAGES, storeImage } from "~/server/media/images.server";
import { sweepOrphanUploads } from "~/server/media/uploads.server";
import {
  contentHash,
  imageStoreKind,
  listStoredFiles,
  setImageStore,
  storedNameOf,
  type ImageStoreChoice,
} from "~/server/media/storage.server";

import { startS3Server, type S3TestServer } from "../support/s3rver";
import { call, PNG_DATA_URL, snapshot } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { dataOf, makeUser, ORIGIN, routeArgs, settle, signedInCookie } from "../support/app";
import { useSetting } from "../support/settings";

// Photos in an S3 bucket (IMAGE_STORE=s3) on a real S3-compatible server (s3rver), never a mock:
// the pipeline writes there, /uploads/ serves from there (or redirects to S3_PUBLIC_URL), the
// sweep cleans there, an unreachable store refuses the whole save, and images:copy fills a bucket
// from a disk folder.

const ROOT = path.resolve(__dirname, "../..");
const DAY_MS = 24 * 60 * 60 * 1000;

let s3: S3TestServer;
/** The test's own client: what is in the bucket is checked without the app's storage module. */
let probe: S3Client;
/** A disk uploads folder that must stay empty while the store is S3. */
let diskUploads: string;
/** Process warnings seen since the first S3 client was made. */
const warnings: string[] = [];
const keepWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);

const storeOn = (server: S3TestServer, bucket = server.bucket, extra: Partial<ImageStoreChoice> = {}): ImageStoreChoice => ({
  kind: "s3",
  endpoint: server.endpoint,
  bucket,
  region: server.region,
  accessKeyId: server.accessKeyId,
  secretAccessKey: server.secretAccessKey,
  ...extra,
});

beforeAll(async () => {
  s3 = await startS3Server({ bucket: "photos", buckets: ["many", "copies", "copies-again"] });
  process.on("warning", keepWarning);
  probe = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  diskUploads = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-s3-disk-"));
  useSetting("UPLOADS_DIR", diskUploads);
  setImageStore(storeOn(s3));
});
afterEach(() => setImageStore(storeOn(s3)));
afterAll(async () => {
  process.off("warning", keepWarning);
  setImageStore(null);
  useSetting("UPLOADS_DIR", undefined);
  probe?.destroy();
  await s3?.stop();
  fs.rmSync(diskUploads, { recursive: true, force: true });
});

async function jpeg(width = 900, height = 600, color = "#c2410c"): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } }).jpeg().toBuffer();
}

/** A different picture at every call (so content-addressed names never collide between tests). */
let shade = 0;
async function freshJpeg(): Promise<Buffer> {
  shade += 1;
  const hex = (0x100000 + shade * 7919).toString(16).slice(-6);
  return jpeg(640 + (shade % 50), 480, `#${hex}`);
}

async function objectKeys(bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await probe.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken }));
    keys.push(...(page.Contents ?? []).map((object) => object.Key!));
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return keys.sort();
}

async function objectBytes(bucket: string, key: string): Promise<Buffer> {
  const answer = await probe.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}

const uploadsRequest = (name: string) => uploadsLoader(routeArgs(new Request(`${ORIGIN}/uploads/${name}`), { file: name }));

describe("photos in an S3 bucket", () => {
  it("stores an upload through the image pipeline in the bucket: main and card, WebP, cached for a year, nothing on disk", async () => {
    expect(imageStoreKind()).toBe("s3");
    const { url, cardUrl } = await storeImage(await jpeg(1600, 1200));
    const main = storedNameOf(url)!;
    const card = storedNameOf(cardUrl)!;
    expect(await objectKeys(s3.bucket)).toEqual(expect.arrayContaining([main, card]));
    for (const key of [main, card]) {
      const head = await probe.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
      expect(head.ContentType).toBe("image/webp");
      expect(head.CacheControl).toBe("public, max-age=31536000, immutable");
    }
    const mainBytes = await objectBytes(s3.bucket, main);
    expect(`${contentHash(mainBytes)}.webp`).toBe(main);
    expect(await sharp(mainBytes).metadata()).toMatchObject({ format: "webp", width: 800, height: 600 });
    expect(await sharp(await objectBytes(s3.bucket, card)).metadata()).toMatchObject({ format: "webp", width: 400, height: 300 });
    expect(fs.readdirSync(diskUploads)).toEqual([]);
  });

  it("serves /uploads/<name> from the bucket with the same headers as from disk", async () => {
    const { url, cardUrl } = await storeImage(await freshJpeg());
    for (const name of [storedNameOf(url)!, storedNameOf(cardUrl)!]) {
      const response = await uploadsRequest(name);
      expect(response.status).toBe(200);
      expect(response.headers.get("Content-Type")).toBe("image/webp");
      expect(response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(response.headers.get("Content-Security-Policy")).toBe("default-src 'none'");
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(response.headers.get("Content-Length")).toBe(String(bytes.byteLength));
      expect(bytes.equals(await objectBytes(s3.bucket, name))).toBe(true);
    }
  });

  it("answers 404 text for a name the bucket does not hold and for names storage never makes", async () => {
    for (const name of [`${"0".repeat(64)}.webp`, `${"1".repeat(64)}.card.webp`, "../../etc/passwd", "x.png", `${"a".repeat(63)}.webp`]) {
      const response = await uploadsRequest(name);
      expect(response.status).toBe(404);
      expect(response.headers.get("Cache-Control")).toBe("no-store");
      expect(await response.text()).toBe("Image not found.");
    }
  });

  it("redirects /uploads/<name> to S3_PUBLIC_URL when it is set (301), still 404 for names storage never makes", async () => {
    const { url } = await storeImage(await freshJpeg());
    const name = storedNameOf(url)!;
    setImageStore(storeOn(s3, s3.bucket, { publicUrl: "https://cdn.example.com/recipals/" }));
    const response = await uploadsRequest(name);
    expect(response.status).toBe(301);
    expect(response.headers.get("Location")).toBe(`https://cdn.example.com/recipals/${name}`);
    expect(response.headers.get("Cache-Control")).toBe("public, max-age=86400");
    expect((await uploadsRequest("../../etc/passwd")).status).toBe(404);
    // Without it, the app serves the bytes itself again.
    setImageStore(storeOn(s3));
    expect((await uploadsRequest(name)).status).toBe(200);
  });

  it("sweeps only old, unreferenced objects from the bucket (LastModified is the age)", async () => {
    const user = await makeUser();
    const kept = await storeImage(await freshJpeg());
    const orphan = await storeImage(await freshJpeg());
    await db.updateTable("users").set({ profile: kept.url }).where("id", "=", user.id).execute();
    const names = (image: { url: string; cardUrl: string }) => [storedNameOf(image.url)!, storedNameOf(image.cardUrl)!];

    // Everything was written a moment ago: nothing is old enough.
    expect(await sweepOrphanUploads()).toEqual([]);
    expect(await objectKeys(s3.bucket)).toEqual(expect.arrayContaining([...names(kept), ...names(orphan)]));

    // A day and a bit later: the orphan (main and card) goes, the referenced picture stays.
    const removed = await sweepOrphanUploads({ now: Date.now() + DAY_MS + 60_000 });
    expect(removed).toEqual(expect.arrayContaining(names(orphan)));
    expect(removed).not.toContain(names(kept)[0]);
    expect(removed).not.toContain(names(kept)[1]);
    const left = await objectKeys(s3.bucket);
    for (const name of names(orphan)) expect(left).not.toContain(name);
    expect(left).toEqual(expect.arrayContaining(names(kept)));
  });

  it("keeps the AWS SDK's Node-version warning out of the test output (it would be printed as an error)", async () => {
    // The SDK emits it, at most once per process, when a client is made; clients exist by now.
    expect((await objectKeys(s3.bucket)).length).toBeGreaterThan(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((warning) => /NodeVersionSupportWarning|AWS SDK/i.test(warning))).toEqual([]);
  });

  it("lists a bucket of more than one page (ListObjectsV2 is paginated at 1,000)", async () => {
    const bucket = "many";
    const keys = Array.from({ length: 1005 }, (_, i) => `${crypto.createHash("sha256").update(String(i)).digest("hex")}.webp`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((Key) => probe.send(new PutObjectCommand({ Bucket: bucket, Key, Body: "x" }))));
    }
    await probe.send(new PutObjectCommand({ Bucket: bucket, Key: "not-ours.txt", Body: "x" }));
    setImageStore(storeOn(s3, bucket));
    const files = await listStoredFiles();
    expect(files.map((file) => file.name).sort()).toEqual([...keys].sort());
    for (const file of files) expect(Math.abs(Date.now() - file.modifiedMs)).toBeLessThan(10 * 60_000);
  });
});

// ---------------------------------------------------------------------------------------------
// The store cannot be reached

describe("an image store that cannot be reached", () => {
  let down: S3TestServer;
  beforeAll(async () => {
    down = await startS3Server({ bucket: "gone" });
    await down.stop();
  });
  const useStoppedStore = () => setImageStore(storeOn(down));
  // What the operator reads in the log when a photo could not be stored: the store, the file, the reason.
  let warn: MockInstance<typeof console.warn>;
  beforeAll(() => {
    warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
  });
  afterAll(() => warn.mockRestore());
  const expectLogged = () => {
    expect(warn.mock.calls.map((args) => (JSON.parse(String(args[0])) as { msg: string }).msg).at(-1)).toMatch(
      new RegExp(`^The object store \\(${down.endpoint} bucket gone\\) could not store [0-9a-f]{64}\\.card\\.webp: .*ECONNREFUSED`),
    );
    warn.mockClear();
  };

  const goodDraft = (): RecipeDraft => ({
    name: "Storm Soup",
    description: "Made while the photo store was down.",
    sections: [{ id: "", title: "", ingredients: ["Water (1 l)", "Salt"] }],
    steps: ["Boil.", "Serve."],
    totalTime: "20min",
    serves: "2",
    tags: "Soup",
  });

  function editorForm(draft: RecipeDraft, extra: Record<string, string | Blob> = {}): FormData {
    const formData = new FormData();
    for (const [name, value] of draftToFields(draft)) formData.append(name, value);
    for (const [name, value] of Object.entries(extra)) formData.append(name, value);
    return formData;
  }

  async function submitEditor(rid: string, body: FormData, cookie: string) {
    const request = new Request(`${ORIGIN}/ReciPals/Editor/${rid}`, { method: "POST", body, headers: { Cookie: cookie } });
    return settle(() => editorAction(routeArgs(request, { rid })));
  }

  const photoFile = async () => new File([new Uint8Array(await freshJpeg())], "photo.jpg", { type: "image/jpeg" });

  it("the recipe editor says the photo could not be stored and writes no recipe or post (new recipe)", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    useStoppedStore();
    const before = await snapshot();
    const rid = crypto.randomUUID();
    const result = dataOf<EditorResult>(await submitEditor(rid, editorForm(goodDraft(), { intent: "save", photo: await photoFile() }), cookie));
    expect(result.status).toBe(503);
    expect(IMAGE_MESSAGES.notStored).toBe("The photo could not be stored. Please try again.");
    expect(result.data.kind).toBe("invalid");
    expect(result.data.formError).toBe(IMAGE_MESSAGES.notStored);
    expect(result.data.fieldErrors.photo).toBe(IMAGE_MESSAGES.notStored);
    // The form comes back as typed.
    expect(result.data.draft.name).toBe("Storm Soup");
    expect(result.data.draft.steps).toEqual(["Boil.", "Serve."]);
    expect(await snapshot()).toBe(before);
    expect(await db.selectFrom("recipes").select("id").where("id", "=", rid).executeTakeFirst()).toBeUndefined();
    expectLogged();
  });

  it("the recipe editor changes nothing of an existing recipe whose new photo could not be stored", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const { recipeId } = await makeRecipeWithPost({ userId: user.id, name: "Before" });
    useStoppedStore();
    const before = await snapshot();
    const draft = { ...goodDraft(), name: "After" };
    const result = dataOf<EditorResult>(await submitEditor(recipeId, editorForm(draft, { intent: "save", mode: "edit", photo: await photoFile() }), cookie));
    expect(result.status).toBe(503);
    expect(result.data.formError).toBe(IMAGE_MESSAGES.notStored);
    expect(result.data.draft.name).toBe("After");
    expect(await snapshot()).toBe(before);
    expectLogged();
  });

  it("a row button without JavaScript keeps the draft and says the chosen photo could not be stored", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    useStoppedStore();
    const before = await snapshot();
    const result = dataOf<EditorResult>(await submitEditor(crypto.randomUUID(), editorForm(goodDraft(), { intent: "add-step", photo: await photoFile() }), cookie));
    expect(result.status).toBe(503);
    expect(result.data.kind).toBe("draft");
    expect(result.data.fieldErrors.photo).toBe(IMAGE_MESSAGES.notStored);
    expect(result.data.pendingPhoto).toBeNull();
    expect(result.data.draft.steps).toEqual(["Boil.", "Serve.", ""]);
    expect(await snapshot()).toBe(before);
    expectLogged();
  });

  it("the profile editor says so and leaves the profile as it was", async () => {
    const user = await makeUser({ name: "Still Me" });
    const cookie = await signedInCookie(user.id);
    useStoppedStore();
    const before = await snapshot();
    const body = new FormData();
    for (const [name, value] of Object.entries({ name: "New Name", username: user.username, password: "", role: "USER", bio: "", adminPassword: "" })) body.append(name, value);
    body.append("photo", await photoFile());
    const request = new Request(`${ORIGIN}/ReciPals/Account/Profile/${user.id}/Edit`, { method: "POST", body, headers: { Cookie: cookie } });
    const result = dataOf<{ formError: string | null; fieldErrors: Record<string, string>; fields: Record<string, string> }>(
      await settle(() => profileEditAction(routeArgs(request, { uid: user.id }))),
    );
    expect(result.status).toBe(503);
    expect(result.data.formError).toBe(IMAGE_MESSAGES.notStored);
    expect(result.data.fieldErrors).toEqual({ photo: IMAGE_MESSAGES.notStored });
    expect(result.data.fields.name).toBe("New Name");
    expect(await snapshot()).toBe(before);
    expectLogged();
  });

  it("the API answers 503 JSON with the message and writes nothing (recipe with a data URL photo, profile picture)", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    useStoppedStore();
    const before = await snapshot();
    const created = await call(recipesRoute, "POST", "/api/recipes", {
      cookie,
      body: {
        recipe_id: crypto.randomUUID(),
        name: "API Soup",
        description: "Sent with a photo.",
        ingredients_sec: [{ title: "", ingredients: ["Water"] }],
        steps: ["Boil."],
        photo: PNG_DATA_URL,
      },
    });
    expect(created.status).toBe(503);
    expect(created.body).toEqual({ message: IMAGE_MESSAGES.notStored, errors: { photo: IMAGE_MESSAGES.notStored } });

    const profile = await call(userRoute, "PUT", `/api/users/${user.id}`, { cookie, params: { id: user.id }, body: { name: "Renamed", profile: PNG_DATA_URL } });
    expect(profile.status).toBe(503);
    expect(profile.body.message).toBe(IMAGE_MESSAGES.notStored);
    expect(await snapshot()).toBe(before);
    expectLogged();
  });
});

// ---------------------------------------------------------------------------------------------
// npm run images:copy

describe("images:copy", () => {
  function runCopy(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [path.join(ROOT, "scripts/images-copy.js"), ...args],
        { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  }

  let from: string;
  let files: Map<string, Buffer>;
  beforeAll(async () => {
    from = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-copy-from-"));
    files = new Map();
    for (let i = 0; i < 3; i += 1) {
      const bytes = await sharp({ create: { width: 40 + i, height: 30, channels: 3, background: "#166534" } }).webp().toBuffer();
      const hash = contentHash(bytes);
      files.set(`${hash}.webp`, bytes);
      files.set(`${hash}.card.webp`, bytes);
    }
    for (const [name, bytes] of files) fs.writeFileSync(path.join(from, name), bytes);
    // Not stored files: never copied.
    fs.writeFileSync(path.join(from, ".partial.tmp"), "x");
    fs.writeFileSync(path.join(from, "notes.txt"), "x");
  });
  afterAll(() => fs.rmSync(from, { recursive: true, force: true }));

  it("copies every stored file of a disk folder into the bucket, then finds them all there on a second run", async () => {
    const env = { ...s3.env, S3_BUCKET: "copies" };
    const first = await runCopy(["--from", from], env);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Done: 6 copied, 0 already there, 6 in total.");
    expect(first.stdout.match(/\] copied: /g)).toHaveLength(6);
    expect(await objectKeys("copies")).toEqual([...files.keys()].sort());
    for (const [name, bytes] of files) {
      expect((await objectBytes("copies", name)).equals(bytes)).toBe(true);
      const head = await probe.send(new HeadObjectCommand({ Bucket: "copies", Key: name }));
      expect(head.ContentType).toBe("image/webp");
      expect(head.CacheControl).toBe("public, max-age=31536000, immutable");
    }

    const second = await runCopy([`--from=${from}`], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("Done: 0 copied, 6 already there, 6 in total.");
    expect(await objectKeys("copies")).toEqual([...files.keys()].sort());
  });

  it("copies only what is missing when the bucket already holds some", async () => {
    const [present] = [...files.keys()];
    await probe.send(new PutObjectCommand({ Bucket: "copies-again", Key: present!, Body: files.get(present!)! }));
    const result = await runCopy(["--from", from], { ...s3.env, S3_BUCKET: "copies-again" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Done: 5 copied, 1 already there, 6 in total.");
    expect(await objectKeys("copies-again")).toEqual([...files.keys()].sort());
  });

  it("stops with one line when IMAGE_STORE is not s3, or the store cannot be reached", async () => {
    const disk = await runCopy(["--from", from], { IMAGE_STORE: "disk" });
    expect(disk.code).toBe(1);
    expect(disk.stdout).toBe("");
    expect(disk.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^images:copy: IMAGE_STORE is not s3/)]);

    const down = await startS3Server({ bucket: "gone" });
    await down.stop();
    const unreachable = await runCopy(["--from", from], down.env);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stdout).toBe("");
    expect(unreachable.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^images:copy: The object store .*could not be reached.*ECONNREFUSED/)]);

    const noBucket = await runCopy(["--from", from], { ...s3.env, S3_BUCKET: "no-such-bucket" });
    expect(noBucket.code).toBe(1);
    expect(noBucket.stderr.trim()).toMatch(/^images:copy: .*has no bucket named no-such-bucket\.$/);
  });
});
