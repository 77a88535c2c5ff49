import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

import { closeDatabaseHandle, db, openDatabase, type DB } from "~/server/db/connection.server";
import { readPostsFull } from "~/server/queries/posts.server";
import { readRecipesFull } from "~/server/queries/recipes.server";
import { searchRecipes } from "~/server/queries/search.server";
import { readUsersWithLists } from "~/server/queries/users.server";
import { addComment } from "~/server/services/interactions-service.server";
import { getUserId } from "~/server/auth/session.server";
import { beginSignInAttempt } from "~/server/auth/limits.server";

import { migrationProvider } from "../../migrations/index";
import { TEST_POSTGRES, createDatabase, withAdmin } from "../support/postgres";
import { ORIGIN } from "../support/app";

// npm run db:copy: a SQLite community seeded the way the app seeds (scripts/prepare.js with the
// sample seed file), plus a like, a comment, a follow, a save, a session and failed sign-ins made
// through the app's services, is copied by the CLI (a child process) into this file's PostgreSQL
// database; the app's own query modules then read the same things there. PostgreSQL runs only
// (RECIPALS_TEST_POSTGRES): the target is the fresh, migrated, empty database every test file gets.

const ROOT = path.resolve(__dirname, "../..");
const SCRIPT = path.join(ROOT, "scripts/db-copy.js");
/** Everything: the readers below take keyset pages. */
const ALL = { afterSeq: 0, limit: 1_000_000 };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment of a child that must use the SQLite file: no DATABASE_URL (this file's PostgreSQL). */
function sqliteEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.DATABASE_URL;
  return env;
}

function run(args: string[], env: NodeJS.ProcessEnv = sqliteEnv()): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const copy = (args: string[], env?: NodeJS.ProcessEnv) => run([SCRIPT, ...args], env);

/** The app's services on the SQLite file, in a process of its own (its db/connection.server opens that file). */
const MAKE_ACTIVITY = `
  const { loadModule } = await import(${JSON.stringify(path.join(ROOT, "scripts/load-module.js"))});
  const app = await loadModule("db-copy-test-activity", \`
    export { db, closeDatabaseHandle } from "~/server/db/connection.server";
    export { setLike, addComment, setSaved } from "~/server/services/interactions-service.server";
    export { setFollowing } from "~/server/services/follows-service.server";
    export { startSession } from "~/server/auth/session.server";
    export { checkCredentials, throttledSignIn } from "~/server/auth/sign-in.server";
    export { getSessionUserById } from "~/server/queries/users.server";
  \`);
  const { db } = app;
  const people = await db.selectFrom("users").select(["id", "username"]).where("role", "=", "USER").orderBy("seq").execute();
  const [fan, cook] = await Promise.all(people.slice(0, 2).map((p) => app.getSessionUserById(p.id)));
  const post = await db.selectFrom("posts as p").innerJoin("recipes as r", "r.id", "p.recipe_id")
    .select(["p.id", "p.recipe_id", "r.name"]).where("p.created_by", "<>", fan.id).orderBy("p.seq").executeTakeFirstOrThrow();
  const check = (outcome) => { if (!outcome.ok) throw new Error(outcome.message); return outcome; };
  check(await app.setLike({ actor: fan, postId: post.id, liked: true }));
  const comment = check(await app.addComment({ actor: fan, postId: post.id, text: "Made it twice this week." })).value;
  check(await app.setFollowing({ actor: fan, targetId: cook.id, following: true }));
  check(await app.setSaved({ actor: fan, recipeId: post.recipe_id, saved: true }));
  const setCookie = await app.startSession(new Request("${ORIGIN}/"), fan.id);
  for (let i = 0; i < 2; i += 1) {
    await app.throttledSignIn({ username: cook.username, address: "203.0.113.7" }, () =>
      app.checkCredentials({ username: cook.username, password: "not the password" })).catch(() => undefined);
  }
  const failures = (await db.selectFrom("sign_in_failures").select("id").execute()).map((row) => Number(row.id));
  console.log(JSON.stringify({ fan: fan.id, cook: cook.id, post, comment: comment.text, cookie: setCookie.split(";")[0], failures }));
  await app.closeDatabaseHandle(db);
  process.exit(0);
`;

/** Foreign keys and triggers of a database: what a failed copy must leave as it found them. */
async function schemaOf(url: string): Promise<string[]> {
  return withAdmin(url, async (client) => {
    const { rows } = await client.query<{ item: string }>(
      `select conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) as item from pg_constraint where contype = 'f'
       union all select tgrelid::regclass || ' ' || tgname || ' ' || tgenabled::text from pg_trigger where not tgisinternal
       order by 1`,
    );
    return rows.map((row) => row.item);
  });
}

