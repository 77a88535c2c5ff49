import pg from "pg";

// PostgreSQL for the tests (docs/scaling.md): RECIPALS_TEST_POSTGRES names a server and a role
// that may create databases, e.g. postgres://recipals:recipals@127.0.0.1:5432/postgres.
// Each run migrates one template database; each test file gets a fresh copy of it, as each gets a
// fresh :memory: SQLite database, and the run drops them all at the end.

export const TEST_POSTGRES = process.env.RECIPALS_TEST_POSTGRES ?? "";

/** The same server, another database. */
export function databaseUrl(admin: string, name: string): string {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdmin<T>(admin: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** Creates `name` as a copy of `template` (retrying while another copy of the template is being made). */
export async function createDatabase(admin: string, name: string, template?: string): Promise<string> {
  await withAdmin(admin, async (client) => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await client.query(`create database "${name}"${template ? ` template "${template}"` : ""}`);
        return;
      } catch (error) {
        const busy = /being accessed by other users/.test((error as Error).message);
        if (!busy || attempt > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  });
  return databaseUrl(admin, name);
}

export async function dropDatabases(admin: string, prefix: string): Promise<void> {
  await withAdmin(admin, async (client) => {
    const { rows } = await client.query<{ datname: string }>("select datname from pg_database where datname like $1", [`${prefix}%`]);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
  });
}
