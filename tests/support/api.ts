import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import type { AppLoadContext } from "@remix-run/node";
import { expect } from "vitest";

import { db } from "~/server/db/connection.server";

import { CONTENT_TABLES } from "../../seed/test-support";
import { ORIGIN } from "./app";
import { useSetting } from "./settings";

// Calling /api resource routes directly with built Requests , and checks every
// answer must pass: JSON (or empty), CORS's Vary on it, and never a password or its hash.

export type RouteFn = (args: { request: Request; params: Record<string, string>; context: AppLoadContext }) => Promise<Response>;
export interface RouteModule {
  loader: RouteFn;
  action: RouteFn;
}

export interface CallOptions {
  params?: Record<string, string>;
  cookie?: string;
  origin?: string;
  /** A JSON body (serialised), or a raw string/bytes body with `contentType`. */
  body?: unknown;
  raw?: BodyInit;
  contentType?: string | null;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  context?: AppLoadContext;
}

export interface ApiAnswer<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export function apiRequest(method: string, path: string, options: CallOptions = {}): Request {
  const url = new URL(path, ORIGIN);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
  const headers = new Headers(options.headers);
  if (options.cookie) headers.set("Cookie", options.cookie);
  if (options.origin) headers.set("Origin", options.origin);
  let body: BodyInit | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  const contentType = options.contentType === undefined ? (body !== undefined ? "application/json" : null) : options.contentType;
  if (contentType) headers.set("Content-Type", contentType);
  return new Request(url, { method, headers, body });
}

/** Runs the route the way Remix would (loader for GET/HEAD/OPTIONS, action otherwise) and reads the answer. */
export async function call<T = any>(route: RouteModule, method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer<T>> {
  const request = apiRequest(method, path, options);
  const fn = ["GET", "HEAD", "OPTIONS"].includes(method) ? route.loader : route.action;
  let response: Response;
  try {
    response = await fn({ request, params: options.params ?? {}, context: options.context ?? {} });
  } catch (thrown) {
    throw new Error(`The API route threw instead of answering: ${String(thrown)}`);
  }
  expect(response).toBeInstanceOf(Response);
  const text = await response.text();
  expectNoSecrets(text);
  expect(response.headers.get("Vary") ?? "").toMatch(/Origin/);
  if (text !== "") expect(response.headers.get("Content-Type") ?? "").toMatch(/^application\/json/);
  return { status: response.status, body: text === "" ? null : JSON.parse(text), text, headers: response.headers };
}

/**
 * No password field and no scrypt hash anywhere in an answer. (A field error *about* the
 * password, `errors.password`, is a message, not a secret.)
 */
export function expectNoSecrets(text: string): void {
  expect(text).not.toMatch(/scrypt\$/);
  if (text === "") return;
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        if (/^password(_hash|Hash)?$/i.test(key) && !path.endsWith(".errors")) throw new Error(`A password field at ${path}.${key}`);
        walk(inner, `${path}.${key}`);
      }
    }
  };
  walk(JSON.parse(text), "$");
}

/** An error answer: the status and a `{message}` body (optionally checking the message). */
export function expectError(answer: ApiAnswer, status: number, message?: string | RegExp): void {
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status, body: { message: expect.any(String) } });
  if (typeof message === "string") expect(answer.body.message).toBe(message);
  else if (message) expect(answer.body.message).toMatch(message);
}

/** Every row of every content table, for "nothing changed" checks. */
export async function snapshot(): Promise<string> {
  const tables = await Promise.all(CONTENT_TABLES.map((table) => db.selectFrom(table).selectAll().execute()));
  return JSON.stringify(tables);
}

/** A tiny valid PNG (1×1, red) as a data URL. */
export const PNG_DATA_URL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** Keeps this file's uploads in a temporary folder. Call at the top of a test file. */
export function useTempUploads(hooks: { beforeAll: (fn: () => void) => void; afterAll: (fn: () => void) => void }): () => string {
  let dir = "";
  hooks.beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-api-"));
    useSetting("UPLOADS_DIR", dir);
  });
  hooks.afterAll(() => {
    useSetting("UPLOADS_DIR", undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => dir;
}
