import type { Compilable, CompiledQuery, RawBuilder } from "kysely";

import { engineOf, type DB } from "./connection.server";

// Building a query with Kysely's builder and compiling it to SQL cost more CPU than SQLite's own
// work on the short reads every page makes (the session, the lens, a profile's counts:
// bench/README.md, issue 52). A read whose shape never changes is therefore built and compiled
// once per engine; each later call sends the same SQL with its own values.

interface Prepared<Row> {
  query: CompiledQuery<Row>;
  /** For each parameter of the SQL: the argument it takes, or null for a value the query fixed. */
  slots: Array<number | null>;
}

/**
 * A read of fixed shape: `build` is called once per engine, with a stand-in for each argument, and
 * each stand-in must become a parameter of the SQL (a compared value, a limit; it may appear more
 * than once), never a literal, a list or a choice of shape (a read whose shape depends on its
 * arguments stays with the builder). An argument that is not a parameter is an error at that
 * first call, so a test of the read finds it.
 */
export function preparedRead<Args extends readonly unknown[], Row>(
  build: (database: DB, ...args: Args) => Compilable<Row> | RawBuilder<Row>,
): (database: DB, ...args: Args) => Promise<Row[]> {
  const byEngine = new Map<string, Prepared<Row>>();
  const compile = (built: Compilable<Row> | RawBuilder<Row>, database: DB) => ("isRawBuilder" in built ? built.compile(database) : built.compile());
  const prepare = (database: DB, count: number): Prepared<Row> => {
    const standIns = Array.from({ length: count }, (_, i) => `\u0000preparedRead argument ${i}\u0000`);
    const query = compile(build(database, ...(standIns as unknown as Args)), database);
    const slots = query.parameters.map((parameter) => {
      const at = standIns.indexOf(parameter as string);
      return at >= 0 ? at : null;
    });
    for (let i = 0; i < count; i++) {
      if (!slots.includes(i)) throw new Error(`preparedRead: argument ${i} is not a parameter of: ${query.sql}`);
    }
    return { query, slots };
  };
  return async (database, ...args) => {
    // A handle with plugins (the query-plan test's recorder) changes what it compiles: it is
    // built and compiled every time, as the builder would, so the plugins see each read.
    if (database.getExecutor().plugins.length > 0) return (await database.executeQuery<Row>(compile(build(database, ...args), database))).rows;
    const engine = engineOf(database).name;
    let prepared = byEngine.get(engine);
    if (!prepared) {
      prepared = prepare(database, args.length);
      byEngine.set(engine, prepared);
    }
    const { query, slots } = prepared;
    const parameters = slots.map((slot, i) => (slot === null ? query.parameters[i] : args[slot]));
    return (await database.executeQuery<Row>({ ...query, parameters })).rows;
  };
}
