import { spawnSync } from "node:child_process";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { chromiumPlan, DEFAULT_CHROMIUM, HEADLESS_SHELL } from "../../scripts/ensure-chromium.js";

const script = path.resolve(__dirname, "../../scripts/ensure-chromium.js");
const nothing = () => false;

describe("the browsers the end-to-end tests need", () => {
  const both = (p: string) => p === DEFAULT_CHROMIUM || p === HEADLESS_SHELL;
  const fullOnly = (p: string) => p === DEFAULT_CHROMIUM;

  it("are ready when Debian's chromium and chromium-headless-shell are both there, or the configured path holds one", () => {
    expect(chromiumPlan({ configuredPath: undefined, exists: both, isRoot: false, hasAptGet: false })).toEqual({ action: "ready", packages: [] });
    expect(chromiumPlan({ configuredPath: "/opt/c", exists: (p: string) => p === "/opt/c", isRoot: false, hasAptGet: false })).toEqual({ action: "ready", packages: [] });
  });

  it("installs what is missing with apt-get when this process may", () => {
    expect(chromiumPlan({ configuredPath: undefined, exists: nothing, isRoot: true, hasAptGet: true })).toEqual({ action: "install", packages: ["chromium", "chromium-headless-shell"] });
    expect(chromiumPlan({ configuredPath: undefined, exists: fullOnly, isRoot: true, hasAptGet: true })).toEqual({ action: "install", packages: ["chromium-headless-shell"] });
  });

  it("without the headless shell and no way to install it, runs in the full browser and says what would be faster", () => {
    const plan = chromiumPlan({ configuredPath: undefined, exists: fullOnly, isRoot: false, hasAptGet: true });
    expect(plan.action).toBe("ready");
    expect(plan.message).toMatch(/about twice as slow \(as root: apt-get install -y chromium-headless-shell\)/);
  });

  it.each([
    ["not root", { configuredPath: undefined, isRoot: false, hasAptGet: true }, /install Debian's chromium as root \(apt-get install -y chromium chromium-headless-shell\)/],
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
