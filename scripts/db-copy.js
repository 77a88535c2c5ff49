// npm run db:copy -- --to postgres://USER:PASSWORD@HOST:5432/DB [--from FILE] [--batch-size N]:
// moves a community from its SQLite file (DATABASE_PATH, as the app resolves it, or FILE) into an
// empty PostgreSQL database (docs/scaling.md, "Moving a community from SQLite").
//
// - The target is migrated with the app's own migrator and migration names, so it is exactly what
//   `npm run db:migrate` makes; it must hold no rows in any table (an empty migrated one is fine).
// - Everything is copied in ONE transaction: a failure, or row counts that differ, rolls it all
//   back and the target is left empty. The transaction takes the app's write lock, so a server
//   already pointed at the target waits instead of writing in between.
// - Tables go in foreign-key order, in batches of rows sent as one array per column
//   (`insert … select * from unnest($1::text[], …)`): one statement per batch whatever its size,
//   and the next batch is read from SQLite while PostgreSQL stores the previous one.
// - The tables' own triggers (search documents, change notices) are switched off while loading,
//   and the foreign keys are dropped and added back afterwards (PostgreSQL then checks each with
//   one join instead of a lookup per row); both are things the tables' owner may do, no superuser
//   needed. The search index is then rebuilt once with recipals_rebuild_search(), and every
//   serial sequence is moved past the largest copied id.
// - The source is read in one read transaction (a consistent snapshot even while a server writes).
//
// `copyDatabase` is the whole job for other scripts (the bench) and tests; the command line below
// only parses arguments, draws progress and prints the counts.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import SQLite from "better-sqlite3";
import { Kysely, Migrator, PostgresDialect } from "kysely";
import pg from "pg";

import { loadModule } from "./load-module.js";
import { redactUrl } from "./redact-url.js";

const USAGE = "usage: npm run db:copy -- --to postgres://USER:PASSWORD@HOST:5432/DATABASE [--from FILE] [--batch-size N]";
export const DEFAULT_BATCH_SIZE = 5000;

/**
 * Tables the search migration fills from the others (search documents, shuffle keys): never
 * copied, rebuilt on the target by recipals_rebuild_search(). (SQLite's FTS5 tables are virtual
 * tables with shadow tables of their own; neither kind is listed as a plain table.)
 */
const DERIVED_TABLES = new Set(["recipe_search", "recipe_shuffle"]);
/**
 * The page cache's record of what commits changed (migrations/20261125T0000-cache-scopes.ts):
 * about the source's servers, not about content. Never copied, nor counted as data in the target;
 * the copy records itself as one change to everything.
 */
const CACHE_TABLES = new Set(["cache_versions", "cache_scoping"]);
/** The app's write lock (app/server/db/engines/postgres.server.ts): servers' writes wait for the copy. */
const WRITE_LOCK = "select pg_advisory_xact_lock(7245001)";
const NOTICE_CHANNEL = "recipals_changes";

/** A one-line refusal: the CLI prints its message as it is. */
export class CopyRefused extends Error {
  constructor(message, extra = {}) {
    super(message);
    this.name = "CopyRefused";
    Object.assign(this, extra);
  }
}


