import { spawnSync } from "node:child_process";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { chromiumPlan, DEFAULT_CHROMIUM } from "../../scripts/ensure-chromium.js";

const script = path.resolve(__dirname, "../../scripts/ensure-chromium.js");
const nothing = () => false;

describe("the browser the end-to-end tests need", () => {
  it("is ready when the configured or default path holds it", () => {
    expect(chromiumPlan({ configuredPath: undefined, exists: (p: string) => p === DEFAULT_CHROMIUM, isRoot: false, hasAptGet: false })).toMatchObject({ action: "ready" });
    expect(chromiumPlan({ configuredPath: "/opt/c", exists: (p: string) => p === "/opt/c", isRoot: false, hasAptGet: false })).toMatchObject({ action: "ready", path: "/opt/c" });
  });

  it("is installed with apt-get when missing at the default path and this process may install", () => {
    expect(chromiumPlan({ configuredPath: undefined, exists: nothing, isRoot: true, hasAptGet: true })).toMatchObject({ action: "install", path: DEFAULT_CHROMIUM });
  });

  it.each([
    ["not root", { configuredPath: undefined, isRoot: false, hasAptGet: true }, /install Debian's chromium as root \(apt-get install -y chromium\)/],
    ["no apt-get", { configuredPath: undefined, isRoot: true, hasAptGet: false }, /apt-get install -y chromium/],
    ["a configured path that holds nothing", { configuredPath: "/nowhere/chromium", isRoot: true, hasAptGet: true }, /point CHROMIUM_PATH at a Chromium binary/],
  ])("otherwise says what to install in one line (%s)", (_case, input, message) => {
    const plan = chromiumPlan({ ...input, exists: nothing });
    expect(plan.action).toBe("missing");
    expect(plan.message).toMatch(message);
    expect(plan.message).not.toContain("\n");
  });

  it("as a command: stops at once, exit 1, with that one line", () => {
    const started = Date.now();
    const result = spawnSync(process.execPath, [script], { env: { ...process.env, CHROMIUM_PATH: "/nowhere/chromium" }, encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("Chromium not found at /nowhere/chromium");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
