import { sql, type KyselyPlugin } from "kysely";
import { describe, expect, it } from "vitest";

import { db, writeTransaction } from "~/server/db/connection.server";
import { preparedRead } from "~/server/db/prepared-read.server";

import { makeUser } from "../support/app";

// app/server/db/prepared-read.server.ts: a read of fixed shape is built and compiled once and run
// again with each call's own values, on either engine.

const userByName = preparedRead((database, username: string, role: "USER" | "ADMIN") =>
  database.selectFrom("users").select(["id", "username", "role"]).where("username", "=", username).where("role", "=", role).limit(5),
);

describe("a prepared read", () => {
  it("answers each call with its own values, as the builder does", async () => {
    const ann = await makeUser();
    const bob = await makeUser({ role: "ADMIN" });
    expect(await userByName(db, ann.username, "USER")).toEqual([{ id: ann.id, username: ann.username, role: "USER" }]);
    expect(await userByName(db, bob.username, "ADMIN")).toEqual([{ id: bob.id, username: bob.username, role: "ADMIN" }]);
    expect(await userByName(db, bob.username, "USER")).toEqual([]);
    const built = await db.selectFrom("users").select(["id", "username", "role"]).where("username", "=", ann.username).where("role", "=", "USER").limit(5).execute();
    expect(await userByName(db, ann.username, "USER")).toEqual(built);
  });

  it("takes an argument used twice, and keeps the values the query fixed itself", async () => {
    const cat = await makeUser();
    const either = preparedRead((_database, id: string) => sql<{ n: number }>`select count(*) as n from users where (id = ${id} or username = ${id}) and role = ${"USER"}`);
    expect(Number((await either(db, cat.id))[0]?.n)).toBe(1);
    expect(Number((await either(db, cat.username))[0]?.n)).toBe(1);
    expect(Number((await either(db, "nobody at all"))[0]?.n)).toBe(0);
  });

  it("runs inside a transaction and sees its writes", async () => {
    const dee = await makeUser();
    const names = await writeTransaction(db, async (trx) => {
      await trx.updateTable("users").set({ role: "ADMIN" }).where("id", "=", dee.id).execute();
      return userByName(trx, dee.username, "ADMIN");
    });
    expect(names.map((row) => row.id)).toEqual([dee.id]);
  });

  it("on a handle with plugins, is built for every call so the plugins see each read", async () => {
    const eve = await makeUser();
    await userByName(db, eve.username, "USER");
    const seen: string[] = [];
    const recorder: KyselyPlugin = {
      transformQuery: (args) => {
        seen.push(args.node.kind);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const watched = db.withPlugin(recorder);
    expect(await userByName(watched, eve.username, "USER")).toHaveLength(1);
    expect(await userByName(watched, eve.username, "ADMIN")).toHaveLength(0);
    expect(seen).toEqual(["SelectQueryNode", "SelectQueryNode"]);
  });

  it("refuses, at its first call, an argument that does not become a parameter", async () => {
    const literal = preparedRead((_database, kind: string) => sql<{ k: string }>`select ${sql.lit(kind)} as k`);
    await expect(literal(db, "blocking")).rejects.toThrow(/argument 0 is not a parameter/);
    const shapeByArgument = preparedRead((database, limit: number) => database.selectFrom("users").select("id").$if(limit > 10, (query) => query.limit(10)));
    await expect(shapeByArgument(db, 20)).rejects.toThrow(/argument 0 is not a parameter/);
  });
});
