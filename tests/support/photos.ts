import sharp from "sharp";

/**
 * A camera-like JPEG: smooth shapes and light (what photos are mostly made of) with a little
 * sensor grain, so it compresses the way a phone photo does — pure noise would not, and a flat
 * colour would be a few KB. The defaults (3000×2000, quality 94) make a JPEG of about 2 MB; a
 * PNG without grain is an edited or exported picture (1600×1200: ~0.8 MB).
 */
export async function cameraPhoto({
  width = 3000,
  height = 2000,
  quality = 94,
  seed = 1,
  grain = 24,
  format = "jpeg",
}: { width?: number; height?: number; quality?: number; seed?: number; grain?: number; format?: "jpeg" | "png" } = {}): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed * 2654435761;
  const random = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  // A few soft blobs of colour over a sky-to-ground gradient.
  const blobs = Array.from({ length: 7 }, () => ({
    x: random() * width,
    y: random() * height,
    r: (0.1 + random() * 0.3) * Math.min(width, height),
    color: [random() * 255, random() * 255, random() * 255],
  }));
  for (let y = 0; y < height; y++) {
    const t = y / height;
    for (let x = 0; x < width; x++) {
      let red = 200 - 120 * t + 20 * Math.sin(x / 97);
      let green = 180 - 60 * t + 15 * Math.sin((x + y) / 151);
      let blue = 230 - 170 * t + 10 * Math.cos(y / 83);
      for (const blob of blobs) {
        const d = Math.hypot(x - blob.x, y - blob.y) / blob.r;
        if (d < 1) {
          const weight = (1 - d * d) * 0.8;
          red += (blob.color[0]! - red) * weight;
          green += (blob.color[1]! - green) * weight;
          blue += (blob.color[2]! - blue) * weight;
        }
      }
      const noise = grain === 0 ? 0 : (random() - 0.5) * grain;
      const at = (y * width + x) * 3;
      pixels[at] = Math.max(0, Math.min(255, red + noise));
      pixels[at + 1] = Math.max(0, Math.min(255, green + noise));
      pixels[at + 2] = Math.max(0, Math.min(255, blue + noise));
    }
  }
  const image = sharp(pixels, { raw: { width, height, channels: 3 } });
  return format === "png" ? image.png().toBuffer() : image.jpeg({ quality }).toBuffer();
}