/** Checks `to` and answers it; refuses anything that is not a postgres:// or postgresql:// URL. */
function targetUrl(to) {
  if (typeof to !== "string" || to.trim() === "") throw new CopyRefused(`--to is needed: the PostgreSQL database to copy into (${USAGE})`);
  let parsed;
  try {
    parsed = new URL(to.trim());
  } catch {
    throw new CopyRefused(`--to is not a valid URL; it must look like postgres://USER:PASSWORD@HOST:5432/DATABASE`);
  }
  if (!/^postgres(ql)?:$/i.test(parsed.protocol)) {
    throw new CopyRefused(`--to must be a postgres:// or postgresql:// URL (got ${parsed.protocol}//…)`);
  }
  if (parsed.pathname.replace(/^\//, "") === "") throw new CopyRefused("--to names no database: end it with /DATABASE");
  return to.trim();
}

const quote = (name) => `"${name.replaceAll('"', '""')}"`;

// ---------------------------------------------------------------------------------------------
// Values: SQLite's storage classes to PostgreSQL's input text, as elements of an array literal.

const escapeText = (text) => `"${/["\\]/.test(text) ? text.replace(/["\\]/g, "\\$&") : text}"`;

/**
 * How one column's SQLite values become elements of a PostgreSQL array literal, by the target
 * column's type. Integers are read as BigInt (no rounding beyond 2^53); booleans were 0/1;
 * timestamps may have been milliseconds; text may have been stored as a number.
 */
function elementWriter(type) {
  if (type === "boolean") {
    return (value) => {
      if (value === null) return "NULL";
      if (typeof value === "string") return /^(1|t|true|y|yes|on)$/i.test(value.trim()) ? "t" : "f";
      return Number(value) !== 0 ? "t" : "f";
    };
  }
  if (/^(smallint|integer|bigint|numeric|real|double precision)\b/.test(type)) {
    return (value) => {
      if (value === null) return "NULL";
      if (typeof value === "bigint") return value.toString();
      if (typeof value === "number") return Number.isFinite(value) ? String(value) : value > 0 ? "Infinity" : value < 0 ? "-Infinity" : "NaN";
      return escapeText(String(value));
    };
  }
  if (/^timestamp\b/.test(type)) {
    return (value) => {
      if (value === null) return "NULL";
      if (typeof value === "bigint" || typeof value === "number") return escapeText(new Date(Number(value)).toISOString());
      return escapeText(String(value));
    };
  }
  if (type === "bytea") {
    return (value) => {
      if (value === null) return "NULL";
      const bytes = Buffer.isBuffer(value) ? value : Buffer.from(String(value), "utf8");
      return `"\\\\x${bytes.toString("hex")}"`;
    };
  }
  return (value) => {
    if (value === null) return "NULL";
    if (typeof value === "string") return escapeText(value);
    if (Buffer.isBuffer(value)) return escapeText(value.toString("utf8"));
    return escapeText(String(value));
  };
}

// ---------------------------------------------------------------------------------------------
// The app's migrations (TypeScript, loaded as the prepare step loads the seeder).

let migrationsModule = null;
const loadMigrations = () => (migrationsModule ??= loadModule("db-copy", `export { migrationProvider } from "./migrations/index";`));

// ---------------------------------------------------------------------------------------------
// The source

function openSource(from) {
  if (typeof from !== "string" || from === "" || from === ":memory:") throw new CopyRefused("--from needs the SQLite database file to copy");
  const file = path.resolve(from);
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new CopyRefused(`there is no SQLite database at ${file} (set DATABASE_PATH or pass --from FILE)`);
  }
  if (!stat.isFile()) throw new CopyRefused(`${file} is not a file (set DATABASE_PATH or pass --from FILE)`);
  let source;
  try {
    source = new SQLite(file, { readonly: true, fileMustExist: true });
    source.pragma("busy_timeout = 10000");
    source.prepare("select count(*) from sqlite_master").get();
  } catch (error) {
    source?.close();
    throw new CopyRefused(`cannot read ${file} as a SQLite database: ${error.message}`);
  }
  return { file, source };
}

/** The source's own tables (no SQLite internals, FTS shadow tables, derived or migration tables). */
function sourceTables(source) {
  return source
    .prepare("select name from pragma_table_list where schema = 'main' and type = 'table'")
    .pluck()
    .all()
    .filter((name) => !/^sqlite_/.test(name) && !/^kysely_migration/.test(name) && !DERIVED_TABLES.has(name) && !CACHE_TABLES.has(name));
}

function sourceMigrations(source, file) {
  const known = source.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
  if (!known) throw new CopyRefused(`${file} is not a ReciPals database (it has no migrations table)`);
  return source.prepare("select name from kysely_migration order by name").pluck().all();
}

// ---------------------------------------------------------------------------------------------
// The target

async function connectTarget(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A connection lost mid-copy surfaces as the failing query's error; this only keeps the process alive.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    const reason = error.code === "3D000" ? `${error.message} (create it first, e.g. createdb)` : error.message || error.code || String(error);
    throw new CopyRefused(`cannot reach PostgreSQL at ${redactUrl(url)}: ${reason}`);
  }
  return client;
}

/** Every table of the target's schema but the migrator's own, with whether it holds a row. */
async function targetTablesWithRows(client) {
  const tables = await targetTables(client);
  if (tables.length === 0) return [];
  const { rows } = await client.query(tables.map((name, i) => `select ${i} as i, exists (select 1 from ${quote(name)}) as has_rows`).join(" union all "));
  return rows.filter((row) => row.has_rows).map((row) => tables[row.i]);
}

