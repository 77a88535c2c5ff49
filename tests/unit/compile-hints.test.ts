import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import { addCompileHints, COMPILE_HINT } from "../../scripts/build.js";

// The build puts Chrome's compile hint first in the large shared scripts the client entry
// imports (React DOM, Remix and its router), so their functions compile on a background thread
// while they download instead of on the main thread as the page hydrates (docs/rules.md#first-paint).

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** An assets directory as the compiler writes it: a client entry importing two shared scripts, and one it does not import. */
function assets(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "compile-hints-"));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, "_shared"));
  fs.writeFileSync(
    path.join(dir, "entry.client-ABC123.js"),
    'import{a as n}from"/build/_shared/chunk-SMALL.js";import{D as a}from"/build/_shared/chunk-FRAMEWORK.js";n();a();',
  );
  fs.writeFileSync(path.join(dir, "_shared/chunk-SMALL.js"), "export function a(){}");
  fs.writeFileSync(path.join(dir, "_shared/chunk-FRAMEWORK.js"), `var big=${JSON.stringify("x".repeat(40_000))};export function D(){return big}`);
  fs.writeFileSync(path.join(dir, "_shared/chunk-EDITOR.js"), `var big=${JSON.stringify("y".repeat(40_000))};export function E(){return big}`);
  return dir;
}

const read = (dir: string, name: string) => fs.readFileSync(path.join(dir, "_shared", name), "utf8");

describe("addCompileHints", () => {
  it("puts the hint first in the large shared script the client entry imports, and nowhere else", () => {
    const dir = assets();
    const before = read(dir, "chunk-FRAMEWORK.js");
    expect(addCompileHints(dir)).toEqual(["_shared/chunk-FRAMEWORK.js"]);
    expect(read(dir, "chunk-FRAMEWORK.js")).toBe(`${COMPILE_HINT}${before}`);
    // A small script compiles fast enough where it is called; one the entry does not import is
    // not run as every page starts.
    expect(read(dir, "chunk-SMALL.js")).toBe("export function a(){}");
    expect(read(dir, "chunk-EDITOR.js").startsWith("var big=")).toBe(true);
  });

  it("finds the shared scripts in the client entry the second pass writes (relative imports, single quotes)", () => {
    const dir = assets();
    fs.writeFileSync(path.join(dir, "entry.client-ABC123.js"), "import {a as n}from'./_shared/chunk-SMALL.js';import {D as a}from'./_shared/chunk-FRAMEWORK.js';n();a();");
    expect(addCompileHints(dir)).toEqual(["_shared/chunk-FRAMEWORK.js"]);
    expect(read(dir, "chunk-EDITOR.js").startsWith("var big=")).toBe(true);
  });

  it("adds it once when the build directory is hinted again", () => {
    const dir = assets();
    addCompileHints(dir);
    const once = read(dir, "chunk-FRAMEWORK.js");
    expect(addCompileHints(dir)).toEqual([]);
    expect(read(dir, "chunk-FRAMEWORK.js")).toBe(once);
  });

  it("is the comment Chrome reads, on a line of its own", () => {
    expect(COMPILE_HINT).toBe("//# allFunctionsCalledOnLoad\n");
  });

  it("refuses a directory without a client entry, instead of building scripts without the hint unnoticed", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "compile-hints-"));
    dirs.push(dir);
    expect(() => addCompileHints(dir)).toThrow(/no client entry/);
  });
});
