// One s3rver in a process of its own, started by s3rver.ts with --openssl-legacy-provider: s3rver
// 3.7 makes ListObjectsV2 continuation tokens with DES, which Node 20's OpenSSL 3 offers only
// through its legacy provider (without it, every truncated listing is a 500). Its own process also
// makes stopping it a real outage (the process and its sockets are gone) and keeps its work off
// the test's event loop. Settings come as JSON in argv[2]; the port goes back over IPC.
import { createRequire } from "node:module";

/**
 * What this uses of s3rver (a CommonJS package without type declarations).
 * @typedef {{ run(): Promise<import("node:net").AddressInfo> }} S3rverServer
 * @typedef {new (options: {
 *   address: string,
 *   port: number,
 *   silent: boolean,
 *   directory: string,
 *   vhostBuckets: boolean,
 *   configureBuckets: Array<{ name: string }>,
 * }) => S3rverServer} S3rverClass
 */
/** @type {S3rverClass} */
const S3rver = createRequire(import.meta.url)("s3rver");

/** @type {{ directory: string, buckets: string[], port: number }} */
const { directory, buckets, port } = JSON.parse(/** @type {string} */ (process.argv[2]));
const server = new S3rver({
  address: "127.0.0.1",
  port,
  silent: true,
  directory,
  // Path-style only: a bucket name in the host (vhost) would need DNS for the test's names.
  vhostBuckets: false,
  configureBuckets: buckets.map((name) => ({ name })),
});

// s3rver.ts forks this with an IPC channel, so process.send is there (hence the casts).
/** @typedef {NonNullable<typeof process.send>} Send */
server.run().then(
  (address) => /** @type {Send} */ (process.send)({ port: address.port }),
  /** @param {Error | null | undefined} error What s3rver failed to start with. */
  (error) => {
    /** @type {Send} */ (process.send)({ error: String(error && error.stack ? error.stack : error) });
    process.exit(1);
  },
);

// The test process went away without stopping this one: go too.
process.on("disconnect", () => process.exit(0));
