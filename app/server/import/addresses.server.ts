import dns from "node:dns";
import net from "node:net";

import { ipv6Groups } from "../http/ip.server";

// Which addresses an import may connect to. A page someone named must not turn the server on our
// own network (SSRF): every address that is not plainly public is refused, unless the import's
// rules let it through (tests against a local stub page).

const NOT_PUBLIC = new net.BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  // IPv4-compatible (::a.b.c.d, deprecated): some stacks still send these out as IPv4.
  ["::", 96],
  // Local-use NAT64: a local translator maps it to IPv4 by its own rules, so the IPv4 address it
  // reaches cannot be told from the address (unlike the well-known 64:ff9b::/96, read below).
  ["64:ff9b:1::", 48],
  ["100::", 64], // discard
  ["2001::", 32], // Teredo
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, "ipv6");
}

/**
 * Every IPv4-mapped address (::ffff:a.b.c.d, ::ffff:0:0/96), public or not: a connection to one
 * goes out as IPv4, no real site publishes one in DNS, and refusing them all leaves no gap between
 * the IPv4 and IPv6 rules. Not a BlockList rule: BlockList checks IPv4 addresses against IPv6
 * rules in their mapped form, so that rule would refuse every IPv4 address too.
 */
function isIpv4Mapped(address: string): boolean {
  const g = ipv6Groups(address);
  return g !== null && g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff;
}

/** The IPv4 address inside a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) return v4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!);
  return null;
}

/**
 * True for every address that is not plainly public: private, loopback, link-local,
 * unique-local, multicast, reserved, documentation ranges, IPv6 forms that wrap one of them
 * (NAT64, 6to4), and every IPv4-mapped or IPv4-compatible address. Anything unparsable counts as
 * not public.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  const family = net.isIP(bare);
  if (family === 4) return NOT_PUBLIC.check(bare, "ipv4");
  if (family !== 6 || isIpv4Mapped(bare)) return true;
  const inner = embeddedIpv4(bare);
  if (inner) return NOT_PUBLIC.check(inner, "ipv4");
  return NOT_PUBLIC.check(bare, "ipv6");
}

/** The error code of a lookup refused by `guardedLookup` (fetch.server.ts reports it as "refused"). */
export const REFUSED_CODE = "RECIPALS_IMPORT_REFUSED";

/** dns.lookup that refuses a host when any of its addresses is not allowed. */
export function guardedLookup(allows: (address: string) => boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses) => {
      const reply = callback as (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
      if (error) return reply(error, "");
      const refused = addresses.length === 0 || addresses.some((entry) => !allows(entry.address));
      if (refused) {
        const refusal: NodeJS.ErrnoException = new Error(`Refused address for ${hostname}`);
        refusal.code = REFUSED_CODE;
        return reply(refusal, "");
      }
      if (options.all) return reply(null, addresses);
      const first = addresses[0]!;
      return reply(null, first.address, first.family);
    });
  };
}
