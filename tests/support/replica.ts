import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import pg from "pg";

// A real streaming replica of the test PostgreSQL server, made by the test that needs it (docs/scaling.md,
// "Read replicas"): `pg_basebackup -R` of the running cluster into a folder of its own, started as a
// second cluster on a free port with Debian's PostgreSQL binaries, as the operating system's `postgres`
// user (the tests run as root in CI). Its every statement is logged, so a test can tell which reads it
// answered. Null (with the reason) where that cannot be done here.

const BIN = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"].find((dir) => fs.existsSync(path.join(dir, "pg_basebackup")));

export interface Replica {
  port: number;
  /** The same URL as `primaryUrl`, on the replica. */
  urlFor(primaryUrl: string): string;
  /** Statements the replica ran since the start (its log), without its own monitoring. */
  statements(): string[];
  /** Stops or resumes replaying the primary's changes (it lags as long as it is paused). */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the replica (fast shutdown: open connections are cut). */
  stop(): void;
  /** Stops it if running and removes its folder. */
  remove(): void;
}

const asPostgres = (command: string, args: string[]) => execFileSync("runuser", ["-u", "postgres", "--", command, ...args], { stdio: "pipe", timeout: 120_000 }).toString();

export function replicaUnavailableReason(): string | null {
  if (!BIN) return "PostgreSQL's server binaries (pg_basebackup, pg_ctl) are not installed";
  if (process.getuid?.() !== 0) return "making a replica needs root (to act as the postgres user)";
  return null;
}

export async function startReplica(primaryPort: number, port: number): Promise<Replica> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-replica-"));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, "data");
  const log = path.join(dir, "replica.log");
  execFileSync("chown", ["postgres", dir]);
  const pgCtl = path.join(BIN!, "pg_ctl");
  asPostgres(path.join(BIN!, "pg_basebackup"), ["-D", data, "-R", "-X", "stream", "-c", "fast", "-h", "/var/run/postgresql", "-p", String(primaryPort)]);
  // Debian keeps the configuration outside the data folder: the replica gets its own.
  fs.writeFileSync(
    path.join(data, "postgresql.conf"),
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      "hot_standby = on",
      "shared_buffers = 32MB",
      "log_statement = 'all'",
      "log_line_prefix = ''",
      "",
    ].join("\n"),
  );
  fs.writeFileSync(path.join(data, "pg_hba.conf"), ["local all all peer", "host all postgres 127.0.0.1/32 trust", "host all all 127.0.0.1/32 scram-sha-256", ""].join("\n"));
  fs.writeFileSync(path.join(data, "pg_ident.conf"), "");
  execFileSync("chown", ["-R", "postgres", data]);
  asPostgres(pgCtl, ["-D", data, "-l", log, "-w", "-t", "60", "start"]);
  let running = true;

  const superuser = async (sql: string) => {
    const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const stop = () => {
    if (!running) return;
    running = false;
    try {
      asPostgres(pgCtl, ["-D", data, "-m", "fast", "-w", "stop"]);
    } catch {
      // already stopped
    }
  };
  return {
    port,
    urlFor(primaryUrl) {
      const url = new URL(primaryUrl);
      url.host = `127.0.0.1:${port}`;
      return url.toString();
    },
    statements: () =>
      fs
        .readFileSync(log, "utf8")
        .split("\n")
        // Simple queries log as `statement:`, the app's (extended protocol) as `execute <unnamed>:`.
        .filter((line) => /^LOG:\s+(statement|execute [^:]*):/.test(line) && !line.includes("pg_last_wal_replay_lsn")),
    pauseReplay: () => superuser("select pg_wal_replay_pause()"),
    resumeReplay: () => superuser("select pg_wal_replay_resume()"),
    stop,
    remove() {
      stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
