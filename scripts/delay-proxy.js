// `node scripts/delay-proxy.js --target HOST:PORT --delay MS [--port P]`: a TCP proxy that holds
// every chunk MS milliseconds in each direction, so a bench on one machine sees what app servers
// on other machines see of their database: a network round trip per statement. Prints
// `listening <port>` once it accepts connections. Started by `npm run bench:writes` as a child
// process (its own event loop, so the load generator's work does not add to the delay); asked
// over IPC, it answers how many chunks clients sent (`{ sent }`: with one client busy, the
// statements (round trips) per request) and how long it really held chunks (`heldMs` over `held`).
import net from "node:net";

const args = process.argv.slice(2);
const option = (/** @type {string} */ name, /** @type {string} */ fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
};
const [host, port] = String(option("target", "127.0.0.1:5432")).split(":");
const delayMs = Number(option("delay", "1"));
if (!host || !Number.isFinite(Number(port)) || !Number.isFinite(delayMs) || delayMs < 0) {
  console.error("usage: node scripts/delay-proxy.js --target HOST:PORT --delay MS [--port P]");
  process.exit(2);
}

let sent = 0;
// How long chunks were really held (timers fire at the delay or a little after): their sum and number.
let heldMs = 0;
let held = 0;

/**
 * Writes each chunk to `to` after the delay, in the order they came (timers of one length fire in order).
 * @param {net.Socket} from @param {net.Socket} to @param {boolean} count
 */
function forward(from, to, count) {
  from.on("data", (chunk) => {
    if (count) sent += 1;
    if (delayMs === 0) to.write(chunk);
    else {
      const since = performance.now();
      setTimeout(() => {
        heldMs += performance.now() - since;
        held += 1;
        to.write(chunk);
      }, delayMs);
    }
  });
}

const server = net.createServer((client) => {
  const upstream = net.connect(Number(port), host);
  for (const socket of [client, upstream]) {
    socket.setNoDelay(true);
    socket.on("error", () => undefined);
    socket.on("close", () => {
      setTimeout(() => {
        client.destroy();
        upstream.destroy();
      }, delayMs);
    });
  }
  forward(client, upstream, true);
  forward(upstream, client, false);
});

server.listen(Number(option("port", "0")), "127.0.0.1", () => {
  console.log(`listening ${/** @type {net.AddressInfo} */ (server.address()).port}`);
});

process.on("message", (message) => {
  if (message === "count") process.send?.({ sent, heldMs, held });
});
process.on("SIGTERM", () => process.exit(0));
process.on("disconnect", () => process.exit(0));
