import type { AddressInfo } from "node:net";

import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { answerWithBytes, sendResponse } from "~/server/runtime/remix-adapter.server";

// A rendered page is already all in memory as bytes (app/entry.server.tsx): the server writes
// those bytes in one end() rather than reading them back out of the Response's stream
// (app/server/runtime/remix-adapter.server.ts, answerWithBytes). Real HTTP on a real port.

const page = Buffer.from(`<!DOCTYPE html><html><body>${"Ünïcode and ✓ ".repeat(8_000)}</body></html>`, "utf8");
let sent: globalThis.Response[] = [];
let origin = "";
let close = () => undefined as void;

beforeAll(async () => {
  const app = express();
  app.get("/held", (req, res, next) => {
    const response = answerWithBytes(page, { status: 200, headers: { "Content-Type": "text/html; charset=utf-8", "X-Kept": "yes" } });
    sent.push(response);
    sendResponse(req, res, response).catch(next);
  });
  app.get("/streamed", (req, res, next) => {
    const response = new Response(page, { status: 200, headers: { "Content-Type": "text/html; charset=utf-8" } });
    sent.push(response);
    sendResponse(req, res, response).catch(next);
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => void server.close();
});

afterAll(() => close());

describe("an answer whose bytes the server holds", () => {
  it("reaches the client whole, with its status and headers, without its stream being read", async () => {
    sent = [];
    const answer = await fetch(`${origin}/held`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-kept")).toBe("yes");
    expect(Buffer.from(await answer.arrayBuffer()).equals(page)).toBe(true);
    // The held bytes went out: nothing took a reader on the Response's own stream.
    expect(sent[0]!.body!.locked).toBe(false);
  });

  it("is still an ordinary Response for whoever reads it (tests, Remix)", async () => {
    expect(Buffer.from(await answerWithBytes(page, { status: 200 }).arrayBuffer()).equals(page)).toBe(true);
  });

  it("differs from any other answer only in the way out: a Response built elsewhere is piped from its stream", async () => {
    sent = [];
    const answer = await fetch(`${origin}/streamed`);
    expect(Buffer.from(await answer.arrayBuffer()).equals(page)).toBe(true);
    expect(sent[0]!.body!.locked).toBe(true);
  });
});
