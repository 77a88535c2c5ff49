import { Kysely, Migrator, PostgresDialect } from "kysely";
import pg from "pg";

import { migrationProvider } from "../../migrations/index";
import { TEST_POSTGRES, createDatabase, databaseUrl, dropDatabases } from "./postgres";

// Vitest global setup for a run on PostgreSQL (RECIPALS_TEST_POSTGRES set): one migrated template
// database for the run; tests/support/postgres-file.ts copies it for each test file.
export default async function setup({ provide }: { provide: (key: "postgresTemplate", value: string) => void }) {
  if (!TEST_POSTGRES) return;
  const prefix = `recipals_test_${process.pid}_`;
  const template = `${prefix}template`;
  await createDatabase(TEST_POSTGRES, template);
  const database = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl(TEST_POSTGRES, template), max: 1 }) }) });
  const { error } = await new Migrator({ db: database, provider: migrationProvider }).migrateToLatest();
  await database.destroy();
  if (error) throw error;
  provide("postgresTemplate", template);
  return async () => dropDatabases(TEST_POSTGRES, prefix);
}

declare module "vitest" {
  export interface ProvidedContext {
    postgresTemplate: string;
  }
}
