import { CLUSTER_STATE_ENV, startCluster } from "./cluster";

// Starts the cluster once for the whole run (tests/support/cluster.ts) and hands the tests its
// description through CLUSTER_STATE_ENV (workers inherit the runner's environment). The function
// returned is Playwright's teardown: it runs after the last test, failed or not.
export default async function globalSetup(): Promise<() => Promise<void>> {
  const started = Date.now();
  const cluster = await startCluster();
  process.env[CLUSTER_STATE_ENV] = cluster.stateFile;
  const { state } = cluster;
  console.log(
    `Cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s: nginx ${state.url} -> ` +
      `${state.servers.map((server) => `${server.name}=127.0.0.1:${server.port}`).join(", ")}; ` +
      `database ${state.db === "postgres" ? "PostgreSQL" : "one shared SQLite file"}, photos ${state.images === "s3" ? "in s3rver" : "on one shared disk"}.`,
  );
  return async () => {
    await cluster.stop();
  };
}
