import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";

import { describe, expect, it } from "vitest";

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

  it("IMAGE_STORE=s3 without its bucket and keys names each missing setting", () => {
    const { status, lines } = prepare({ IMAGE_STORE: "s3", S3_ENDPOINT: "http://127.0.0.1:9" });
    expect(status).toBe(1);
    expect(lines).toHaveLength(1);
    for (const name of ["S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"]) expect(lines[0]).toContain(`${name}: is needed when IMAGE_STORE=s3`);
  });
});
