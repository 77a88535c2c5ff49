import crypto from "node:crypto";


import { engineOf, type DB } from "../app/server/db/connection.server";
import { hashPassword, randomPassword } from "../app/server/auth/password.server";
import { nextSeq, nowIso } from "../app/server/queries/seq.server";

import { hasSeedRun, recordSeedRun, SEED_RUNS } from "./seed-runs";

export const ADMIN_USERNAME = "admin";

export interface AdminResult {
  created: boolean;
  /** Set only when nobody chose the password, so the caller can show it this once. */
  generatedPassword?: string;
}

/**
 * Creates the administrator once (docs/rules.md#seed-sources). The `seed_runs` mark means a renamed or
 * deleted admin is not silently recreated with a new password on the next start.
 */
export async function ensureAdmin(db: DB, options: { password?: string; log: (line: string) => void }): Promise<AdminResult> {
  if (await hasSeedRun(db, SEED_RUNS.admin)) return { created: false };
  const password = options.password || randomPassword();
  const passwordHash = await hashPassword(password);

  const created = await db.transaction().execute(async (trx) => {
    // Servers starting together make one admin (see importData in seed/index.ts).
    await engineOf(trx).writers.lock(trx, ["seed"]);
    if (await hasSeedRun(trx, SEED_RUNS.admin)) return null;
    const taken = await trx
      .selectFrom("users")
      .select("id")
      .where(engineOf(trx).equalsIgnoringCase("username", ADMIN_USERNAME))
      .executeTakeFirst();
    if (taken) return false;
    await trx
      .insertInto("users")
      .values({
        id: crypto.randomUUID(),
        username: ADMIN_USERNAME,
        name: "Administrator",
        password_hash: passwordHash,
        role: "ADMIN",
        created_at: nowIso(),
        seq: nextSeq(trx, "users"),
      })
      .execute();
    await recordSeedRun(trx, SEED_RUNS.admin);
    return true;
  });

  if (created === null) return { created: false };
  if (!created) {
    // Not marked as done: once that account is renamed, the next seed creates the admin.
    options.log(`A user named "${ADMIN_USERNAME}" already exists, so no administrator account was created.`);
    return { created: false };
  }
  if (options.password) return { created: true };
  options.log(`Admin account: ${ADMIN_USERNAME} / ${password}`);
  return { created: true, generatedPassword: password };
}
