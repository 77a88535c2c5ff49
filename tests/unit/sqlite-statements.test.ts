import SQLite from "better-sqlite3";
import { describe, expect, it } from "vitest";

import { withStatementCache } from "~/server/db/engines/sqlite.server";

// SQLite statements are prepared once per SQL text and reused (app/server/db/engines/sqlite.server.ts):
// preparing was about 4% of a signed-in page's CPU.

describe("the SQLite statement cache", () => {
  it("hands out the same prepared statement for the same SQL, and a new one for other SQL", () => {
    const sqlite = new SQLite(":memory:");
    const connection = withStatementCache(sqlite);
    const first = connection.prepare("select 1 as n");
    expect(connection.prepare("select 1 as n")).toBe(first);
    expect(connection.prepare("select 2 as n")).not.toBe(first);
    sqlite.close();
  });

  it("never hands out a statement that is still running (an open iterator)", () => {
    const sqlite = new SQLite(":memory:");
    sqlite.exec("create table t (n integer); insert into t values (1), (2), (3);");
    const connection = withStatementCache(sqlite);
    const running = connection.prepare("select n from t order by n") as SQLite.Statement;
    const rows = running.iterate();
    expect(rows.next().value).toEqual({ n: 1 });
    const other = connection.prepare("select n from t order by n") as SQLite.Statement;
    expect(other).not.toBe(running);
    expect(other.all()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    rows.return?.();
    sqlite.close();
  });

  it("still answers after the schema changes under a kept statement", () => {
    const sqlite = new SQLite(":memory:");
    sqlite.exec("create table t (n integer); insert into t values (1);");
    const connection = withStatementCache(sqlite);
    const query = "select * from t";
    expect((connection.prepare(query) as SQLite.Statement).all()).toEqual([{ n: 1 }]);
    sqlite.exec("alter table t add column m integer default 7");
    expect((connection.prepare(query) as SQLite.Statement).all()).toEqual([{ n: 1, m: 7 }]);
    sqlite.close();
  });

  it("keeps a bounded number of statements, dropping the least recently used", () => {
    const sqlite = new SQLite(":memory:");
    const connection = withStatementCache(sqlite);
    const kept = connection.prepare("select 0 as n");
    for (let i = 1; i <= 600; i += 1) {
      if (i % 100 === 0) expect(connection.prepare("select 0 as n")).toBe(kept); // used: stays
      connection.prepare(`select ${i} as n`);
    }
    expect(connection.prepare("select 0 as n")).toBe(kept);
    expect(connection.prepare("select 1 as n")).not.toBe(connection.prepare("select 2 as n"));
    sqlite.close();
  });
});
