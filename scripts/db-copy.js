// npm run db:copy -- --to postgres://USER:PASSWORD@HOST:5432/DB [--from FILE] [--batch-size N]:
// moves a community from its SQLite file (DATABASE_PATH, as the app resolves it, or FILE) into an
// empty PostgreSQL database (docs/scaling.md, "Moving a community from SQLite").
//
// - The target is migrated with the app's own migrator and migration names, so it is exactly what
//   `npm run db:migrate` makes; it must hold no rows in any table (an empty migrated one is fine).
// - Everything is copied in ONE transaction: a failure, or row counts that differ, rolls it all
//   back and the target is left empty. The transaction locks every copied table against writes
//   (reads go on), so a server already pointed at the target waits instead of writing in between.
// - Tables go in foreign-key order, in batches of rows sent as one array per column
//   (`insert … select * from unnest($1::text[], …)`): one statement per batch whatever its size,
//   and the next batch is read from SQLite while PostgreSQL stores the previous one.
// - The tables' own triggers (search documents, change notices) are switched off while loading,
//   and the foreign keys are dropped and added back afterwards (PostgreSQL then checks each with
//   one join instead of a lookup per row); both are things the tables' owner may do, no superuser
//   needed. The search index is then rebuilt once with recipals_rebuild_search(), and every
//   serial sequence (the seq columns' included) is moved past the largest copied value.
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

/**
 * A table's rows in the source and in the target.
 * @typedef {{ name: string, source: number, target: number }} TableCount
 */
/**
 * Where the copy is: `table` ("search index" while the search documents are rebuilt) has `done`
 * of its `total` rows; it is table `index` (from 0) of `count`.
 * @typedef {{ table: string, done: number, total: number, index: number, count: number }} Progress
 */
/**
 * A column of a target table. `identity` is pg_attribute.attidentity ("a": generated always);
 * `sequence` the serial sequence that numbers it, if any.
 * @typedef {{ name: string, type: string, identity: string, sequence: string | null }} Column
 */
/** @typedef {{ table: string, name: string, definition: string }} ForeignKey */
/** @typedef {{ table: string, columns: Column[], total: number }} Plan */
/**
 * The row `select count(*)::bigint as n` answers (always one; pg gives a bigint as text).
 * @typedef {{ n: string }} CountRow
 */

/** A one-line refusal: the CLI prints its message as it is. */
export class CopyRefused extends Error {
  /**
   * @param {string} message
   * @param {{ counts?: TableCount[] }} [extra] Copied onto the error (a count mismatch carries `counts`).
   */
  constructor(message, extra = {}) {
    super(message);
    this.name = "CopyRefused";
    Object.assign(this, extra);
  }
}


/**
 * Checks `to` and answers it; refuses anything that is not a postgres:// or postgresql:// URL.
 * @param {unknown} to
 * @returns {string}
 */
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

const quote = (/** @type {string} */ name) => `"${name.replaceAll('"', '""')}"`;

// ---------------------------------------------------------------------------------------------
// Values: SQLite's storage classes to PostgreSQL's input text, as elements of an array literal.

/**
 * Writes one SQLite value as an element of a PostgreSQL array literal.
 * @typedef {(value: unknown) => string} ElementWriter
 */

const escapeText = (/** @type {string} */ text) => `"${/["\\]/.test(text) ? text.replace(/["\\]/g, "\\$&") : text}"`;

/**
 * How one column's SQLite values become elements of a PostgreSQL array literal, by the target
 * column's type. Integers are read as BigInt (no rounding beyond 2^53); booleans were 0/1;
 * timestamps may have been milliseconds; text may have been stored as a number.
 * @param {string} type The target column's type, as format_type() names it.
 * @returns {ElementWriter}
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

/**
 * What db-copy takes from the app: its migrations, and the change-notice channel of its
 * PostgreSQL engine (servers' caches hear of the copy).
 * @typedef {object} AppModules
 * @property {typeof import("../migrations/index").migrationProvider} migrationProvider
 * @property {typeof import("~/server/db/engines/postgres.server").NOTICE_CHANNEL} NOTICE_CHANNEL
 */
