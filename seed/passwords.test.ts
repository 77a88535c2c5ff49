import { afterAll, describe, expect, test } from "vitest";

import type { DB } from "../app/server/db/connection.server";
import { verifyPassword } from "../app/server/auth/password.server";

import { CORE_PASSWORD } from "./core";
import { seedDatabase, seedUserPasswordsFor } from "./index";
import { captureLog, freshDb, sampleFilePath } from "./test-support";

// Seed users' passwords (docs/rules.md#seed-sources): the published one only in development and
// tests; a production server gets a random one per seed user, shown once, or SEED_USER_PASSWORD.

const SEED_USERNAMES = ["jasminduong09", "danieljacob", "recipe_bot"];

async function hashOf(db: DB, username: string): Promise<string> {
  const row = await db.selectFrom("users").select("password_hash").where("username", "=", username).executeTakeFirstOrThrow();
  return row.password_hash;
}

describe("seed users' passwords", () => {
  const dbs: DB[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.destroy();
  });

  test("are published ones only in development and tests; one chosen for all with SEED_USER_PASSWORD; random anywhere else", () => {
    expect(seedUserPasswordsFor({ NODE_ENV: "development" })).toBe("as-written");
    expect(seedUserPasswordsFor({ NODE_ENV: "test" })).toBe("as-written");
    expect(seedUserPasswordsFor({ NODE_ENV: "production" })).toBe("random");
    expect(seedUserPasswordsFor({})).toBe("random");
    expect(seedUserPasswordsFor({ NODE_ENV: "production", SEED_USER_PASSWORD: "chosen-one" })).toEqual({ password: "chosen-one" });
  });

  test("a production seed leaves no account with the published password, and says each random one once", async () => {
    const db = await freshDb();
    dbs.push(db);
    const output = captureLog();
    const report = await seedDatabase(db, { seedFile: sampleFilePath(), adminPassword: "admin-password-for-tests", userPasswords: "random", log: output.log });
    expect(Object.keys(report.userPasswords ?? {}).sort()).toEqual([...SEED_USERNAMES].sort());
    for (const username of SEED_USERNAMES) {
      const hash = await hashOf(db, username);
      expect(await verifyPassword(CORE_PASSWORD, hash), username).toBe(false);
      const shown = report.userPasswords![username]!;
      expect(shown.length).toBeGreaterThanOrEqual(16);
      expect(await verifyPassword(shown, hash), username).toBe(true);
      expect(output.lines.filter((line) => line.includes(`${username} / ${shown}`))).toHaveLength(1);
    }
    // A second seed changes nothing and shows nothing.
    const again = captureLog();
    const second = await seedDatabase(db, { seedFile: sampleFilePath(), userPasswords: "random", log: again.log });
    expect(second.userPasswords).toBeUndefined();
    expect(again.lines.join("\n")).not.toMatch(/passwords/);
  });

  test("SEED_USER_PASSWORD gives every seed user that password, shown nowhere", async () => {
    const db = await freshDb();
    dbs.push(db);
    const output = captureLog();
    const report = await seedDatabase(db, { seedFile: sampleFilePath(), userPasswords: { password: "family-kitchen-2026" }, log: output.log });
    expect(report.userPasswords).toBeUndefined();
    for (const username of SEED_USERNAMES) expect(await verifyPassword("family-kitchen-2026", await hashOf(db, username))).toBe(true);
    expect(output.lines.join("\n")).not.toContain("family-kitchen-2026");
  });
});
