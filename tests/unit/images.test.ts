import fs from "node:fs";
import path from "node:path";

import sharp from "sharp";
import { describe, expect, it } from "vitest";

import { cardImageUrl, imageSrcSet } from "~/lib/photos";
import { loader as uploadsLoader } from "~/routes/uploads.$file";
import { db } from "~/server/db/connection.server";
import { imageDecodes, IMAGE_MESSAGES, ImageError, isStoredImageUrl, processImage, storeImage } from "~/server/media/images.server";
import { deleteImageIfUnreferenced, sweepOrphanUploads } from "~/server/media/uploads.server";
import { UPLOAD_MESSAGES } from "~/lib/upload-limits";
import { FormReadError, readMultipartForm, readMultipartFormLenient } from "~/server/http/multipart.server";
import { storedNameOf, uploadsDir } from "~/server/media/storage.server";

import { makeUser, routeArgs } from "../support/app";
import { useScratchUploads, useSetting } from "../support/settings";

const scratch = useScratchUploads("images");

/** A 4000×3000 photo-like JPEG: smooth colour gradients under heavy grain, as a phone takes them. */
async function photoLike(width = 4000, height = 3000, options: { orientation?: number } = {}): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#c2410c"/><stop offset="0.5" stop-color="#fde68a"/><stop offset="1" stop-color="#166534"/></linearGradient>
    <radialGradient id="r"><stop offset="0" stop-color="#fff" stop-opacity="0.8"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2}" r="${height / 3}" fill="url(#r)"/></svg>`;
  // Grain at a quarter of the size, scaled up: detail survives the shrink to 800 px, as in a real photo.
  const grain = await sharp({
    create: { width: width / 4, height: height / 4, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 70 } },
  })
    .resize(width, height, { kernel: "nearest" })
    .png()
    .toBuffer();
  let image = sharp(Buffer.from(svg)).composite([{ input: grain, blend: "overlay" }]);
  if (options.orientation) image = image.withMetadata({ orientation: options.orientation });
  return image.jpeg({ quality: 92 }).toBuffer();
}

function multipart(fields: Record<string, string | Blob>, headers: Record<string, string> = {}): Request {
  const formData = new FormData();
  for (const [name, value] of Object.entries(fields)) formData.append(name, value);
  return new Request("http://localhost:4000/x", { method: "POST", body: formData, headers });
}

