import http from "node:http";
import type { AddressInfo } from "node:net";

// Another server for the federation tests: a real HTTP server on this machine answering with
// whatever `answer` gives (our federation, or one made with the same library standing in for
// Mastodon and the rest), and a wait for what arrives by the delivery queue.

/** Serves `answer` over HTTP on a free loopback port; resolves with its origin. */
export async function serve(answer: (request: Request) => Promise<Response>): Promise<{ origin: string; close: () => void }> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks) });
    const response = await answer(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

export async function until<T>(read: () => Promise<T | undefined | null | false>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

