// Browser-side photo downsizing before upload (docs/rules.md#images; our own bundled code,
// no worker or script from a CDN). A phone photo of 4–10 MB becomes a few hundred KB before it
// leaves the device; the server still decodes, shrinks and re-encodes everything it receives.
// Also the URL helpers for stored images and their card variants (pure, safe on the server).

export const DOWNSIZE_DEFAULTS = {
  maxSide: 800,
  maxBytes: 500 * 1024,
  maxTries: 10,
  firstQuality: 0.9,
  qualityStep: 0.08,
} as const;

export type DownsizeOptions = Partial<{ -readonly [K in keyof typeof DOWNSIZE_DEFAULTS]: number }>;

function canvasToBlob(canvas: HTMLCanvasElement, type: string, quality: number): Promise<Blob | null> {
  return new Promise((resolve) => canvas.toBlob(resolve, type, quality));
}

async function decode(file: Blob): Promise<{ source: CanvasImageSource; width: number; height: number; close: () => void }> {
  if (typeof createImageBitmap === "function") {
    // `from-image` applies the EXIF orientation, as the server's .rotate() does.
    const bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    return { source: bitmap, width: bitmap.width, height: bitmap.height, close: () => bitmap.close() };
  }
  const url = URL.createObjectURL(file);
  try {
    const image = new Image();
    image.decoding = "async";
    image.src = url;
    await image.decode();
    return { source: image, width: image.naturalWidth, height: image.naturalHeight, close: () => undefined };
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * Returns a smaller copy of an image file (longer side ≤ maxSide, ≤ maxBytes when reachable,
 * lowering the quality step by step), or null when the browser cannot decode it or the copy
 * would not be smaller: the caller then sends the original and lets the server decide.
 */
export async function downsizeImage(file: File, options: DownsizeOptions = {}): Promise<File | null> {
  const settings = { ...DOWNSIZE_DEFAULTS, ...options };
  if (typeof document === "undefined" || !file.type.startsWith("image/")) return null;
  let decoded: Awaited<ReturnType<typeof decode>>;
  try {
    decoded = await decode(file);
  } catch {
    return null;
  }
  try {
    const scale = Math.min(1, settings.maxSide / Math.max(decoded.width, decoded.height));
    const width = Math.max(1, Math.round(decoded.width * scale));
    const height = Math.max(1, Math.round(decoded.height * scale));
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext("2d");
    if (!context) return null;
    context.imageSmoothingEnabled = true;
    context.imageSmoothingQuality = "high";
    context.drawImage(decoded.source, 0, 0, width, height);

    let type = "image/webp";
    let quality = settings.firstQuality;
    let blob: Blob | null = null;
    for (let attempt = 0; attempt < settings.maxTries; attempt += 1) {
      blob = await canvasToBlob(canvas, type, quality);
      if (!blob) return null;
      // Browsers without a WebP encoder hand back PNG: switch to JPEG, which every one has.
      if (blob.type !== type) {
        type = "image/jpeg";
        blob = await canvasToBlob(canvas, type, quality);
        if (!blob) return null;
      }
      if (blob.size <= settings.maxBytes) break;
      quality = Math.max(0.1, quality - settings.qualityStep);
    }
    if (!blob || blob.size >= file.size) return null;
    const extension = type === "image/webp" ? "webp" : "jpg";
    const baseName = file.name.replace(/\.[^.]*$/, "") || "photo";
    return new File([blob], `${baseName}.${extension}`, { type, lastModified: Date.now() });
  } catch {
    return null;
  } finally {
    decoded.close();
  }
}
