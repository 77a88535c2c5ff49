import type { DB } from "../app/server/db/connection.server";
import { nowIso } from "../app/server/queries/seq.server";

// Rows in `seed_runs` say what has been seeded, so running the seed again changes nothing.
export const SEED_RUNS = {
  /** The administrator account (created once, even if later renamed or deleted). */
  admin: "admin",
  /** The built-in core set (users plus one sample recipe). */
  core: "core",
  /** A finished full import, from the sample file or from TheMealDB. */
  sample: "sample-data",
} as const;

export type SeedRunName = (typeof SEED_RUNS)[keyof typeof SEED_RUNS];

export async function hasSeedRun(db: DB, name: SeedRunName): Promise<boolean> {
  const row = await db.selectFrom("seed_runs").select("name").where("name", "=", name).executeTakeFirst();
  return row !== undefined;
}

/** Call inside the import's transaction, so the mark and the data commit together. */
export async function recordSeedRun(trx: DB, name: SeedRunName, detail = ""): Promise<void> {
  await trx.insertInto("seed_runs").values({ name, ran_at: nowIso(), detail }).execute();
}
