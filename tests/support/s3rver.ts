import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import S3rver from "s3rver";

// A real S3-compatible server for tests (s3rver), on loopback at a free port, keeping its objects
// in a temporary folder. Any test that talks S3 starts one of these: no mocks of the SDK.
//
// The AWS SDK warns once per process, through process.emitWarning, that its releases after early
// 2027 need Node 22; Node prints warnings with console.error, which fails a test
// (tests/unit/setup.ts). The SDK skips the warning when this variable is "true"
// (@aws-sdk/core, emitWarningIfUnsupportedVersion). Set here, before any S3 client exists; child
// processes started by a test inherit it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

/** The keys s3rver accepts. */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } as const;

export interface S3TestServer {
  /** `http://127.0.0.1:<port>`: the S3 API's address (S3_ENDPOINT). */
  endpoint: string;
  port: number;
  /** The first bucket (made before the server answers). */
  bucket: string;
  /** Every bucket made at start. */
  buckets: string[];
  region: "us-east-1";
  accessKeyId: string;
  secretAccessKey: string;
  /** Where s3rver keeps the objects (removed by stop()). */
  directory: string;
  /** The environment that points the app at this server's first bucket (IMAGE_STORE=s3, S3_*), e.g. for a child process. */
  env: Record<string, string>;
  /** Closes the server and removes its folder; calling it again does nothing. */
  stop(): Promise<void>;
}

/**
 * Starts s3rver on 127.0.0.1 with the buckets already made (configureBuckets). `port` 0 (the
 * default) takes a free one.
 */
export async function startS3Server({
  bucket = "recipals-test",
  buckets = [],
  port = 0,
}: { bucket?: string; buckets?: string[]; port?: number } = {}): Promise<S3TestServer> {
  const names = [...new Set([bucket, ...buckets])];
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-s3rver-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port,
    silent: true,
    directory,
    // Path-style only: a bucket name in the host (vhost) would need DNS for the test's names.
    vhostBuckets: false,
    configureBuckets: names.map((name) => ({ name })),
  });
  let address: Awaited<ReturnType<S3rver["run"]>>;
  try {
    address = await server.run();
  } catch (error) {
    fs.rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `http://127.0.0.1:${address.port}`;
  let stopped: Promise<void> | null = null;
  return {
    endpoint,
    port: address.port,
    bucket,
    buckets: names,
    region: "us-east-1",
    ...S3RVER_CREDENTIALS,
    directory,
    env: {
      IMAGE_STORE: "s3",
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
    stop() {
      stopped ??= server.close().finally(() => fs.rmSync(directory, { recursive: true, force: true }));
      return stopped;
    },
  };
}
