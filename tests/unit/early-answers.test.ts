import fs from "node:fs";
import path from "node:path";

import { decode } from "turbo-stream";
import { describe, expect, it } from "vitest";

import { isEarlyRefusal } from "~/lib/refusal";
import { earlyRefusal } from "~/server/http/early-answers.server";

// The answers given before any route runs, in each asker's language. Remix's browser client reads
// a `.data` answer with turbo-stream's decoder and the one plugin below (its own, for errors):
// whatever it cannot decode, it replaces the page with its 500 page.

async function decodeAsRemixClient(body: Uint8Array) {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(body);
      controller.close();
    },
  });
  const decoded = await decode(stream, {
    plugins: [
      (type: string, ...rest: unknown[]) =>
        type === "ErrorResponse" ? { value: { kind: "ErrorResponse", data: rest[0], status: rest[1], statusText: rest[2] } } : undefined,
    ],
  });
  await decoded.done;
  return decoded.value;
}

describe("answers given before a route runs", () => {
  it("are written with the turbo-stream Remix itself uses (its client reads only that format)", () => {
    const read = (file: string) => JSON.parse(fs.readFileSync(path.resolve(__dirname, "../..", file), "utf8")) as { version?: string; dependencies?: Record<string, string> };
    const ours = read("package.json").dependencies!["turbo-stream"];
    expect(ours).toBe(read("node_modules/@remix-run/server-runtime/package.json").dependencies!["turbo-stream"]);
    expect(ours).toBe(read("node_modules/@remix-run/react/package.json").dependencies!["turbo-stream"]);
    expect(read("node_modules/turbo-stream/package.json").version).toBe(ours);
  });

  it("answer a form submission of Remix's client with the refusal as the action's data", async () => {
    const answer = await earlyRefusal({ method: "POST", pathname: "/ReciPals/Account/Profile/u1/Edit.data", status: 503, message: "Busy." });
    expect(answer.status).toBe(503);
    expect(answer.headers).toMatchObject({ "Content-Type": "text/x-script", "X-Remix-Response": "yes", "Cache-Control": "no-store" });
    const value = (await decodeAsRemixClient(answer.body)) as { data: unknown };
    expect(value).toEqual({ data: { early: true, formError: "Busy.", error: "Busy." } });
    expect(isEarlyRefusal(value.data)).toBe(true);
  });

  it("answer a page load of Remix's client with the page's error (status and message)", async () => {
    const answer = await earlyRefusal({ method: "GET", pathname: "/ReciPals/Search.data", status: 400, message: "No NUL." });
    expect(await decodeAsRemixClient(answer.body)).toEqual({ root: { error: { kind: "ErrorResponse", data: "No NUL.", status: 400, statusText: "Not understood" } } });
  });

  it("answer the API in JSON and a browser without JavaScript with a small page, its text escaped", async () => {
    const api = await earlyRefusal({ method: "POST", pathname: "/api/recipes", status: 413, message: "Too big." });
    expect(api.headers["Content-Type"]).toMatch(/^application\/json/);
    expect(JSON.parse(new TextDecoder().decode(api.body))).toEqual({ message: "Too big." });
    const page = await earlyRefusal({ method: "POST", pathname: "/ReciPals/Account/Login", status: 403, message: "<b>no</b>" });
    const html = new TextDecoder().decode(page.body);
    expect(page.headers["Content-Security-Policy"]).toBe("default-src 'none'");
    expect(html).toContain("<h1>Not allowed</h1><p>&#60;b&#62;no&#60;/b&#62;</p>");
  });

  it("never take a page's own answer for an early refusal", () => {
    expect(isEarlyRefusal({ formError: "Incorrect username or password.", fields: {} })).toBe(false);
    expect(isEarlyRefusal({ error: "x" })).toBe(false);
    expect(isEarlyRefusal(undefined)).toBe(false);
  });
});