/** The tables of the target's schema, but the migrator's own and the page cache's. */
async function targetTables(client) {
  const { rows } = await client.query(
    `select c.relname as name from pg_class c
      where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and c.relname not like 'kysely\\_migration%'
      order by c.relname`,
  );
  return rows.map((row) => row.name).filter((name) => !CACHE_TABLES.has(name));
}

function refuseIfNotEmpty(withRows, url) {
  if (withRows.length === 0) return;
  const listed = withRows.slice(0, 3).join(", ") + (withRows.length > 3 ? ` and ${withRows.length - 3} more` : "");
  throw new CopyRefused(`the target ${redactUrl(url)} already holds data (rows in ${listed}); db:copy only fills an empty database`);
}

async function migrateTarget(url) {
  const { migrationProvider } = await loadMigrations();
  const database = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 10_000 }) }) });
  try {
    const { error } = await new Migrator({ db: database, provider: migrationProvider }).migrateToLatest();
    if (error) throw new CopyRefused(`migrating the target ${redactUrl(url)} failed: ${error.message ?? String(error)}`);
  } finally {
    await database.destroy();
  }
}

/** Columns of a target table in order, with their types (generated columns are computed, not copied). */
async function targetColumns(client, table) {
  const { rows } = await client.query(
    `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attidentity as identity,
            pg_get_serial_sequence(quote_ident($1), a.attname) as sequence
       from pg_attribute a
      where a.attrelid = quote_ident($1)::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
      order by a.attnum`,
    [table],
  );
  return rows;
}

/** The foreign keys of `tables`, as `alter table … add constraint` puts them back. */
async function foreignKeysOf(client, tables) {
  const { rows } = await client.query(
    `select t.relname as table, k.conname as name, pg_get_constraintdef(k.oid) as definition
       from pg_constraint k join pg_class t on t.oid = k.conrelid
      where k.contype = 'f' and t.relnamespace = current_schema()::regnamespace and t.relname = any($1)
      order by t.relname, k.conname`,
    [tables],
  );
  return rows;
}

/** The tables in an order where every table comes after the tables its foreign keys point to. */
async function foreignKeyOrder(client, tables) {
  const { rows } = await client.query(
    `select child.relname as child, parent.relname as parent
       from pg_constraint k
       join pg_class child on child.oid = k.conrelid
       join pg_class parent on parent.oid = k.confrelid
      where k.contype = 'f' and k.connamespace = current_schema()::regnamespace`,
  );
  const parents = new Map(tables.map((name) => [name, new Set()]));
  for (const { child, parent } of rows) if (child !== parent && parents.has(child) && parents.has(parent)) parents.get(child).add(parent);
  const ordered = [];
  const placed = new Set();
  const visiting = new Set();
  const place = (name) => {
    if (placed.has(name)) return;
    if (visiting.has(name)) throw new CopyRefused(`the target's foreign keys form a cycle through ${name}`);
    visiting.add(name);
    for (const parent of [...parents.get(name)].sort()) place(parent);
    visiting.delete(name);
    placed.add(name);
    ordered.push(name);
  };
  for (const name of [...tables].sort()) place(name);
  return ordered;
}

// ---------------------------------------------------------------------------------------------
// One table

async function copyTable({ client, source, table, columns, total, batchSize, progress }) {
  const names = columns.map((column) => quote(column.name)).join(", ");
  const writers = columns.map((column) => elementWriter(column.type));
  const overriding = columns.some((column) => column.identity === "a") ? " overriding system value" : "";
  const insert = `insert into ${quote(table)} (${names})${overriding} select * from unnest(${columns
    .map((column, i) => `$${i + 1}::${column.type}[]`)
    .join(", ")})`;
  const rows = source.prepare(`select ${names} from ${quote(table)}`).raw(true).safeIntegers(true);

  let done = 0;
  let inFlight = null;
  let parts = columns.map(() => []);
  let count = 0;
  progress(0);
  // Hands a batch to PostgreSQL and goes back to reading the next one while it is stored.
  const flush = async () => {
    const values = parts.map((elements) => `{${elements.join(",")}}`);
    const size = count;
    parts = columns.map(() => []);
    count = 0;
    if (inFlight) await inFlight;
    inFlight = client.query(insert, values).then(() => {
      done += size;
      progress(done);
    });
    // Awaited before the next batch or at the end; this only stops an early rejection counting as unhandled.
    inFlight.catch(() => undefined);
  };
  for (const row of rows.iterate()) {
    for (let i = 0; i < row.length; i += 1) parts[i].push(writers[i](row[i]));
    count += 1;
    if (count >= batchSize) await flush();
  }
  if (count > 0) await flush();
  if (inFlight) await inFlight;
  if (done !== total) throw new CopyRefused(`${table}: read ${done} rows from SQLite, expected ${total}`);
}