describe("image pipeline", () => {
  it("turns a 4000×3000 photo into ≤ 800 px and ≤ 0.5 MB WebP, with a ~400 px card", async () => {
    const input = await photoLike();
    expect(input.byteLength).toBeGreaterThan(1_000_000);
    const started = performance.now();
    const { url, cardUrl } = await storeImage(input);
    const elapsed = performance.now() - started;
    expect(url).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    expect(cardUrl).toBe(cardImageUrl(url));
    const main = fs.readFileSync(path.join(scratch.dir, storedNameOf(url)!));
    const card = fs.readFileSync(path.join(scratch.dir, storedNameOf(cardUrl)!));
    const mainMeta = await sharp(main).metadata();
    const cardMeta = await sharp(card).metadata();
    expect(mainMeta.format).toBe("webp");
    expect([mainMeta.width, mainMeta.height]).toEqual([800, 600]);
    expect(main.byteLength).toBeLessThanOrEqual(500 * 1024);
    expect([cardMeta.width, cardMeta.height]).toEqual([400, 300]);
    expect(card.byteLength).toBeLessThan(main.byteLength);
    console.info(
      `pipeline: ${(input.byteLength / 1e6).toFixed(2)} MB 4000×3000 JPEG → ${(main.byteLength / 1024).toFixed(0)} KB 800×600 + ` +
        `${(card.byteLength / 1024).toFixed(0)} KB card in ${elapsed.toFixed(0)} ms`,
    );
  });

  it("lowers the quality step by step until the size fits, and says so when it never does", async () => {
    const input = await photoLike(1600, 1200);
    const relaxed = await processImage(input);
    const squeezed = await processImage(input, { maxBytes: Math.floor(relaxed.main.byteLength * 0.6) });
    expect(squeezed.tries).toBeGreaterThan(1);
    expect(squeezed.tries).toBeLessThanOrEqual(10);
    expect(squeezed.quality).toBeLessThan(relaxed.quality);
    expect(squeezed.main.byteLength).toBeLessThanOrEqual(relaxed.main.byteLength * 0.6);
    const impossible = processImage(input, { maxBytes: 1000 });
    await expect(impossible).rejects.toBeInstanceOf(ImageError);
    await expect(impossible).rejects.toMatchObject({ message: IMAGE_MESSAGES.cannotShrink, status: 413 });
  });

  it("applies the EXIF orientation and strips the metadata", async () => {
    const input = await photoLike(1200, 800, { orientation: 6 });
    expect((await sharp(input).metadata()).orientation).toBe(6);
    const { main } = await processImage(input);
    const meta = await sharp(main).metadata();
    expect(meta.height).toBe(800);
    expect(meta.width).toBeGreaterThanOrEqual(533);
    expect(meta.width).toBeLessThanOrEqual(534);
    expect(meta.orientation).toBeUndefined();
    expect(meta.exif).toBeUndefined();
    expect(meta.icc).toBeUndefined();
  });

  it("never enlarges a small picture and keeps transparency", async () => {
    const png = await sharp({ create: { width: 120, height: 90, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } })
      .png()
      .toBuffer();
    const { main, width, height } = await processImage(png);
    expect([width, height]).toEqual([120, 90]);
    expect((await sharp(main).metadata()).hasAlpha).toBe(true);
  });

  it("refuses a text file, an empty file, an SVG and a corrupt image with clear messages", async () => {
    const cases: [Uint8Array, string][] = [
      [Buffer.from("just some notes, not a picture\n".repeat(20)), IMAGE_MESSAGES.notAnImage],
      [new Uint8Array(0), IMAGE_MESSAGES.notAnImage],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), IMAGE_MESSAGES.notAnImage],
      [(await photoLike(400, 300)).subarray(0, 2000), IMAGE_MESSAGES.failed],
    ];
    for (const [input, message] of cases) {
      await expect(storeImage(input)).rejects.toMatchObject({ name: "ImageError", message, status: 400 });
    }
    expect(fs.readdirSync(scratch.dir).filter((name) => !name.startsWith("."))).toHaveLength(11); // only the first test's photo and its ten copies (card, placeholder, three widths, five AVIF twins)
  });

  it("refuses pictures with too many pixels before decoding them", async () => {
    const huge = await sharp({ create: { width: 9000, height: 8000, channels: 3, background: "#fff" } }).png().toBuffer();
    await expect(processImage(huge)).rejects.toMatchObject({ message: IMAGE_MESSAGES.tooManyPixels, status: 413 });
  });

  it("decodes at most 4 pictures at once in a process, whoever asks; the rest wait their turn and all finish", async () => {
    const photo = await sharp({ create: { width: 2400, height: 1800, channels: 3, background: "#8a5a2b" } }).jpeg().toBuffer();
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, imageDecodes.running)), 1);
    try {
      const results = await Promise.all(Array.from({ length: 12 }, () => processImage(photo)));
      expect(results).toHaveLength(12);
    } finally {
      clearInterval(watch);
    }
    expect(most).toBe(4);
    expect(imageDecodes.running).toBe(0);
    expect(imageDecodes.waiting).toBe(0);
  });

  it("is content-addressed: the same picture twice gives the same URL", async () => {
    const input = await photoLike(800, 600);
    const first = await storeImage(input);
    const second = await storeImage(input);
    expect(second).toEqual(first);
    expect(await isStoredImageUrl(first.url)).toBe(true);
    expect(await isStoredImageUrl(first.cardUrl)).toBe(false);
    expect(await isStoredImageUrl("/uploads/../../etc/passwd")).toBe(false);
    expect(await isStoredImageUrl(`/uploads/${"a".repeat(64)}.webp`)).toBe(false);
    expect(await isStoredImageUrl("https://example.com/x.webp")).toBe(false);
  });
});

