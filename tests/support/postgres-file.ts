import crypto from "node:crypto";

import { inject } from "vitest";

import { TEST_POSTGRES, createDatabase } from "./postgres";

// Per test file on a PostgreSQL run: a fresh copy of the migrated template, named by
// DATABASE_URL before app/server/db/connection.server.ts is imported (setup files run first).
if (TEST_POSTGRES) {
  const template = inject("postgresTemplate");
  const name = template.replace(/template$/, crypto.randomBytes(5).toString("hex"));
  process.env.DATABASE_URL = await createDatabase(TEST_POSTGRES, name, template);
  process.env.DATABASE_POOL_SIZE ??= "4";
}