/** @type {Promise<AppModules> | null} */
let appModules = null;
/** @returns {Promise<AppModules>} */
const loadAppModules = () =>
  (appModules ??= loadModule(
    "db-copy",
    `export { migrationProvider } from "./migrations/index";
     export { NOTICE_CHANNEL } from "~/server/db/engines/postgres.server";`,
  ));

// ---------------------------------------------------------------------------------------------
// The source

/**
 * Opens the SQLite file `from` read-only (refusing what is not one).
 * @param {unknown} from
 * @returns {{ file: string, source: import("better-sqlite3").Database }}
 */
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
  /** @type {import("better-sqlite3").Database | undefined} */
  let source;
  try {
    source = new SQLite(file, { readonly: true, fileMustExist: true });
    source.pragma("busy_timeout = 10000");
    source.prepare("select count(*) from sqlite_master").get();
  } catch (error) {
    source?.close();
    throw new CopyRefused(`cannot read ${file} as a SQLite database: ${/** @type {Error} */ (error).message}`);
  }
  return { file, source };
}

/**
 * The source's own tables (no SQLite internals, FTS shadow tables, derived or migration tables).
 * @param {import("better-sqlite3").Database} source
 * @returns {string[]}
 */
function sourceTables(source) {
  return /** @type {string[]} */ (source.prepare("select name from pragma_table_list where schema = 'main' and type = 'table'").pluck().all())
    .filter((name) => !/^sqlite_/.test(name) && !/^kysely_migration/.test(name) && !DERIVED_TABLES.has(name) && !CACHE_TABLES.has(name));
}

/**
 * The names of the migrations the source has run.
 * @param {import("better-sqlite3").Database} source
 * @param {string} file
 * @returns {string[]}
 */
function sourceMigrations(source, file) {
  const known = source.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
  if (!known) throw new CopyRefused(`${file} is not a ReciPals database (it has no migrations table)`);
  return /** @type {string[]} */ (source.prepare("select name from kysely_migration order by name").pluck().all());
}

// ---------------------------------------------------------------------------------------------
// The target

/**
 * @param {string} url
 * @returns {Promise<import("pg").Client>}
 */
async function connectTarget(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A connection lost mid-copy surfaces as the failing query's error; this only keeps the process alive.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (caught) {
    await client.end().catch(() => undefined);
    // What pg's connect rejects with: an Error, with PostgreSQL's SQLSTATE or Node's code.
    const error = /** @type {Error & { code?: string }} */ (caught);
    const reason = error.code === "3D000" ? `${error.message} (create it first, e.g. createdb)` : error.message || error.code || String(error);
    throw new CopyRefused(`cannot reach PostgreSQL at ${redactUrl(url)}: ${reason}`);
  }
  return client;
}

/**
 * The tables of the target's schema (as targetTables) that hold a row.
 * @param {import("pg").Client} client
 * @returns {Promise<string[]>}
 */
async function targetTablesWithRows(client) {
  const tables = await targetTables(client);
  if (tables.length === 0) return [];
  /** @type {{ rows: Array<{ i: number, has_rows: boolean }> }} */
  const { rows } = await client.query(tables.map((name, i) => `select ${i} as i, exists (select 1 from ${quote(name)}) as has_rows`).join(" union all "));
  // `i` numbers `tables`.
  return rows.filter((row) => row.has_rows).map((row) => /** @type {string} */ (tables[row.i]));
}

/**
 * The tables of the target's schema, but the migrator's own and the page cache's.
 * @param {import("pg").Client} client
 * @returns {Promise<string[]>}
 */
async function targetTables(client) {
  /** @type {{ rows: Array<{ name: string }> }} */
  const { rows } = await client.query(
    `select c.relname as name from pg_class c
      where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and c.relname not like 'kysely\\_migration%'
      order by c.relname`,
  );
  return rows.map((row) => row.name).filter((name) => !CACHE_TABLES.has(name));
}

/**
 * @param {string[]} withRows The target's tables that hold rows.
 * @param {string} url
 */
function refuseIfNotEmpty(withRows, url) {
  if (withRows.length === 0) return;
  const listed = withRows.slice(0, 3).join(", ") + (withRows.length > 3 ? ` and ${withRows.length - 3} more` : "");
  throw new CopyRefused(`the target ${redactUrl(url)} already holds data (rows in ${listed}); db:copy only fills an empty database`);
}

