// What app/server/media/storage.server.ts asks of a place that keeps uploaded files. Two live side by
// side: the uploads folder (disk.server.ts) and an S3-compatible bucket (s3.server.ts). Names
// reaching a store were already checked by storage.server.ts (`<sha256>.webp`, `<sha256>.card.webp`,
// `<sha256>.avif` …).

export interface StoredFile {
  name: string;
  /** When the file was written (ms since the epoch): the orphan sweep's age. */
  modifiedMs: number;
}

export interface FileStore {
  /** Writes the bytes under `name`; a file already there has the same content (names are content hashes). */
  write(name: string, bytes: Uint8Array): Promise<void>;
  /** The bytes, or null when there is no such file. */
  read(name: string): Promise<Buffer | null>;
  exists(name: string): Promise<boolean>;
  /** Removes the file; one already gone is fine. */
  remove(name: string): Promise<void>;
  /** Every file the store holds that has a stored name, with its age. */
  list(): Promise<StoredFile[]>;
  /** Resolves when the store answers (a bucket that exists, keys that work); tools check before they start. */
  check(): Promise<void>;
  /** Lets go of connections (a store replaced by a test or a tool). */
  close(): void;
}

/**
 * The store could not be reached or refused to work (network down, wrong credentials, no such
 * bucket). Not "no such file": a missing file is null/false. Callers tell the user to try again.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreUnavailableError";
  }
}

/**
 * The media type of stored image bytes, from their header: AVIF (an ISO file whose brand is
 * `avif`) or WebP. Read from the bytes, not the name: an AVIF name holds the WebP copy's bytes
 * when AVIF would not have been smaller (app/server/media/images.server.ts).
 */
export function storedImageType(bytes: Uint8Array): "image/avif" | "image/webp" {
  const brand = Buffer.from(bytes.subarray(4, 12)).toString("latin1");
  return brand === "ftypavif" ? "image/avif" : "image/webp";
}
