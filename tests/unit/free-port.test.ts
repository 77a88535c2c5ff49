import fs from "node:fs";
import net from "node:net";

import { describe, expect, it } from "vitest";

import { freePort } from "../support/free-port";

// The servers the tests start bind ports probed beforehand; a port from the kernel's ephemeral
// range can meanwhile become the local end of another server's PostgreSQL connection.
describe("freePort", () => {
  it("picks ports below the ephemeral range that can be listened on", async () => {
    const low = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
    }
    expect(new Set(ports).size).toBeGreaterThan(15);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(ports[0], "127.0.0.1", resolve));
    await new Promise((resolve) => server.close(resolve));
  });
});