describe("deleting unused images", () => {
  it("deletes a stored image and its card only when nothing refers to it", async () => {
    const user = await makeUser();
    const { url, cardUrl } = await storeImage(await photoLike(640, 480));
    await db.updateTable("users").set({ profile: url }).where("id", "=", user.id).execute();
    expect(await deleteImageIfUnreferenced(url)).toBe(false);
    expect(fs.existsSync(path.join(scratch.dir, storedNameOf(url)!))).toBe(true);
    await db.updateTable("users").set({ profile: "/images/profile.png" }).where("id", "=", user.id).execute();
    expect(await deleteImageIfUnreferenced(url)).toBe(true);
    expect(fs.existsSync(path.join(scratch.dir, storedNameOf(url)!))).toBe(false);
    expect(fs.existsSync(path.join(scratch.dir, storedNameOf(cardUrl)!))).toBe(false);
  });

  it("leaves default pictures and external URLs alone", async () => {
    expect(await deleteImageIfUnreferenced("/images/noodleDish.png")).toBe(false);
    expect(await deleteImageIfUnreferenced("https://www.themealdb.com/images/x.jpg")).toBe(false);
    expect(await deleteImageIfUnreferenced(null)).toBe(false);
  });

  it("sweeps old orphans but keeps young ones and referenced ones", async () => {
    const user = await makeUser();
    const kept = await storeImage(await photoLike(320, 240));
    const orphan = await storeImage(await photoLike(336, 252));
    await db.updateTable("users").set({ profile: kept.url }).where("id", "=", user.id).execute();
    expect(await sweepOrphanUploads()).toEqual([]); // everything is young
    const removed = await sweepOrphanUploads({ olderThanMs: 0 });
    expect(removed).toContain(storedNameOf(orphan.url));
    expect(removed).toContain(storedNameOf(orphan.cardUrl));
    expect(removed).not.toContain(storedNameOf(kept.url));
    expect(await isStoredImageUrl(kept.url)).toBe(true);
  });
});

