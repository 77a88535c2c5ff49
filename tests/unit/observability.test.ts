import fs from "node:fs";
import path from "node:path";

import type { AddressInfo } from "node:net";

import SQLite from "better-sqlite3";
import express from "express";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { metricsRoute } from "~/server/runtime/observe.server";

import { useSetting } from "../support/settings";
import { postForm, request, seededDatabase, SEEDED, signIn, startServer, stopAllServers, tempDir, type RunningServer } from "../support/server/server";

// The operator's view of a running server (docs/operator-guide.md, "Logs" and "Metrics"): the real
// production server, its standard output read line by line as JSON, /metrics read with a
// Prometheus text parser. Passwords, the session cookie and a reset link's token go through it;
// none may show in the log.

let server: RunningServer;
let outbox = "";
const NEW_PASSWORD = "a brand new password 41";
const RESET_PASSWORD = "reset to this password 77";
const EMAIL = "jasmin.observed@example.test";

beforeAll(async () => {
  const dir = tempDir("observe");
  const database = await seededDatabase(dir);
  // The seeded person gets a confirmed address, so "Forgot password" mails them a link.
  const sqlite = new SQLite(database);
  sqlite.prepare("update users set email = ?, email_confirmed_at = ? where id = ?").run(EMAIL, new Date().toISOString(), SEEDED.id);
  sqlite.close();
  outbox = path.join(dir, "outbox");
  server = await startServer({ databasePath: database, env: { LOG_LEVEL: "info", PUBLIC_URL: "http://127.0.0.1:1", PAGE_CACHE_SECONDS: "60" } });
}, 240_000);
afterAll(() => stopAllServers());

type Families = ReturnType<typeof parsePrometheusTextFormat>;

async function scrape(headers: Record<string, string> = {}): Promise<{ families: Families; text: string }> {
  const answer = await request(server, "GET", "/metrics", { headers });
  expect(answer.status).toBe(200);
  expect(answer.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4\b/);
  return { families: parsePrometheusTextFormat(answer.body), text: answer.body };
}

/** The value of one counter or gauge series with these labels (0 when it has not appeared yet). */
function valueOf({ families }: { families: Families }, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((candidate) => candidate.name === name);
  const sample = family?.metrics.find((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value));
  return Number(sample?.value ?? 0);
}