async function tableCounts(url: string): Promise<Record<string, number>> {
  return withAdmin(url, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      "select relname as name from pg_class where relnamespace = current_schema()::regnamespace and relkind = 'r' order by relname",
    );
    const counts: Record<string, number> = {};
    for (const { name } of rows) counts[name] = Number((await client.query(`select count(*) as n from "${name}"`)).rows[0].n);
    return counts;
  });
}

describe.skipIf(!TEST_POSTGRES)("npm run db:copy (SQLite into PostgreSQL)", () => {
  let dir: string;
  let source: string;
  let target: string;
  let activity: { fan: string; cook: string; post: { id: string; recipe_id: string; name: string }; comment: string; cookie: string; failures: number[] };
  let first: Run;

  beforeAll(async () => {
    target = process.env.DATABASE_URL!;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-db-copy-"));
    source = path.join(dir, "recipals.db");
    const seeded = await run([path.join(ROOT, "scripts/prepare.js")], sqliteEnv({ DATABASE_PATH: source }));
    expect(seeded.code, seeded.stderr).toBe(0);
    const made = await run(["--input-type=module", "-e", MAKE_ACTIVITY], sqliteEnv({ DATABASE_PATH: source }));
    expect(made.code, made.stderr).toBe(0);
    activity = JSON.parse(made.stdout.trim().split("\n").at(-1)!);
    expect(activity.failures).toHaveLength(2);
    first = await copy(["--from", source, "--to", target]);
  }, 60_000);
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("copies into the empty migrated database: one line per table (no TTY), the counts table, exit 0", () => {
    expect(first.stderr.trim().split("\n")).toEqual(expect.arrayContaining(["users: 4/4", "likes: 1/1", "follows: 1/1", "sessions: 1/1", "sign_in_failures: 2/2"]));
    expect(first.stdout).toMatch(/^table\s+SQLite\s+PostgreSQL$/m);
    expect(first.stdout).toMatch(/^recipes\s+303\s+303$/m);
    expect(first.stdout).toMatch(/row counts match\.$/m);
    expect(first.stdout).not.toContain(`:${new URL(TEST_POSTGRES).password}@`);
    expect(first.code).toBe(0);
  });

  it("the app's query modules read the same recipes, posts with likes and comments, and people with follows on PostgreSQL", async () => {
    const sqlite: DB = openDatabase(source);
    try {
      const [recipes, posts, users] = await Promise.all([readRecipesFull(ALL, db), readPostsFull(ALL, db), readUsersWithLists(ALL, db)]);
      expect(recipes).toHaveLength(303);
      expect(recipes).toEqual(await readRecipesFull(ALL, sqlite));
      expect(posts).toEqual(await readPostsFull(ALL, sqlite));
      expect(users).toEqual(await readUsersWithLists(ALL, sqlite));

      const liked = posts.find((post) => post.post_id === activity.post.id)!;
      expect(liked.likes).toEqual([activity.fan]);
      expect(liked.comments.at(-1)).toMatchObject({ user_id: activity.fan, text: activity.comment });
      const fan = users.find((user) => user.id === activity.fan)!;
      expect(fan.following).toEqual([activity.cook]);
      expect(fan.saved_recipes).toEqual([activity.post.recipe_id]);
      expect(users.find((user) => user.id === activity.cook)!.followers).toEqual([activity.fan]);
    } finally {
      await closeDatabaseHandle(sqlite);
    }
  });

  it("the session made on SQLite still signs its user in on PostgreSQL", async () => {
    expect(await getUserId(new Request(`${ORIGIN}/`, { headers: { Cookie: activity.cookie } }))).toBe(activity.fan);
  });

  it("search finds a recipe by a word of its name (the search index was rebuilt)", async () => {
    const word = activity.post.name.split(/\s+/).sort((a, b) => b.length - a.length)[0]!;
    const page = await searchRecipes({ q: word }, db);
    expect(page.items.map((item) => item.recipe_id)).toContain(activity.post.recipe_id);
  });

  it("new rows after the copy get fresh ids and seqs (sequences were moved past the copied rows)", async () => {
    const id = await beginSignInAttempt({ username: "after-the-copy", address: "198.51.100.4" });
    expect(id).toBeGreaterThan(Math.max(...activity.failures));
    const fan = { id: activity.fan, role: "USER" as const };
    const added = await addComment({ actor: fan, postId: activity.post.id, text: "And once more on PostgreSQL." });
    expect(added.ok).toBe(true);
    const [post] = await readPostsFull({ ids: [activity.post.id] }, db);
    expect(post!.comments.map((comment) => comment.text).slice(-2)).toEqual([activity.comment, "And once more on PostgreSQL."]);
  });

  it("refuses a second copy into the now non-empty target with one line, exit 1, and changes nothing", async () => {
    const before = await tableCounts(target);
    const again = await copy([`--from=${source}`, `--to=${target}`]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^db:copy: the target postgres:\/\/[^:/@]+:\*\*\*@.* already holds data \(rows in .*\); db:copy only fills an empty database$/)]);
    expect(again.stderr).not.toContain(`:${new URL(TEST_POSTGRES).password}@`);
    expect(await tableCounts(target)).toEqual(before);
  });

  it("copies DATABASE_PATH into a database that has no tables yet, migrating it with the app's migrations", async () => {
    const name = inject("postgresTemplate").replace(/template$/, `copy_${crypto.randomBytes(4).toString("hex")}`);
    const fresh = await createDatabase(TEST_POSTGRES, name);
    const result = await copy([`--to=${fresh}`], sqliteEnv({ DATABASE_PATH: source }));
    expect(result.stderr).not.toMatch(/^db:copy:/m);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Copying ${source} into`);
    const migrations = await withAdmin(fresh, async (client) => (await client.query<{ name: string }>("select name from kysely_migration order by name")).rows);
    expect(migrations.map((row) => row.name)).toEqual(Object.keys(await migrationProvider.getMigrations()).sort());
    const counts = await tableCounts(fresh);
    expect(counts).toMatchObject({ recipes: 303, recipe_search: 303, recipe_shuffle: 303, likes: 1, comments: 3, sign_in_failures: 2 });
  });

  it("a copy that fails half way (a like of a post that does not exist) leaves the target as it was", async () => {
    const broken = path.join(dir, "broken.db");
    const original = new SQLite(source, { readonly: true });
    original.exec(`vacuum into '${broken}'`);
    original.close();
    const damaged = new SQLite(broken);
    damaged.pragma("foreign_keys = OFF");
    damaged.prepare("insert into likes (post_id, user_id, created_at) values ('no-such-post', ?, '2026-01-01T00:00:00.000Z')").run(activity.fan);
    damaged.close();
    const name = inject("postgresTemplate");
    const empty = await createDatabase(TEST_POSTGRES, name.replace(/template$/, `broken_${crypto.randomBytes(4).toString("hex")}`), name);
    const [schema, counts] = [await schemaOf(empty), await tableCounts(empty)];
    expect(counts).toMatchObject({ users: 0, recipes: 0, likes: 0 });

    const result = await copy(["--from", broken, "--to", empty]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n").at(-1)).toMatch(/^db:copy: the copied rows of likes break its foreign key likes_post_id_fkey: .*no-such-post.*; nothing was copied$/);
    expect(await tableCounts(empty)).toEqual(counts);
    expect(await schemaOf(empty)).toEqual(schema);
  });

  it("refuses a wrong scheme, an unreachable server and a missing source file with one line each, never showing the password", async () => {
    const wrong = await copy(["--from", source, "--to", "mysql://someone:s3cret-pw@127.0.0.1:3306/recipals"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe("");
    expect(wrong.stderr.trim().split("\n")).toEqual(["db:copy: --to must be a postgres:// or postgresql:// URL (got mysql://…)"]);

    const down = await copy(["--from", source, "--to", "postgres://someone:s3cret-pw@127.0.0.1:1/recipals"]);
    expect(down.code).toBe(1);
    expect(down.stdout).toBe("");
    expect(down.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^db:copy: cannot reach PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/recipals: .*ECONNREFUSED/)]);

    const missing = await copy(["--from", path.join(dir, "nothing-here.db"), "--to", target]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split("\n")).toEqual([`db:copy: there is no SQLite database at ${path.join(dir, "nothing-here.db")} (set DATABASE_PATH or pass --from FILE)`]);

    const none = await copy(["--from", source]);
    expect(none.code).toBe(1);
    expect(none.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^db:copy: --to is needed/)]);
    for (const answer of [wrong, down, missing, none]) expect(answer.stderr).not.toContain("s3cret-pw");
  });
});
