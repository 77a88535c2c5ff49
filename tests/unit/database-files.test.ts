import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { filesWithoutDatabase, reachesDatabase } from "../support/database-files";

// The PostgreSQL run leaves out the test files that never reach the database (vitest.config.ts):
// a file wrongly called pure would lose its PostgreSQL run without a word.

const ROOT = path.resolve(__dirname, "../..");
const FOLDERS = ["app", "seed", "tests/unit", "tests/security"];

describe("which test files reach the database", () => {
  it("follows imports through our modules, `~/` and relative, static and dynamic, and the scripts a test runs", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-graph-"));
    try {
      fs.mkdirSync(path.join(dir, "app/server/db"), { recursive: true });
      fs.mkdirSync(path.join(dir, "app/lib"), { recursive: true });
      fs.writeFileSync(path.join(dir, "app/server/db/connection.server.ts"), "export const db = 1;\n");
      fs.writeFileSync(path.join(dir, "app/lib/pure.ts"), 'import fs from "node:fs";\nexport const two = 2;\n');
      fs.writeFileSync(path.join(dir, "app/lib/reader.ts"), 'export { db } from "../server/db/connection.server";\n');
      fs.mkdirSync(path.join(dir, "scripts"));
      fs.writeFileSync(path.join(dir, "scripts/migrate.js"), 'import { db } from "../app/lib/reader.ts";\n');
      fs.writeFileSync(path.join(dir, "scripts/tidy.js"), 'import fs from "node:fs";\n');
      const cases: Record<string, string> = {
        "alias.test.ts": 'import { db } from "~/server/db/connection.server";\n',
        "through.test.ts": 'import {\n  db,\n} from "./app/lib/reader";\n',
        "dynamic.test.ts": 'const { db } = await import("~/lib/reader");\n',
        "pure.test.ts": 'import { two } from "~/lib/pure";\nimport { expect } from "vitest";\n',
        "runs-migrate.test.ts": 'spawnSync(process.execPath, [path.join(ROOT, "scripts/migrate.js")]);\n',
        "runs-tidy.test.ts": 'spawnSync(process.execPath, ["scripts/tidy.js"]);\n',
      };
      for (const [name, text] of Object.entries(cases)) fs.writeFileSync(path.join(dir, name), text);
      const reaches = Object.fromEntries(Object.keys(cases).map((name) => [name, reachesDatabase(dir, path.join(dir, name))]));
      expect(reaches).toEqual({
        "alias.test.ts": true,
        "through.test.ts": true,
        "dynamic.test.ts": true,
        "pure.test.ts": false,
        "runs-migrate.test.ts": true,
        "runs-tidy.test.ts": false,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("calls pure the files of pure functions and none that reads or writes data", () => {
    const pure = filesWithoutDatabase(ROOT, FOLDERS);
    for (const file of ["tests/unit/quantity.test.ts", "tests/unit/units.test.ts", "tests/unit/ingredient-text.test.ts"]) expect(pure).toContain(file);
    for (const file of ["tests/unit/settings.test.ts", "tests/unit/password.test.ts", "tests/unit/blocker-safety.test.ts", "tests/security/permission-matrix.test.ts", "tests/unit/lens-scale.test.ts"]) {
      expect(pure).not.toContain(file);
    }
    // Every file called pure holds no query of its own either.
    for (const file of pure) expect(fs.readFileSync(path.join(ROOT, file), "utf8"), file).not.toMatch(/\b(selectFrom|insertInto|updateTable|deleteFrom)\(/);
  });
});
