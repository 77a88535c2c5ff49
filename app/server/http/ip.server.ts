import net from "node:net";

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail included), or null. */
export function ipv6Groups(address: string): number[] | null {
  let text = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  if (net.isIP(text) !== 6) return null;
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const [a, b, c, d] = tail.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const groups = halves.length === 2 ? [...head, ...Array<string>(8 - head.length - rest.length).fill("0"), ...rest] : head;
  return groups.length === 8 ? groups.map((group) => Number.parseInt(group, 16)) : null;
}

/**
 * The key a client address is counted under by per-address limits. An IPv4 address is itself
 * (an IPv4-mapped IPv6 address too: it is the same client). An IPv6 address counts by its /64:
 * one subscriber usually holds a whole /64 and can change the low 64 bits at will, so counting
 * single IPv6 addresses would let one client take as many turns as it likes.
 */
export function addressKey(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  if (net.isIP(bare) === 4) return bare;
  const groups = ipv6Groups(bare);
  if (!groups) return bare;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** The client address the server put in Remix's load context, if any (the production server does). */
export function clientAddress(context: unknown): string | null {
  const value = (context as { clientAddress?: unknown } | null | undefined)?.clientAddress;
  return typeof value === "string" && value.length > 0 ? value : null;
}
