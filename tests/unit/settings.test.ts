import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";

import express from "express";
import { describe, expect, it } from "vitest";

import { trustProxySetting } from "../../app/server/env.server";

// Settings that only make sense together are refused at start with one line and exit 1
// (app/server/env.server.ts), before anything opens a database or a store.

const ROOT = path.resolve(__dirname, "../..");

function prepare(env: Record<string, string>) {
  const result = spawnSync(process.execPath, [path.join(ROOT, "scripts/prepare.js"), "--migrate-only"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.tmpdir(), NODE_ENV: "production", DATABASE_PATH: path.join(os.tmpdir(), `recipals-settings-${process.pid}.db`), ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, lines: result.stderr.trim().split("\n").filter(Boolean) };
}

describe("settings that go together", () => {
  it("DATABASE_URL without SESSION_SECRET: every server must sign cookies alike", () => {
    const { status, lines } = prepare({ DATABASE_URL: "postgres://someone:secret@127.0.0.1:9/none" });
    expect(status).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ReciPals cannot start: Invalid environment: SESSION_SECRET: is needed when DATABASE_URL is set/);
    expect(lines[0]).not.toContain("secret@");
  });

  it("an ADMIN_SECRET shorter than 12 characters: whoever guesses it becomes ADMIN", () => {
    const { status, lines } = prepare({ ADMIN_SECRET: "letmein" });
    expect(status).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe("ReciPals cannot start: Invalid environment: ADMIN_SECRET: must be at least 12 characters (whoever types it becomes ADMIN)");
    expect(lines[0]).not.toContain("letmein");
  });

  it("a PUBLIC_URL that is not an http(s) address, and a SIGNUP_LIMIT that is not a count", () => {
    expect(prepare({ PUBLIC_URL: "ftp://recipes.example" }).lines[0]).toMatch(/^ReciPals cannot start: Invalid environment: PUBLIC_URL: /);
    expect(prepare({ SIGNUP_LIMIT: "lots" }).lines[0]).toMatch(/^ReciPals cannot start: Invalid environment: SIGNUP_LIMIT: /);
  });

  it("the tests' low password cost on a server that listens beyond this machine", () => {
    for (const host of [{}, { HOST: "0.0.0.0" }] as Record<string, string>[]) {
      const { status, lines } = prepare({ RECIPALS_TEST_PASSWORD_COST: "low", ...host });
      expect(status).toBe(1);
      expect(lines).toEqual(["ReciPals cannot start: Invalid environment: RECIPALS_TEST_PASSWORD_COST: is for test runs only: unset it (or, for a test server, listen on HOST=127.0.0.1 alone)"]);
    }
    expect(prepare({ RECIPALS_TEST_PASSWORD_COST: "low", HOST: "127.0.0.1" }).status).toBe(0);
  });

  it("IMAGE_STORE=s3 without its bucket and keys names each missing setting", () => {
    const { status, lines } = prepare({ IMAGE_STORE: "s3", S3_ENDPOINT: "http://127.0.0.1:9" });
    expect(status).toBe(1);
    expect(lines).toHaveLength(1);
    for (const name of ["S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"]) expect(lines[0]).toContain(`${name}: is needed when IMAGE_STORE=s3`);
  });
});

describe("TRUST_PROXY", () => {
  it("a number counts the proxies in front; Express alone would read \"1\" as an address and trust nobody", async () => {
    const app = express();
    app.set("trust proxy", trustProxySetting("1"));
    app.get("/", (req, res) => {
      res.send(req.ip);
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as { port: number };
      const answer = await fetch(`http://127.0.0.1:${port}/`, { headers: { "X-Forwarded-For": "203.0.113.7" } });
      expect(await answer.text()).toBe("203.0.113.7");
    } finally {
      server.close();
    }
    expect(trustProxySetting("true")).toBe(true);
    expect(trustProxySetting("false")).toBe(false);
    expect(trustProxySetting("loopback")).toBe("loopback");
  });
});
