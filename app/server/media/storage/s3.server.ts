import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";

import { storedImageType, StoreUnavailableError, type FileStore, type StoredFile } from "./store.server";

// Uploads in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, s3rver in tests), through the
// AWS SDK. Objects are named exactly like the files on disk, at the bucket's top level.

export interface S3StoreSettings {
  /** The S3 API's address (MinIO, s3rver…); left out, the SDK's AWS address for `region`. */
  endpoint?: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where browsers fetch the objects (a CDN or the bucket's public address): /uploads/ redirects there. */
  publicUrl?: string;
}

// Names are content hashes: an object's bytes never change, so anyone may keep them for a year.
const CACHE_CONTROL = "public, max-age=31536000, immutable";

export function s3Store(settings: S3StoreSettings): FileStore {
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    // Bucket in the path, not the host name: what S3-compatible servers on a plain address expect.
    forcePathStyle: true,
    // A store that does not answer should fail a save within seconds, not hang it (3 tries).
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 20_000 },
    // Checksums only where S3 requires them: newer SDKs add CRC32 headers by default, which
    // several S3-compatible servers reject or ignore; the TLS/HTTP layer already guards the bytes.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const Bucket = settings.bucket;
  const where = `${settings.endpoint ?? `S3 (${settings.region})`} bucket ${Bucket}`;

  const unavailable = (what: string, error: unknown) =>
    new StoreUnavailableError(`The object store (${where}) could not ${what}: ${describe(error)}`, { cause: error });

  return {
    async write(name, bytes) {
      // Always a PUT (no HEAD first): one request for a new photo, and an object stored again gets a
      // fresh LastModified, so the orphan sweep never takes a file a new draft has just chosen.
      try {
        await client.send(new PutObjectCommand({ Bucket, Key: name, Body: bytes, ContentType: storedImageType(bytes), CacheControl: CACHE_CONTROL }));
      } catch (error) {
        throw unavailable(`store ${name}`, error);
      }
    },

    async read(name) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket, Key: name }));
        if (!answer.Body) return null;
        return Buffer.from(await answer.Body.transformToByteArray());
      } catch (error) {
        if (isNotFound(error)) return null;
        throw unavailable(`read ${name}`, error);
      }
    },

    async exists(name) {
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: name }));
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw unavailable(`look up ${name}`, error);
      }
    },

    async remove(name) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: name }));
      } catch (error) {
        if (isNotFound(error)) return;
        throw unavailable(`remove ${name}`, error);
      }
    },

    async list() {
      const files: StoredFile[] = [];
      let ContinuationToken: string | undefined;
      try {
        do {
          const page = await client.send(new ListObjectsV2Command({ Bucket, ContinuationToken }));
          for (const object of page.Contents ?? []) {
            if (object.Key && object.LastModified) files.push({ name: object.Key, modifiedMs: object.LastModified.getTime() });
          }
          ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (ContinuationToken);
      } catch (error) {
        throw unavailable("list its objects", error);
      }
      return files;
    },

    async check() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (error) {
        if (isNotFound(error)) throw new StoreUnavailableError(`The object store at ${settings.endpoint ?? `S3 (${settings.region})`} has no bucket named ${Bucket}.`, { cause: error });
        throw unavailable("be reached", error);
      }
    },

    close() {
      client.destroy();
    },
  };
}

function isNotFound(error: unknown): boolean {
  if (error instanceof S3ServiceException) return error.$metadata.httpStatusCode === 404 || error.name === "NoSuchKey" || error.name === "NotFound";
  return false;
}

/** One line for the logs: the S3 error's name and status, or the network error's code. */
function describe(error: unknown): string {
  if (error instanceof S3ServiceException) return `${error.name} (HTTP ${error.$metadata.httpStatusCode ?? "?"})`;
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = error.message || error.name;
    return code && !message.includes(code) ? `${code} ${message}` : message;
  }
  return String(error);
}
