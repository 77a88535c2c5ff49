// One s3rver in a process of its own, started by s3rver.ts with --openssl-legacy-provider: s3rver
// 3.7 makes ListObjectsV2 continuation tokens with DES, which Node 20's OpenSSL 3 offers only
// through its legacy provider (without it, every truncated listing is a 500). Its own process also
// makes stopping it a real outage (the process and its sockets are gone) and keeps its work off
// the test's event loop. Settings come as JSON in argv[2]; the port goes back over IPC.
import S3rver from "s3rver";

const { directory, buckets, port } = JSON.parse(process.argv[2]);
const server = new S3rver({
  address: "127.0.0.1",
  port,
  silent: true,
  directory,
  // Path-style only: a bucket name in the host (vhost) would need DNS for the test's names.
  vhostBuckets: false,
  configureBuckets: buckets.map((name) => ({ name })),
});

server.run().then(
  (address) => process.send({ port: address.port }),
  (error) => {
    process.send({ error: String(error && error.stack ? error.stack : error) });
    process.exit(1);
  },
);

// The test process went away without stopping this one: go too.
process.on("disconnect", () => process.exit(0));
