import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import { Migrator, sql, type Kysely, type Migration } from "kysely";
import { afterAll, describe, expect, it } from "vitest";

import { migrationProvider } from "../../migrations/index";
import { closeDatabaseHandle, openDatabase, type DB } from "~/server/db/connection.server";

import { TEST_POSTGRES, createDatabase, dropDatabases } from "../support/postgres";

// Upgrades are expand-then-contract (docs/operator-guide.md, "Upgrading"): while app servers are
// restarted one at a time, the previous release still runs against the migrated schema, so a
// release only adds tables and columns, and removes what the previous release stopped using one
// release later. This test applies every migration one at a time to an empty database and compares
// the tables and columns before and after each: whatever disappears (a drop, a rename, in the query
// builder or in raw SQL) is refused unless the migration says why in a `// contract: …` line AND the
// operator's guide lists it. A table built again under its own name with the same columns loses
// nothing. On a PostgreSQL run (RECIPALS_TEST_POSTGRES) the same check runs on PostgreSQL instead.

const ROOT = path.resolve(__dirname, "../..");
const GUIDE = path.join(ROOT, "docs/operator-guide.md");
const LIST_HEADING = /^#{2,6} Migrations that remove something\s*$/;
const MARKER = /^\/\/ contract: \S/m;

type Schema = Map<string, Set<string>>;

// SQLite: FTS5 keeps a virtual table's data in shadow tables named after it; they come and go
// with it and are no schema of ours. Kysely's own bookkeeping is not ours either.
const FTS_SHADOWS = ["data", "idx", "content", "docsize", "config"];

async function sqliteSchema(database: Kysely<any>): Promise<Schema> {
  const { rows } = await sql<{ name: string; sql: string | null }>`
    select name, sql from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' and name not like 'kysely\\_%' escape '\\'`.execute(database);
  const virtual = rows.filter((row) => /^create virtual table/i.test(row.sql ?? "")).map((row) => row.name);
  const shadow = new Set(virtual.flatMap((name) => FTS_SHADOWS.map((suffix) => `${name}_${suffix}`)));
  const schema: Schema = new Map();
  for (const { name } of rows) {
    if (shadow.has(name)) continue;
    const columns = await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(database);
    schema.set(name, new Set(columns.rows.map((column) => column.name)));
  }
  return schema;
}

async function postgresSchema(database: Kysely<any>): Promise<Schema> {
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' and c.table_name not like 'kysely\\_%'`.execute(database);
  const schema: Schema = new Map();
  for (const row of rows) {
    if (!schema.has(row.table_name)) schema.set(row.table_name, new Set());
    schema.get(row.table_name)!.add(row.column_name);
  }
  return schema;
}

async function schemaOf(database: Kysely<any>, engine: "sqlite" | "postgres"): Promise<Schema> {
  return engine === "sqlite" ? sqliteSchema(database) : postgresSchema(database);
}

/** What `after` no longer has of `before`: `table t` when a whole table went, else `column t.c`. */
function disappeared(before: Schema, after: Schema): string[] {
  const lost: string[] = [];
  for (const [table, columns] of before) {
    const now = after.get(table);
    if (!now) lost.push(`table ${table}`);
    else for (const column of columns) if (!now.has(column)) lost.push(`column ${table}.${column}`);
  }
  return lost.sort();
}

interface Loss {
  migration: string;
  lost: string[];
}

/**
 * Applies `migrations` to the empty `database` one at a time, in the migrator's order (by name),
 * and says what tables and columns each one made disappear.
 */
async function schemaLosses(database: Kysely<any>, engine: "sqlite" | "postgres", migrations: Record<string, Migration>): Promise<{ losses: Loss[]; schema: Schema }> {
  const migrator = new Migrator({ db: database, provider: { getMigrations: async () => migrations } });
  const losses: Loss[] = [];
  let before = await schemaOf(database, engine);
  for (const name of Object.keys(migrations).sort()) {
    const { error } = await migrator.migrateTo(name);
    if (error) throw error instanceof Error ? error : new Error(String(error));
    const after = await schemaOf(database, engine);
    const lost = disappeared(before, after);
    if (lost.length > 0) losses.push({ migration: name, lost });
    before = after;
  }
  return { losses, schema: before };
}

/**
 * The refusals: a loss in a migration that is not both marked (`// contract: <why>` in its file)
 * and listed in the operator's guide; a marked migration the guide does not list, or the reverse.
 */
function refusals(losses: Loss[], marked: ReadonlySet<string>, listed: ReadonlySet<string>): string[] {
  const refused: string[] = [];
  for (const { migration, lost } of losses) {
    const missing = [marked.has(migration) ? "" : "a `// contract: <why>` line in its file", listed.has(migration) ? "" : "a line in the operator's guide list"].filter(Boolean);
    if (missing.length > 0) refused.push(`${migration} removes ${lost.join(", ")} without ${missing.join(" and ")}`);
  }
  for (const name of marked) if (!listed.has(name)) refused.push(`${name} is marked as a contract but not listed in the operator's guide`);
  for (const name of listed) if (!marked.has(name)) refused.push(`${name} is listed in the operator's guide but has no \`// contract:\` line`);
  return refused;
}