/** @param {string} url */
async function migrateTarget(url) {
  const { migrationProvider } = await loadAppModules();
  /** @type {Kysely<any>} */
  const database = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 10_000 }) }) });
  try {
    const { error } = await new Migrator({ db: database, provider: migrationProvider }).migrateToLatest();
    if (error) throw new CopyRefused(`migrating the target ${redactUrl(url)} failed: ${/** @type {{ message?: string }} */ (error).message ?? String(error)}`);
  } finally {
    await database.destroy();
  }
}

/**
 * Columns of a target table in order, with their types (generated columns are computed, not copied).
 * @param {import("pg").Client} client
 * @param {string} table
 * @returns {Promise<Column[]>}
 */
async function targetColumns(client, table) {
  /** @type {{ rows: Column[] }} */
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

/**
 * The foreign keys of `tables`, as `alter table … add constraint` puts them back.
 * @param {import("pg").Client} client
 * @param {string[]} tables
 * @returns {Promise<ForeignKey[]>}
 */
async function foreignKeysOf(client, tables) {
  /** @type {{ rows: ForeignKey[] }} */
  const { rows } = await client.query(
    `select t.relname as table, k.conname as name, pg_get_constraintdef(k.oid) as definition
       from pg_constraint k join pg_class t on t.oid = k.conrelid
      where k.contype = 'f' and t.relnamespace = current_schema()::regnamespace and t.relname = any($1)
      order by t.relname, k.conname`,
    [tables],
  );
  return rows;
}

/**
 * The tables in an order where every table comes after the tables its foreign keys point to.
 * @param {import("pg").Client} client
 * @param {string[]} tables
 * @returns {Promise<string[]>}
 */
async function foreignKeyOrder(client, tables) {
  /** @type {{ rows: Array<{ child: string, parent: string }> }} */
  const { rows } = await client.query(
    `select child.relname as child, parent.relname as parent
       from pg_constraint k
       join pg_class child on child.oid = k.conrelid
       join pg_class parent on parent.oid = k.confrelid
      where k.contype = 'f' and k.connamespace = current_schema()::regnamespace`,
  );
  /** @type {Map<string, Set<string>>} */
  const parents = new Map(tables.map((name) => [name, new Set()]));
  for (const { child, parent } of rows) if (child !== parent && parents.has(child) && parents.has(parent)) /** @type {Set<string>} */ (parents.get(child)).add(parent);
  /** @type {string[]} */
  const ordered = [];
  /** @type {Set<string>} */
  const placed = new Set();
  /** @type {Set<string>} */
  const visiting = new Set();
  /** @param {string} name One of `tables` (or a parent of one: also one of them). */
  const place = (name) => {
    if (placed.has(name)) return;
    if (visiting.has(name)) throw new CopyRefused(`the target's foreign keys form a cycle through ${name}`);
    visiting.add(name);
    for (const parent of [.../** @type {Set<string>} */ (parents.get(name))].sort()) place(parent);
    visiting.delete(name);
    placed.add(name);
    ordered.push(name);
  };
  for (const name of [...tables].sort()) place(name);
  return ordered;
}

// ---------------------------------------------------------------------------------------------
// One table

/**
 * Copies the rows of one table, in batches of `batchSize`, calling `progress` with the rows
 * stored so far; refuses unless `total` rows were read.
 * @param {object} job
 * @param {import("pg").Client} job.client
 * @param {import("better-sqlite3").Database} job.source
 * @param {string} job.table
 * @param {Column[]} job.columns
 * @param {number} job.total
 * @param {number} job.batchSize
 * @param {(rows: number) => void} job.progress
 */
async function copyTable({ client, source, table, columns, total, batchSize, progress }) {
  const names = columns.map((column) => quote(column.name)).join(", ");
  const writers = columns.map((column) => elementWriter(column.type));
  const overriding = columns.some((column) => column.identity === "a") ? " overriding system value" : "";
  const insert = `insert into ${quote(table)} (${names})${overriding} select * from unnest(${columns
    .map((column, i) => `$${i + 1}::${column.type}[]`)
    .join(", ")})`;
  // raw(true): each row is an array of its values, in the order of `columns`.
  const rows = /** @type {import("better-sqlite3").Statement<unknown[], unknown[]>} */ (
    source.prepare(`select ${names} from ${quote(table)}`).raw(true).safeIntegers(true)
  );

  let done = 0;
  /** @type {Promise<void> | null} */
  let inFlight = null;
  /** @type {string[][]} */
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
    // A row holds a value per column; `parts` and `writers` have an entry per column.
    for (let i = 0; i < row.length; i += 1) {
      const writer = /** @type {ElementWriter} */ (writers[i]);
      /** @type {string[]} */ (parts[i]).push(writer(row[i]));
    }
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
 * @param {object} [options]
 * @param {string | null} [options.from] The SQLite file.
 * @param {string | null} [options.to] The PostgreSQL URL.
 * @param {number} [options.batchSize]
 * @param {(step: Progress) => void} [options.onProgress]
 */
export async function copyDatabase({ from, to, batchSize = DEFAULT_BATCH_SIZE, onProgress = () => undefined } = {}) {
  const started = Date.now();
  const url = targetUrl(to);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new CopyRefused(`the batch size must be a whole number of at least 1 (got ${batchSize})`);
  const { file, source } = openSource(from);
  /** @type {import("pg").Client | null} */
  let client = null;
  try {
    const { migrationProvider, NOTICE_CHANNEL } = await loadAppModules();
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

    /** @type {Plan[]} */
    const plans = [];
    for (const table of order) {
      const columns = await targetColumns(client, table);
      const sourceColumns = /** @type {string[]} */ (source.prepare(`select name from pragma_table_info(?)`).pluck().all(table));
      const lacking = columns.filter((column) => !sourceColumns.includes(column.name)).map((column) => column.name);
      const surplus = sourceColumns.filter((name) => !columns.some((column) => column.name === name));
      if (lacking.length > 0 || surplus.length > 0) {
        throw new CopyRefused(`${table} has different columns in the source and the target (${[...lacking, ...surplus].join(", ")})`);
      }
      plans.push({ table, columns, total: 0 }); // total: counted below, in the read transaction
    }

    // One read transaction on the source: every count and every row from the same instant.
    source.exec("begin");
    try {
      for (const plan of plans) plan.total = Number(source.prepare(`select count(*) from ${quote(plan.table)}`).pluck().get());

      await client.query("begin");
      try {
        // Writers wait for the copy (readers do not); checked again under the lock: a server may
        // have written since the first look.
        await client.query(`lock table ${plans.map((plan) => quote(plan.table)).join(", ")} in exclusive mode`);
        refuseIfNotEmpty(await targetTablesWithRows(client), url);
        // Foreign keys come off while loading and go back on after: PostgreSQL then checks each
        // one with a single join over the whole table instead of a lookup per inserted row (about
        // half the time of a large copy). The tables' owner may do this; no superuser needed.
        const foreignKeys = await foreignKeysOf(client, plans.map((plan) => plan.table));
        for (const key of foreignKeys) await client.query(`alter table ${quote(key.table)} drop constraint ${quote(key.name)}`);
        for (const { table } of plans) await client.query(`alter table ${quote(table)} disable trigger user`);

        for (const [index, plan] of plans.entries()) {
          const progress = (/** @type {number} */ rows) => onProgress({ table: plan.table, done: rows, total: plan.total, index, count: plans.length });
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

        /** @type {TableCount[]} */
        const counts = [];
        for (const { table, total } of plans) {
          /** @type {{ rows: CountRow[] }} */
          const { rows } = await client.query(`select count(*)::bigint as n from ${quote(table)}`);
          counts.push({ name: table, source: total, target: Number(/** @type {CountRow} */ (rows[0]).n) });
        }
        /** @type {{ rows: CountRow[] }} */
        const { rows: documents } = await client.query("select count(*)::bigint as n from recipe_search");
        const searchDocuments = Number(/** @type {CountRow} */ (documents[0]).n);
        const differ = counts.filter((count) => count.source !== count.target);
        if (differ.length > 0) {
          const listed = differ.map((count) => `${count.name}: ${count.source} in SQLite, ${count.target} in PostgreSQL`).join("; ");
          throw new CopyRefused(`row counts differ (${listed}); nothing was copied`, { counts });
        }
        if (searchDocuments !== recipes) throw new CopyRefused(`the search index holds ${searchDocuments} documents for ${recipes} recipes; nothing was copied`, { counts });

        // Servers already listening drop their page caches when this commits: everything changed.
        await client.query("select pg_notify($1, '*')", [NOTICE_CHANNEL]);
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

/**
 * An error as one line (PostgreSQL's detail, when it has one, after its message).
 * @param {unknown} error Whatever was thrown.
 * @returns {string}
 */
function oneLine(error) {
  const message = error instanceof Error ? error.message : String(error);
  const withDetail = /** @type {{ detail?: string } | null | undefined} */ (error);
  const detail = withDetail?.detail ? ` (${withDetail.detail})` : "";
  return `${message}${detail}`.replace(/\s*\n\s*/g, " ");
}

// ---------------------------------------------------------------------------------------------
// Command line

const BAR_WIDTH = 20;

/**
 * @param {number} done
 * @param {number} total
 * @returns {string}
 */
function bar(done, total) {
  const filled = total > 0 ? Math.min(BAR_WIDTH, Math.round((done / total) * BAR_WIDTH)) : BAR_WIDTH;
  return `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
}

/**
 * A redrawn line per table on a terminal; one plain line per finished table otherwise.
 * @param {NodeJS.WriteStream} stream
 * @returns {(step: Progress) => void}
 */
function progressPrinter(stream) {
  const tty = Boolean(stream.isTTY);
  /** @type {Set<string>} */
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

/**
 * The rows of each table in SQLite and in PostgreSQL, as a text table.
 * @param {TableCount[]} counts
 * @returns {string}
 */
function countsTable(counts) {
  const nameWidth = Math.max(5, ...counts.map((count) => count.name.length));
  const numbers = counts.flatMap((count) => [count.source, count.target]).map((n) => n.toLocaleString("en-US").length);
  const numberWidth = Math.max(10, ...numbers);
  /** @type {(a: string, b: string, c: string, d?: string) => string} */
  const line = (a, b, c, d = "") => `${a.padEnd(nameWidth)}  ${b.padStart(numberWidth)}  ${c.padStart(numberWidth)}${d}`;
  return [
    line("table", "SQLite", "PostgreSQL"),
    ...counts.map((count) => line(count.name, count.source.toLocaleString("en-US"), count.target.toLocaleString("en-US"), count.source === count.target ? "" : "  differs")),
  ].join("\n");
}

/**
 * @param {string[]} argv
 * @returns {{ from: string | null, to: string | null, batchSize: number }}
 */
function readArgs(argv) {
  /** @type {{ from: string | null, to: string | null, batchSize: number }} */
  const args = { from: null, to: null, batchSize: DEFAULT_BATCH_SIZE };
  /** @type {(name: string, i: number) => string} */
  const valueOf = (name, i) => {
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--")) throw new CopyRefused(`${name} needs a value (${USAGE})`);
    return value;
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = /** @type {string} */ (argv[i]); // i < argv.length
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

/**
 * The SQLite file the app would open: DATABASE_PATH with the app's own default (env.server.ts).
 * @returns {Promise<string>}
 */
async function appDatabasePath() {
  /** @type {{ env: typeof import("~/server/env.server").env }} */
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
  const onProgress = (/** @type {Progress} */ step) => {
    // targetUrl(args.to) above: a string.
    if (!started) console.log(`Copying ${path.resolve(from)} into ${redactUrl(/** @type {string} */ (args.to))} (batches of ${args.batchSize.toLocaleString("en-US")} rows).`);
    started = true;
    printProgress(step);
  };
  let result;
  try {
    result = await copyDatabase({ from, to: args.to, batchSize: args.batchSize, onProgress });
  } catch (error) {
    // copyDatabase throws CopyRefused, which carries `counts` when the row counts differ.
    const refused = /** @type {{ counts?: TableCount[] }} */ (error);
    if (refused.counts) console.log(countsTable(refused.counts));
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

/**
 * Belt and braces: should a driver's message ever quote the --to URL, it is shown without its password.
 * @param {string} message
 * @returns {string}
 */
function withoutPassword(message) {
  /** @type {string | null} */
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
    return Boolean(process.argv[1]) && import.meta.url === pathToFileURL(fs.realpathSync(/** @type {string} */ (process.argv[1]))).href;
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