// ---------------------------------------------------------------------------------------------
// The whole copy

/**
 * Copies the SQLite database `from` into the empty PostgreSQL database `to` (see the top of this
 * file). `onProgress({ table, done, total, index, count })` is called as each table starts and
 * after each stored batch; `table` is "search index" while the search documents are rebuilt.
 * Answers `{ tables: [{ name, rows }], rows, ms, searchDocuments }`; throws CopyRefused (one line,
 * password hidden) when it refuses or fails, with the target left as it was (or migrated and
 * empty, when it started without tables). A count mismatch also carries `counts`.
 */
export async function copyDatabase({ from, to, batchSize = DEFAULT_BATCH_SIZE, onProgress = () => undefined } = {}) {
  const started = Date.now();
  const url = targetUrl(to);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new CopyRefused(`the batch size must be a whole number of at least 1 (got ${batchSize})`);
  const { file, source } = openSource(from);
  let client = null;
  try {
    const { migrationProvider } = await loadMigrations();
    const appMigrations = Object.keys(await migrationProvider.getMigrations()).sort();
    const done = sourceMigrations(source, file);
    const missing = appMigrations.filter((name) => !done.includes(name));
    const unknown = done.filter((name) => !appMigrations.includes(name));
    if (unknown.length > 0) throw new CopyRefused(`${file} has migrations this version of ReciPals does not know (${unknown.join(", ")}); update ReciPals first`);
    if (missing.length > 0) throw new CopyRefused(`${file} is not migrated to the latest version (missing ${missing.join(", ")}); run npm run db:migrate with DATABASE_PATH=${file} first`);

    client = await connectTarget(url);
    // Refuse before migrating, so a target holding data is not touched at all.
    refuseIfNotEmpty(await targetTablesWithRows(client), url);
    await migrateTarget(url);

    const toTables = (await targetTables(client)).filter((name) => !DERIVED_TABLES.has(name));
    const fromTables = sourceTables(source);
    const extra = fromTables.filter((name) => !toTables.includes(name));
    if (extra.length > 0) throw new CopyRefused(`the source has tables the migrated target lacks (${extra.join(", ")})`);
    const absent = toTables.filter((name) => !fromTables.includes(name));
    if (absent.length > 0) throw new CopyRefused(`the source lacks tables of the migrated target (${absent.join(", ")})`);
    const order = await foreignKeyOrder(client, toTables);

    const plans = [];
    for (const table of order) {
      const columns = await targetColumns(client, table);
      const sourceColumns = source.prepare(`select name from pragma_table_info(?)`).pluck().all(table);
      const lacking = columns.filter((column) => !sourceColumns.includes(column.name)).map((column) => column.name);
      const surplus = sourceColumns.filter((name) => !columns.some((column) => column.name === name));
      if (lacking.length > 0 || surplus.length > 0) {
        throw new CopyRefused(`${table} has different columns in the source and the target (${[...lacking, ...surplus].join(", ")})`);
      }
      plans.push({ table, columns });
    }

    // One read transaction on the source: every count and every row from the same instant.
    source.exec("begin");
    try {
      for (const plan of plans) plan.total = Number(source.prepare(`select count(*) from ${quote(plan.table)}`).pluck().get());

      await client.query("begin");
      try {
        await client.query(WRITE_LOCK);
        // Checked again under the lock: a server may have written since the first look.
        refuseIfNotEmpty(await targetTablesWithRows(client), url);
        // Foreign keys come off while loading and go back on after: PostgreSQL then checks each
        // one with a single join over the whole table instead of a lookup per inserted row (about
        // half the time of a large copy). The tables' owner may do this; no superuser needed.
        const foreignKeys = await foreignKeysOf(client, plans.map((plan) => plan.table));
        for (const key of foreignKeys) await client.query(`alter table ${quote(key.table)} drop constraint ${quote(key.name)}`);
        for (const { table } of plans) await client.query(`alter table ${quote(table)} disable trigger user`);

        for (const [index, plan] of plans.entries()) {
          const progress = (rows) => onProgress({ table: plan.table, done: rows, total: plan.total, index, count: plans.length });
          try {
            await copyTable({ client, source, table: plan.table, columns: plan.columns, total: plan.total, batchSize, progress });
          } catch (error) {
            if (error instanceof CopyRefused) throw error;
            throw new CopyRefused(`copying ${plan.table} failed: ${oneLine(error)}; nothing was copied`);
          }
        }

        for (const { table } of plans) await client.query(`alter table ${quote(table)} enable trigger user`);
        // Statistics before the checks and the rebuild: without them the planner takes the
        // just-filled tables for empty ones and scans every tag and line table once per recipe
        // (minutes at 50,000 recipes). ANALYZE in the loading transaction counts its rows.
        await client.query(`analyze ${plans.map((plan) => quote(plan.table)).join(", ")}`);
        for (const key of foreignKeys) {
          try {
            await client.query(`alter table ${quote(key.table)} add constraint ${quote(key.name)} ${key.definition}`);
          } catch (error) {
            throw new CopyRefused(`the copied rows of ${key.table} break its foreign key ${key.name}: ${oneLine(error)}; nothing was copied`);
          }
        }
        const recipes = plans.find((plan) => plan.table === "recipes")?.total ?? 0;
        onProgress({ table: "search index", done: 0, total: recipes, index: plans.length, count: plans.length });
        await client.query("select recipals_rebuild_search()");
        onProgress({ table: "search index", done: recipes, total: recipes, index: plans.length, count: plans.length });

        for (const { table, columns } of plans) {
          for (const column of columns.filter((c) => c.sequence)) {
            await client.query(`select setval($1::regclass, coalesce((select max(${quote(column.name)}) from ${quote(table)}), 0) + 1, false)`, [column.sequence]);
          }
        }

        const counts = [];
        for (const { table, total } of plans) {
          const { rows } = await client.query(`select count(*)::bigint as n from ${quote(table)}`);
          counts.push({ name: table, source: total, target: Number(rows[0].n) });
        }
        const { rows: documents } = await client.query("select count(*)::bigint as n from recipe_search");
        const searchDocuments = Number(documents[0].n);
        const differ = counts.filter((count) => count.source !== count.target);
        if (differ.length > 0) {
          const listed = differ.map((count) => `${count.name}: ${count.source} in SQLite, ${count.target} in PostgreSQL`).join("; ");
          throw new CopyRefused(`row counts differ (${listed}); nothing was copied`, { counts });
        }
        if (searchDocuments !== recipes) throw new CopyRefused(`the search index holds ${searchDocuments} documents for ${recipes} recipes; nothing was copied`, { counts });

        // Servers already listening drop their page caches when this commits: everything changed.
        await client.query(
          `insert into cache_versions (scope, version) select '*', coalesce(max(version), 0) + 1 from cache_versions
             on conflict (scope) do update set version = excluded.version`,
        );
        await client.query("select pg_notify($1, '')", [NOTICE_CHANNEL]);
        await client.query("commit");
        source.exec("commit");
        // The rebuilt search tables get their statistics too (the copied ones got theirs above);
        // the copy is committed already, so a failure here only leaves it to autovacuum.
        await client.query("analyze recipe_search, recipe_shuffle").catch(() => undefined);
        const rows = counts.reduce((sum, count) => sum + count.target, 0);
        return { tables: counts.map((count) => ({ name: count.name, rows: count.target })), counts, rows, searchDocuments, ms: Date.now() - started };
      } catch (error) {
        await client.query("rollback").catch(() => undefined);
        throw error;
      }
    } finally {
      if (source.inTransaction) source.exec("rollback");
    }
  } catch (error) {
    if (error instanceof CopyRefused) throw error;
    throw new CopyRefused(oneLine(error));
  } finally {
    source.close();
    await client?.end().catch(() => undefined);
  }
}