/** How many observations a histogram series has (the parser merges a histogram's label sets, so its `_count` line is read). */
function countOf({ text }: { text: string }, name: string, labels: string): number {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name}_count{${labels}}`));
  return Number(line?.split(" ").at(-1) ?? 0);
}

/** The text of a mail in the outbox that `wanted` accepts, once there is one (mail goes out after the answer). */
async function mailInOutbox(wanted: (text: string) => boolean): Promise<string> {
  for (let waited = 0; waited < 10_000; waited += 100) {
    const names = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((name) => name.endsWith(".eml")) : [];
    const found = names.map((name) => fs.readFileSync(path.join(outbox, name), "utf8").replace(/=\r?\n/g, "")).find(wanted);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the mail did not arrive in the outbox within 10 s");
}

function logLines(): Record<string, unknown>[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("logs and metrics of a running server", () => {
  it("counts requests, refusals, page-cache hits and mail, and logs each request as one JSON line without secrets", async () => {
    const before = await scrape();
    for (const family of ["process_cpu_user_seconds_total", "nodejs_eventloop_lag_seconds", "recipals_db_connections", "recipals_db_pool_size", "recipals_upload_requests", "recipals_image_decodes"]) {
      expect(before.families.map((candidate) => candidate.name)).toContain(family);
    }

    // Visitors' pages: the second is the page cache's.
    await request(server, "GET", "/ReciPals/Info");
    await request(server, "GET", "/ReciPals/Info");
    // A refused sign-in, then a good one; the person changes their password, then resets it by mail.
    expect((await postForm(server, "/ReciPals/Account/Login", { username: SEEDED.username, password: "not the password" })).status).toBe(401);
    const cookie = await signIn(server, SEEDED.username, SEEDED.password);
    const profile = await request(server, "GET", "/api/users/profile", { headers: { Cookie: cookie } });
    expect(profile.status).toBe(200);
    const json = (body: unknown, extra: Record<string, string> = {}) => ({ headers: { "Content-Type": "application/json", Origin: server.origin, ...extra }, body: JSON.stringify(body) });
    const changed = await request(server, "PUT", `/api/users/${SEEDED.id}`, json({ password: NEW_PASSWORD, currentPassword: SEEDED.password }, { Cookie: cookie }));
    expect(changed.status).toBe(200);
    expect((await request(server, "POST", "/api/users/password-reset", json({ login: EMAIL }))).status).toBe(202);
    const resetMail = await mailInOutbox((text) => text.includes("/ReciPals/Account/Reset/"));
    const token = /Reset\/([A-Za-z0-9_-]{20,})/.exec(resetMail)?.[1];
    expect(token).toBeDefined();
    expect((await request(server, "POST", "/api/users/password-reset/confirm", json({ token, password: RESET_PASSWORD }))).status).toBe(200);

    // Two mails: the link, then "your password was changed" (sent after the reset's answer).
    await mailInOutbox(() => fs.readdirSync(outbox).length === 2);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(moved("recipals_http_requests_total", { route: "routes/ReciPals.Info", method: "GET", status: "200" })).toBe(2);
    expect(moved("recipals_http_requests_total", { route: "routes/ReciPals.Account.Login", method: "POST", status: "401" })).toBe(1);
    const infoTimes = 'route="routes/ReciPals.Info"';
    expect(countOf(after, "recipals_http_request_duration_seconds", infoTimes) - countOf(before, "recipals_http_request_duration_seconds", infoTimes)).toBe(2);
    expect(moved("recipals_page_cache_requests_total", { result: "hit" })).toBeGreaterThanOrEqual(1);
    expect(moved("recipals_sign_in_refusals_total", { reason: "wrong-password" })).toBe(1);
    expect(moved("recipals_mail_messages_total", { result: "sent" })).toBe(2);

    // Every line of the output is JSON; a request's line carries its id, route, status, time and who.
    const lines = logLines();
    const requests = lines.filter((line) => line.msg === "request");
    const profileLine = requests.find((line) => line.reqId === profile.headers["x-request-id"]);
    expect(profileLine).toMatchObject({ level: "info", route: "routes/api.users.profile", method: "GET", status: 200, userId: SEEDED.id });
    expect(typeof profileLine!.ms).toBe("number");
    expect(typeof profileLine!.time).toBe("string");
    expect(requests.filter((line) => line.route === "routes/ReciPals.Account.Login")).toHaveLength(2);
    // Nothing secret, anywhere in the output.
    const everything = server.output();
    const sessionValue = cookie.split("=")[1]!;
    // (The seeded password is the app's own name, so the typed passwords checked are the two new ones.)
    for (const secret of [NEW_PASSWORD, RESET_PASSWORD, sessionValue, decodeURIComponent(sessionValue), token!, EMAIL]) {
      expect(everything).not.toContain(secret);
    }
    // Health checks and scrapes are not logged.
    expect(lines.some((line) => line.route === "unmatched" || String(line.msg).includes("metrics"))).toBe(false);
  });

  it("keeps the balancer's request id, and makes one when it sent none", async () => {
    const given = await request(server, "GET", "/ReciPals/Info", { headers: { "X-Request-Id": "nginx-0123456789abcdef" } });
    expect(given.headers["x-request-id"]).toBe("nginx-0123456789abcdef");
    const made = await request(server, "GET", "/ReciPals/Info");
    expect(made.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(logLines().some((line) => line.reqId === "nginx-0123456789abcdef")).toBe(true);
  });

  it("answers /metrics only on this machine without a token: a proxied request is refused with nothing", async () => {
    const proxied = await request(server, "GET", "/metrics", { headers: { "X-Forwarded-For": "203.0.113.9" } });
    expect([proxied.status, proxied.body]).toEqual([403, ""]);
  });
});

describe("/metrics with METRICS_TOKEN set", () => {
  it("asks for that bearer token from anywhere: a missing or wrong one is a 401 with nothing else", async () => {
    const undo = useSetting("METRICS_TOKEN", "scrape-me-with-this-token-0123");
    const app = express();
    app.get("/metrics", metricsRoute());
    const listening = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => listening.once("listening", resolve));
    const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/metrics`;
    try {
      for (const authorization of [undefined, "Bearer scrape-me-with-this-token-0124", "Bearer scrape-me", "scrape-me-with-this-token-0123"]) {
        const refused = await fetch(base, { headers: authorization ? { Authorization: authorization } : {} });
        expect([refused.status, await refused.text()]).toEqual([401, ""]);
      }
      const answered = await fetch(base, { headers: { Authorization: "Bearer scrape-me-with-this-token-0123", "X-Forwarded-For": "203.0.113.9" } });
      expect(answered.status).toBe(200);
      expect(parsePrometheusTextFormat(await answered.text()).map((family) => family.name)).toContain("recipals_http_requests_total");
    } finally {
      listening.close();
      undo();
    }
  });
});