/** Migration names in backquotes under the guide's "Migrations that remove something" heading. */
function listedInGuide(): Set<string> {
  const lines = fs.readFileSync(GUIDE, "utf8").split("\n");
  const start = lines.findIndex((line) => LIST_HEADING.test(line));
  if (start < 0) throw new Error(`docs/operator-guide.md has no heading "Migrations that remove something"`);
  const end = lines.findIndex((line, index) => index > start && /^#{1,6} /.test(line));
  const section = lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
  return new Set([...section.matchAll(/`(\d{8}T\d{4}-[\w-]+)`/g)].map((match) => match[1]!));
}

function markedFiles(names: string[]): Set<string> {
  return new Set(names.filter((name) => MARKER.test(fs.readFileSync(path.join(ROOT, "migrations", `${name}.ts`), "utf8"))));
}

const engine = TEST_POSTGRES ? "postgres" : "sqlite";
const prefix = `recipals_test_safety_${process.pid}_`;

/** An empty database of this run's engine, closed by the caller. */
async function emptyDatabase(): Promise<DB> {
  if (engine === "sqlite") return openDatabase(":memory:");
  const url = await createDatabase(TEST_POSTGRES, `${prefix}${crypto.randomBytes(4).toString("hex")}`);
  return openDatabase({ engine: "postgres", url, poolSize: 1, replicaUrls: [] });
}

async function lossesOf(migrations: Record<string, Migration>): Promise<{ losses: Loss[]; schema: Schema }> {
  const database = await emptyDatabase();
  try {
    return await schemaLosses(database as Kysely<any>, engine, migrations);
  } finally {
    await closeDatabaseHandle(database);
  }
}

// Dropping waits for the databases' last connections to go: on a busy machine that takes a while.
afterAll(async () => {
  if (engine === "postgres") await dropDatabases(TEST_POSTGRES, prefix);
}, 60_000);

describe(`migrations only add, one release at a time (${engine})`, () => {
  it("no migration removes a table or a column without saying why, in its file and in the operator's guide", async () => {
    const migrations = await migrationProvider.getMigrations();
    const names = Object.keys(migrations);
    const listed = listedInGuide();
    for (const name of listed) expect(names, `the guide lists ${name}, which is not a migration`).toContain(name);
    const { losses, schema } = await lossesOf(migrations);
    // The snapshot sees the schema (a check that saw nothing would refuse nothing).
    expect(schema.get("users")).toContain("email_confirmed_at");
    expect(schema.has("reports")).toBe(true);
    expect([...schema.keys()].some((table) => table.startsWith("kysely_") || table.endsWith("_fts_data"))).toBe(false);
    expect(refusals(losses, markedFiles(names), listed)).toEqual([]);
  });

  it("refuses a migration that drops or renames a column or a table in one step, written in raw SQL or not", async () => {
    const real = await migrationProvider.getMigrations();
    const fake = (up: Migration["up"]): Migration => ({ up });
    const bad: Record<string, Migration> = {
      ...real,
      "29990101T0000-drop-a-column": fake(async (db) => {
        await sql`alter table users drop column email_confirmed_at`.execute(db);
      }),
      "29990101T0100-rename-a-table": fake(async (db) => {
        await db.schema.alterTable("account_tokens").renameTo("account_links").execute();
      }),
      "29990101T0200-rename-a-column": fake(async (db) => {
        await db.schema.alterTable("account_links").renameColumn("used_at", "spent_at").execute();
      }),
      "29990101T0300-build-again": fake(async (db) => {
        // Dropped and made again under its name with the same columns: nothing is lost.
        await db.schema.createTable("account_links_next").addColumn("token_hash", "text").addColumn("user_id", "text").addColumn("purpose", "text").addColumn("email", "text").addColumn("password_stamp", "text").addColumn("created_at", "bigint").addColumn("expires_at", "bigint").addColumn("spent_at", "bigint").execute();
        await db.schema.dropTable("account_links").execute();
        await db.schema.alterTable("account_links_next").renameTo("account_links").execute();
      }),
    };
    const { losses } = await lossesOf(bad);
    expect(losses).toEqual([
      { migration: "29990101T0000-drop-a-column", lost: ["column users.email_confirmed_at"] },
      { migration: "29990101T0100-rename-a-table", lost: ["table account_tokens"] },
      { migration: "29990101T0200-rename-a-column", lost: ["column account_links.used_at"] },
    ]);

    const names = Object.keys(real);
    const refused = refusals(losses, markedFiles(names), listedInGuide());
    expect(refused).toHaveLength(3);
    expect(refused[0]).toMatch(/^29990101T0000-drop-a-column removes column users\.email_confirmed_at without a `\/\/ contract: <why>` line in its file and a line in the operator's guide list$/);
    // Marked but not listed, listed but not marked: still refused. Both: allowed.
    const drop = "29990101T0000-drop-a-column";
    const one = [losses[0]!];
    expect(refusals(one, new Set([drop]), new Set())).toEqual([
      `${drop} removes column users.email_confirmed_at without a line in the operator's guide list`,
      `${drop} is marked as a contract but not listed in the operator's guide`,
    ]);
    expect(refusals(one, new Set(), new Set([drop]))).toHaveLength(2);
    expect(refusals(one, new Set([drop]), new Set([drop]))).toEqual([]);
  });
});