/** An error as one line (PostgreSQL's detail, when it has one, after its message). */
function oneLine(error) {
  const message = error instanceof Error ? error.message : String(error);
  const detail = error?.detail ? ` (${error.detail})` : "";
  return `${message}${detail}`.replace(/\s*\n\s*/g, " ");
}

// ---------------------------------------------------------------------------------------------
// Command line

const BAR_WIDTH = 20;

function bar(done, total) {
  const filled = total > 0 ? Math.min(BAR_WIDTH, Math.round((done / total) * BAR_WIDTH)) : BAR_WIDTH;
  return `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
}

/** A redrawn line per table on a terminal; one plain line per finished table otherwise. */
function progressPrinter(stream) {
  const tty = Boolean(stream.isTTY);
  const finished = new Set();
  return ({ table, done, total }) => {
    if (finished.has(table)) return;
    const complete = done >= total;
    if (complete) finished.add(table);
    const numbers = `${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")}`;
    if (tty) stream.write(`\r\x1b[K${table.padEnd(22)} ${bar(done, total)} ${numbers}${complete ? "\n" : ""}`);
    else if (complete) stream.write(`${table}: ${numbers}\n`);
  };
}

function countsTable(counts) {
  const nameWidth = Math.max(5, ...counts.map((count) => count.name.length));
  const numbers = counts.flatMap((count) => [count.source, count.target]).map((n) => n.toLocaleString("en-US").length);
  const numberWidth = Math.max(10, ...numbers);
  const line = (a, b, c, d = "") => `${a.padEnd(nameWidth)}  ${b.padStart(numberWidth)}  ${c.padStart(numberWidth)}${d}`;
  return [
    line("table", "SQLite", "PostgreSQL"),
    ...counts.map((count) => line(count.name, count.source.toLocaleString("en-US"), count.target.toLocaleString("en-US"), count.source === count.target ? "" : "  differs")),
  ].join("\n");
}