describe("reading multipart forms", () => {
  it("reads text fields and a file", async () => {
    const formData = await readMultipartForm(multipart({ name: "Soup", photo: new File([Buffer.from("abc")], "a.jpg", { type: "image/jpeg" }) }));
    expect(formData.get("name")).toBe("Soup");
    const photo = formData.get("photo") as File;
    expect(photo.name).toBe("a.jpg");
    expect(photo.size).toBe(3);
  });

  it("treats an empty file input as no file", async () => {
    // What a browser sends for a file input left empty.
    const body =
      '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nSoup\r\n' +
      '--b\r\nContent-Disposition: form-data; name="photo"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n\r\n--b--\r\n';
    const request = new Request("http://localhost:4000/x", {
      method: "POST",
      body,
      headers: { "Content-Type": "multipart/form-data; boundary=b" },
    });
    const formData = await readMultipartForm(request);
    expect(formData.get("name")).toBe("Soup");
    expect(formData.has("photo")).toBe(false);
  });

  it("refuses a file over 10 MB with 413", async () => {
    const big = new File([new Uint8Array(10 * 1024 * 1024 + 1)], "big.jpg", { type: "image/jpeg" });
    await expect(readMultipartForm(multipart({ photo: big }))).rejects.toMatchObject({ message: IMAGE_MESSAGES.tooLarge, status: 413 });
    // The lenient reader keeps the other fields and names the refused file instead.
    const lenient = await readMultipartFormLenient(multipart({ name: "Soup", photo: big, after: "kept" }));
    expect(lenient.oversizedFiles).toEqual(["photo"]);
    expect(lenient.formData.get("name")).toBe("Soup");
    expect(lenient.formData.get("after")).toBe("kept");
    expect(lenient.formData.has("photo")).toBe(false);
  });

  it("honours a smaller per-file limit", async () => {
    const file = new File([new Uint8Array(2048)], "a.png", { type: "image/png" });
    await expect(readMultipartForm(multipart({ photo: file }), { maxFileBytes: 1024 })).rejects.toMatchObject({ status: 413 });
  });

  it("refuses a body declared too large without reading it", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const request = new Request("http://localhost:4000/x", {
      method: "POST",
      body,
      headers: { "Content-Type": "multipart/form-data; boundary=x", "Content-Length": String(100 * 1024 * 1024) },
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    await expect(readMultipartForm(request)).rejects.toMatchObject({ status: 413 });
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it("stops an endless body at the cap even without Content-Length", async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 65536;
        controller.enqueue(new Uint8Array(65536).fill(97));
      },
    });
    const request = new Request("http://localhost:4000/x", {
      method: "POST",
      body,
      headers: { "Content-Type": "multipart/form-data; boundary=----x" },
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    await expect(readMultipartForm(request)).rejects.toBeInstanceOf(FormReadError);
    expect(sent).toBeLessThan(30 * 1024 * 1024);
  });

  it("refuses an over-long text field and too many parts", async () => {
    await expect(readMultipartForm(multipart({ name: "x".repeat(200 * 1024) }))).rejects.toMatchObject({
      message: UPLOAD_MESSAGES.formTooLarge,
      status: 413,
    });
    const formData = new FormData();
    for (let i = 0; i < 2500; i += 1) formData.append("step", "x");
    await expect(readMultipartForm(new Request("http://localhost:4000/x", { method: "POST", body: formData }))).rejects.toMatchObject({
      status: 413,
    });
  });

  it("also reads urlencoded forms", async () => {
    const request = new Request("http://localhost:4000/x", {
      method: "POST",
      body: new URLSearchParams({ intent: "delete", confirm: "yes" }),
    });
    const formData = await readMultipartForm(request);
    expect(formData.get("intent")).toBe("delete");
  });

  it("answers a malformed body with 400", async () => {
    const request = new Request("http://localhost:4000/x", {
      method: "POST",
      body: "--zzz\r\nno colon in this header line\r\n\r\nvalue\r\n--zzz--\r\n",
      headers: { "Content-Type": "multipart/form-data; boundary=zzz" },
    });
    await expect(readMultipartForm(request)).rejects.toMatchObject({ status: 400 });
  });
});

describe("serving uploads", () => {
  it("serves stored images as immutable WebP and 404s anything else", async () => {
    const { url, cardUrl } = await storeImage(await photoLike(500, 400));
    for (const target of [url, cardUrl]) {
      const response = await uploadsLoader(routeArgs(new Request(`http://localhost:4000${target}`), { file: storedNameOf(target)! }));
      expect(response.status).toBe(200);
      expect(response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("Content-Type")).toBe("image/webp");
      expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
      const bytes = Buffer.from(await response.arrayBuffer());
      expect((await sharp(bytes).metadata()).format).toBe("webp");
    }
    for (const file of ["../../etc/passwd", `${"0".repeat(64)}.webp`, "x.png", ".secret", `${"a".repeat(63)}.webp`]) {
      const response = await uploadsLoader(routeArgs(new Request("http://localhost:4000/uploads/x"), { file }));
      expect(response.status).toBe(404);
      expect(response.headers.get("Cache-Control")).toBe("no-store");
    }
  });

  it("stores every copy a srcset names, each as wide as it says, and makes a missing one when asked for it", async () => {
    const { url } = await storeImage(await photoLike(3000, 2000));
    const hash = storedNameOf(url)!.slice(0, 64);
    const named = imageSrcSet(url)!
      .split(", ")
      .map((entry) => entry.split(" ") as [string, string]);
    expect(named).toHaveLength(5);
    for (const [src, descriptor] of named) {
      const response = await uploadsLoader(routeArgs(new Request(`http://localhost:4000${src}`), { file: storedNameOf(src)! }));
      expect(response.status, src).toBe(200);
      const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
      expect([src, meta.format, `${meta.width}w`]).toEqual([src, "webp", descriptor]);
    }
    const sizes = named.map(([src]) => fs.statSync(path.join(scratch.dir, storedNameOf(src)!)).size);
    expect([...sizes].sort((a, b) => a - b)).toEqual(sizes); // narrower copies are smaller
    // A photo stored before copies existed: the copy is made from it on first request, and kept.
    const lost = path.join(scratch.dir, `${hash}.w480.webp`);
    fs.rmSync(lost);
    const again = await uploadsLoader(routeArgs(new Request(`http://localhost:4000/uploads/${hash}.w480.webp`), { file: `${hash}.w480.webp` }));
    expect(again.status).toBe(200);
    expect((await sharp(Buffer.from(await again.arrayBuffer())).metadata()).width).toBe(480);
    expect(fs.existsSync(lost)).toBe(true);
    // No photo, no copy: nothing is made up.
    const none = await uploadsLoader(routeArgs(new Request("http://localhost:4000/x"), { file: `${"c".repeat(64)}.w320.webp` }));
    expect(none.status).toBe(404);
    // Deleting the photo takes every copy with it.
    expect(await deleteImageIfUnreferenced(url)).toBe(true);
    expect(fs.readdirSync(scratch.dir).filter((name) => name.startsWith(hash))).toEqual([]);
  });

  it("gives every copy an AVIF twin, served as AVIF at well under the WebP's bytes, made when missing; a flat picture's twin stays WebP", async () => {
    const { url } = await storeImage(await photoLike(3000, 2000));
    const hash = storedNameOf(url)!.slice(0, 64);
    const webp = imageSrcSet(url)!.split(", ").map((entry) => entry.split(" ")[0]!);
    const avif = imageSrcSet(url, "avif")!.split(", ").map((entry) => entry.split(" ") as [string, string]);
    expect(avif.map(([src]) => src)).toEqual(webp.map((src) => src.replace(/\.webp$/, ".avif")));
    for (const [index, [src, descriptor]] of avif.entries()) {
      const response = await uploadsLoader(routeArgs(new Request(`http://localhost:4000${src}`), { file: storedNameOf(src)! }));
      expect(response.status, src).toBe(200);
      expect(response.headers.get("Content-Type")).toBe("image/avif");
      expect(response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      const bytes = Buffer.from(await response.arrayBuffer());
      const meta = await sharp(bytes).metadata();
      expect([src, meta.format, `${meta.width}w`]).toEqual([src, "heif", descriptor]);
      const webpBytes = fs.statSync(path.join(scratch.dir, storedNameOf(webp[index])!)).size;
      expect(bytes.byteLength, src).toBeLessThan(webpBytes * 0.8);
    }
    // A photo stored before AVIF copies existed: the twin is made on first request, and kept.
    const lost = path.join(scratch.dir, `${hash}.w640.avif`);
    fs.rmSync(lost);
    const again = await uploadsLoader(routeArgs(new Request(`http://localhost:4000/uploads/${hash}.w640.avif`), { file: `${hash}.w640.avif` }));
    expect([again.status, again.headers.get("Content-Type")]).toEqual([200, "image/avif"]);
    expect(fs.existsSync(lost)).toBe(true);
    // No placeholder in AVIF, and an AVIF name is never a photo of its own (a form cannot send one as its photo).
    const tiny = await uploadsLoader(routeArgs(new Request("http://localhost:4000/x"), { file: `${hash}.tiny.avif` }));
    expect(tiny.status).toBe(404);
    expect(await isStoredImageUrl(`/uploads/${hash}.avif`)).toBe(false);
    expect(cardImageUrl(`/uploads/${hash}.avif`)).toBeNull();

    // A flat drawing is smaller as WebP: its "AVIF" names hold the WebP copy, served as what it is.
    const flat = await storeImage(await sharp({ create: { width: 600, height: 400, channels: 3, background: "#e9d5b0" } }).png().toBuffer());
    const flatHash = storedNameOf(flat.url)!.slice(0, 64);
    const twin = await uploadsLoader(routeArgs(new Request("http://localhost:4000/x"), { file: `${flatHash}.card.avif` }));
    expect(twin.headers.get("Content-Type")).toBe("image/webp");
    expect(Buffer.from(await twin.arrayBuffer()).equals(fs.readFileSync(path.join(scratch.dir, `${flatHash}.card.webp`)))).toBe(true);
    // Made again later (lost, or a photo from before the twins): the stored WebP copy itself (here a
    // lossless one, so a re-encoding would show), not a second encoding of it.
    const storedCard = await sharp({ create: { width: 400, height: 267, channels: 3, background: "#e9d5b0" } }).webp({ lossless: true }).toBuffer();
    fs.writeFileSync(path.join(scratch.dir, `${flatHash}.card.webp`), storedCard);
    fs.rmSync(path.join(scratch.dir, `${flatHash}.card.avif`));
    const remade = await uploadsLoader(routeArgs(new Request("http://localhost:4000/x"), { file: `${flatHash}.card.avif` }));
    expect(Buffer.from(await remade.arrayBuffer()).equals(storedCard)).toBe(true);
  });

  it("gives stored images a srcset with every copy, narrowest first, and nothing for other pictures", () => {
    const hash = "b".repeat(64);
    const url = `/uploads/${hash}.webp`;
    expect(imageSrcSet(url)).toBe(
      `/uploads/${hash}.w320.webp 320w, /uploads/${hash}.card.webp 400w, /uploads/${hash}.w480.webp 480w, /uploads/${hash}.w640.webp 640w, ${url} 800w`,
    );
    expect(imageSrcSet(url, "avif")).toBe(
      `/uploads/${hash}.w320.avif 320w, /uploads/${hash}.card.avif 400w, /uploads/${hash}.w480.avif 480w, /uploads/${hash}.w640.avif 640w, /uploads/${hash}.avif 800w`,
    );
    expect(imageSrcSet("/images/noodleDish.png")).toBeUndefined();
    expect(cardImageUrl("https://example.com/a.webp")).toBeNull();
  });

  it("keeps uploads under the data directory by default", () => {
    useSetting("UPLOADS_DIR", undefined);
    expect(uploadsDir()).toMatch(/[\\/]uploads$/);
    useSetting("UPLOADS_DIR", scratch.dir);
  });
});
