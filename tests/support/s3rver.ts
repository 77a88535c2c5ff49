import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import type { Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

// A real S3-compatible server for tests (s3rver), on loopback at a free port, keeping its objects
// in a temporary folder. Any test that talks S3 starts one of these: no mocks of the SDK. It runs
// in a child process (s3rver-process.mjs says why); stop() ends that process.
//
// The AWS SDK warns once per process, through process.emitWarning, that its releases after early
// 2027 need Node 22; Node prints warnings with console.error, which fails a test
// (tests/support/vitest-setup.ts). The SDK skips the warning when this variable is "true"
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
  /** The environment that points the app at this server's first bucket (IMAGE_STORE=s3 and S3_*), e.g. for a server process. */
  env: Record<string, string>;
  /** Ends the server (its connections drop at once) and removes its folder; calling it again does nothing. */
  stop(): Promise<void>;
}

const CHILD = fileURLToPath(new URL("./s3rver-process.mjs", import.meta.url));
const START_TIMEOUT_MS = 15_000;

/**
 * Starts s3rver on 127.0.0.1 with the buckets already made (configureBuckets), silent. `port` 0
 * (the default) takes a free one.
 */
export async function startS3Server({
  bucket = "recipals-test",
  buckets = [],
  port = 0,
}: { bucket?: string; buckets?: string[]; port?: number } = {}): Promise<S3TestServer> {
  const names = [...new Set([bucket, ...buckets])];
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-s3rver-"));
  const child = fork(CHILD, [JSON.stringify({ directory, buckets: names, port })], {
    execArgv: ["--openssl-legacy-provider"],
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    if (stderr.length < 10_000) stderr += chunk.toString("utf8");
  });

  let actualPort: number;
  try {
    actualPort = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`s3rver did not start within ${START_TIMEOUT_MS} ms. ${stderr}`)), START_TIMEOUT_MS);
      child.once("message", (message: { port?: number; error?: string }) => {
        clearTimeout(timer);
        if (message.port) resolve(message.port);
        else reject(new Error(`s3rver did not start: ${message.error ?? "no port"}`));
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`s3rver exited (${code}) before it started. ${stderr}`));
      });
    });
  } catch (error) {
    await ended(child);
    fs.rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  // Started. The channel stays open (the child ends when it closes, should this process die
  // without stop()), but neither it nor the child keeps this process alive.
  child.removeAllListeners("exit");
  child.removeAllListeners("message");
  child.stderr?.removeAllListeners("data");
  child.stderr?.resume();
  (child.stderr as Socket | null)?.unref();
  child.channel?.unref();
  child.unref();

  const endpoint = `http://127.0.0.1:${actualPort}`;
  let stopped: Promise<void> | null = null;
  return {
    endpoint,
    port: actualPort,
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
      stopped ??= ended(child).then(() => fs.rmSync(directory, { recursive: true, force: true }));
      return stopped;
    },
  };
}

/** Ends the child process and resolves once it has gone. */
function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