function readArgs(argv) {
  const args = { from: null, to: null, batchSize: DEFAULT_BATCH_SIZE };
  const valueOf = (name, i) => {
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--")) throw new CopyRefused(`${name} needs a value (${USAGE})`);
    return value;
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (!["--to", "--from", "--batch-size"].includes(flag)) throw new CopyRefused(`unknown argument ${JSON.stringify(arg.replace(/\/\/[^@/]*@/, "//***@"))} (${USAGE})`);
    const value = inline ?? valueOf(flag, i);
    if (inline === undefined) i += 1;
    if (flag === "--to") args.to = value;
    else if (flag === "--from") args.from = value;
    else {
      if (!/^\d+$/.test(value) || Number(value) < 1) throw new CopyRefused(`--batch-size must be a whole number of at least 1 (got ${JSON.stringify(value)})`);
      args.batchSize = Number(value);
    }
  }
  return args;
}

/** The SQLite file the app would open: DATABASE_PATH with the app's own default (env.server.ts). */
async function appDatabasePath() {
  const { env } = await loadModule("db-copy-env", `export { env } from "~/server/env.server";`);
  return env.DATABASE_PATH;
}

async function main() {
  const args = readArgs(process.argv.slice(2));
  targetUrl(args.to);
  const from = args.from ?? (await appDatabasePath());
  const printProgress = progressPrinter(process.stderr);
  let started = false;
  // Said once the checks have passed and the rows start moving (a refusal stays one line).
  const onProgress = (step) => {
    if (!started) console.log(`Copying ${path.resolve(from)} into ${redactUrl(args.to)} (batches of ${args.batchSize.toLocaleString("en-US")} rows).`);
    started = true;
    printProgress(step);
  };
  let result;
  try {
    result = await copyDatabase({ from, to: args.to, batchSize: args.batchSize, onProgress });
  } catch (error) {
    if (error.counts) console.log(countsTable(error.counts));
    throw error;
  }
  console.log(countsTable(result.counts));
  const seconds = result.ms / 1000;
  console.log(
    `Done: ${result.rows.toLocaleString("en-US")} rows in ${result.tables.length} tables in ${seconds.toFixed(1)} s ` +
      `(${Math.round(result.rows / Math.max(seconds, 0.001)).toLocaleString("en-US")} rows/s); ` +
      `search index rebuilt for ${result.searchDocuments.toLocaleString("en-US")} recipes; row counts match.`,
  );
}

/** Belt and braces: should a driver's message ever quote the --to URL, it is shown without its password. */
function withoutPassword(message) {
  let to = null;
  try {
    to = readArgs(process.argv.slice(2)).to;
  } catch {
    // No URL to hide.
  }
  return to ? message.replaceAll(to, redactUrl(to)) : message;
}

/** Whether this file is the program node was started with (not imported by a bench or a test). */
function isEntryPoint() {
  try {
    return Boolean(process.argv[1]) && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  try {
    await main();
    process.exit(0);
  } catch (error) {
    console.error(`db:copy: ${withoutPassword(error instanceof CopyRefused ? error.message : oneLine(error))}`);
    process.exit(1);
  }
}
