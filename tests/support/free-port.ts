import fs from "node:fs";
import net from "node:net";

// A port for a process the tests start themselves (an app server, nginx, a replica).
//
// The port is probed here and bound later by another process. The kernel's own choice
// (`listen(0)`) comes from its ephemeral range, and that is the range every outgoing connection
// takes its local port from. An app server that starts first opens connections to PostgreSQL
// and S3 from that range, so it can hold the chosen port before the second server binds it
// (EADDRINUSE on a busy CI machine). Ports below that range are never taken by a connection.

const LOWEST = 10_000;

/** The lowest port of the kernel's ephemeral range (Linux's default when it cannot be read). */
function ephemeralLow(): number {
  try {
    const low = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // not Linux: the default below
  }
  return 32_768;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.unref();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

function kernelsChoice(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A port nobody listens on now, below the ephemeral range (random, so parallel runs rarely meet). */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  if (low - LOWEST < 1_000) return kernelsChoice();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (low - LOWEST));
    if (await canListen(port)) return port;
  }
  return kernelsChoice();
}
