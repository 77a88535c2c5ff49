import type { Migration, MigrationProvider } from "kysely";

import * as init from "./20261121T0000-init";

// Static imports, not FileMigrationProvider: Node 20 cannot load .ts migrations at run
// time, while this module is compiled into the server build, the seed and the tests alike.
const migrations: Record<string, Migration> = {
  "20261121T0000-init": init,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
