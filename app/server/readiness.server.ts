import { Migrator, sql } from "kysely";

import { migrationProvider } from "../../migrations/index";
import { db, databaseReady, type DB } from "./db/connection.server";
import { checkImageStore, imageStoreLabel } from "./media/storage.server";

// Whether this process can do its work now (docs/operator-guide.md, "Health and readiness"): the
// database answers, its migrations are current, the image store is reachable. Each check gives up
// after READY_CHECK_MS, so /readyz answers within 2 s even while the database is away.

export const READY_CHECK_MS = 1500;

export interface ReadyProblem {
  check: "database" | "migrations" | "image-store";
  message: string;
}

function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** What keeps this process from doing its work now; empty when it is ready. */
export async function readinessProblems(database: DB = db, { timeoutMs = READY_CHECK_MS } = {}): Promise<ReadyProblem[]> {
  const problems: ReadyProblem[] = [];
  const databaseCheck = within(
    timeoutMs,
    (async () => {
      await databaseReady(database);
      await sql`select 1`.execute(database);
      const migrations = await new Migrator({ db: database, provider: migrationProvider }).getMigrations();
      return migrations.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
    })(),
    "The database",
  ).then(
    (pending) => {
      if (pending.length > 0) problems.push({ check: "migrations", message: `${pending.length} migration(s) not applied: ${pending.join(", ")}` });
    },
    (error: Error) => {
      problems.push({ check: "database", message: error.message });
    },
  );
  const storeCheck = within(timeoutMs, checkImageStore(), `The image store (${imageStoreLabel()})`).catch((error: Error) => {
    problems.push({ check: "image-store", message: error.message });
  });
  await Promise.all([databaseCheck, storeCheck]);
  return problems.sort((a, b) => a.check.localeCompare(b.check));
}

