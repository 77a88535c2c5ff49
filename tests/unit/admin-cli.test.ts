import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loader as adminReportsLoader } from "~/routes/ReciPals.Account.Admin.Reports";
import { closeDatabaseHandle, db, engineOf, migrateToLatest, openDatabase } from "~/server/db/connection.server";
import { runAdminCommand } from "~/server/ops/admin-commands.server";
import { createUser, verifyLogin } from "~/server/queries/users.server";
import { fileReport } from "~/server/services/moderation-service.server";
import { migrationProvider } from "../../migrations/index";

import { getRequest, makeUser, routeArgs, signedInCookie, uniqueUsername } from "../support/app";
import { follow, makeRecipeWithPost } from "../support/factories";
import { startMailServer, type TestMailServer } from "../support/mail-server";
import { useSetting } from "../support/settings";

// The operator's command line (docs/operator-guide.md#admin-command-line) against this file's own
// migrated database: each command's change and its moderation-log entry, refusals that change
// nothing, and the real script run as a child process.

const root = path.resolve(__dirname, "../..");

/** Runs one command line; what it printed, line by line, and its exit code. */
async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdminCommand(argv, { out: (line) => out.push(line), err: (line) => err.push(line) }, db);
  return { code, out, err, text: out.join("\n") };
}

/** The one-time password a command printed. */
const printedPassword = (text: string) => /One-time password \(shown only now\): (\S+)/.exec(text)?.[1];

/** Everything a command could change: a refused one leaves all of it as it was. */
const snapshot = async () =>
  JSON.stringify(
    await Promise.all(
      (["users", "sessions", "moderation_log", "account_tokens", "reports", "notifications"] as const).map((table) => db.selectFrom(table).selectAll().execute()),
    ),
  );

const logOf = (userId: string) =>
  db.selectFrom("moderation_log").select(["moderator_id", "action", "target_kind", "target_id", "target_user_id", "summary", "why"]).where("target_id", "=", userId).orderBy("seq").execute();

const sessionsOf = async (userId: string) => (await db.selectFrom("sessions").select("id").where("user_id", "=", userId).execute()).length;

const userRow = (id: string) => db.selectFrom("users").select(["username", "role", "suspended_at"]).where("id", "=", id).executeTakeFirstOrThrow();

/** Makes sure the site has another ADMIN, so demoting and the last-admin rule are about someone else. */
let keeper: Awaited<ReturnType<typeof makeUser>>;
beforeAll(async () => {
  keeper = await makeUser({ role: "ADMIN", username: uniqueUsername("keeper") });
});

describe("create-admin", () => {
  it("creates an ADMIN whose printed one-time password signs in, logged by the command line", async () => {
    const name = uniqueUsername("root");
    const result = await admin("create-admin", name);
    expect(result).toMatchObject({ code: 0, err: [] });
    const password = printedPassword(result.text);
    expect(password).toMatch(/^\S{12,}$/);
    expect(result.text).not.toMatch(/scrypt\$/);
    const login = await verifyLogin({ username: name, password: password! }, db);
    expect(login).toMatchObject({ ok: true, user: { username: name, role: "ADMIN", name } });
    const id = login.ok ? login.user.id : "";
    expect(await logOf(id)).toEqual([{ moderator_id: null, action: "create-admin", target_kind: "user", target_id: id, target_user_id: id, summary: name, why: "" }]);
  });

  it("refuses a name that exists (whatever its case) or breaks the sign-up's rules, changing nothing", async () => {
    const existing = await makeUser();
    const before = await snapshot();
    for (const [name, message] of [
      [existing.username.toUpperCase(), /exists already/],
      ["ab", /at least 3 characters/],
      ["has space", /only letters, digits, _ and \./],
      ["x".repeat(31), /at most 30 characters/],
    ] as const) {
      const result = await admin("create-admin", name);
      expect(result.code, name).toBe(1);
      expect(result.out).toEqual([]);
      expect(result.err).toHaveLength(1);
      expect(result.err[0]).toMatch(message);
    }
    expect(await snapshot()).toBe(before);
  });
});

describe("reset-password", () => {
  it("without mail: a printed one-time password that signs in, the old one no longer, every session ended, logged", async () => {
    const person = await makeUser({ password: "old password" });
    await signedInCookie(person.id);
    await signedInCookie(person.id);
    expect(await sessionsOf(person.id)).toBe(2);
    const result = await admin("reset-password", person.username);
    expect(result).toMatchObject({ code: 0, err: [] });
    expect(result.text).toMatch(/SMTP_URL is not set/);
    expect(result.text).not.toMatch(/scrypt\$/);
    const password = printedPassword(result.text)!;
    expect(await verifyLogin({ username: person.username, password }, db)).toMatchObject({ ok: true, user: { id: person.id } });
    expect(await verifyLogin({ username: person.username, password: "old password" }, db)).toEqual({ ok: false, reason: "wrong-password" });
    expect(await sessionsOf(person.id)).toBe(0);
    expect(await logOf(person.id)).toEqual([
      { moderator_id: null, action: "password-set", target_kind: "user", target_id: person.id, target_user_id: person.id, summary: person.username, why: "" },
    ]);
  });

  describe("with mail set up", () => {
    let mail: TestMailServer;
    const restore: Array<() => void> = [];
    beforeAll(async () => {
      mail = await startMailServer();
      restore.push(useSetting("SMTP_URL", mail.url), useSetting("PUBLIC_URL", "https://recipes.example"));
    });
    afterAll(async () => {
      for (const undo of restore.reverse()) undo();
      await mail.stop();
    });

    it("mails a reset link to a confirmed address (the admin panel's reset), leaves the password and sessions, logs it", async () => {
      const person = await makeUser({ password: "old password" });
      const email = `${person.username}@mail.example`;
      await db.updateTable("users").set({ email, email_confirmed_at: new Date().toISOString() }).where("id", "=", person.id).execute();
      await signedInCookie(person.id);
      const result = await admin("reset-password", person.username);
      expect(result).toMatchObject({ code: 0, err: [] });
      expect(result.text).toContain(email);
      expect(printedPassword(result.text)).toBeUndefined();
      const received = await mail.waitFor(email, /password/i);
      expect(received.text).toContain("https://recipes.example/ReciPals/Account/Reset/");
      expect(await verifyLogin({ username: person.username, password: "old password" }, db)).toMatchObject({ ok: true });
      expect(await sessionsOf(person.id)).toBe(1);
      expect(await logOf(person.id)).toMatchObject([{ moderator_id: null, action: "password-reset", target_id: person.id, summary: person.username }]);
    });

    it("an account without a confirmed address gets a printed one-time password instead", async () => {
      const person = await makeUser();
      await db.updateTable("users").set({ email: `${person.username}@mail.example`, email_confirmed_at: null }).where("id", "=", person.id).execute();
      const result = await admin("reset-password", person.username);
      expect(result.code).toBe(0);
      expect(result.text).toMatch(/no confirmed email address/);
      expect(await verifyLogin({ username: person.username, password: printedPassword(result.text)! }, db)).toMatchObject({ ok: true });
      expect(mail.to(`${person.username}@mail.example`)).toEqual([]);
      expect(await logOf(person.id)).toMatchObject([{ moderator_id: null, action: "password-set" }]);
    });
  });
});

describe("suspend and unsuspend", () => {
  it("suspend --why: signed out, cannot sign in, the reports about them closed, logged with the reason; unsuspend lifts it", async () => {
    const person = await makeUser({ password: "their password" });
    const reporter = await makeUser();
    await signedInCookie(person.id);
    expect(await fileReport({ actor: { id: reporter.id, role: "USER" }, kind: "user", targetId: person.id, reason: "spam", text: "" })).toMatchObject({ ok: true });

    const suspended = await admin("suspend", person.username, "--why", "Spam from the shell");
    expect(suspended).toMatchObject({ code: 0, err: [] });
    expect((await userRow(person.id)).suspended_at).not.toBeNull();
    expect(await sessionsOf(person.id)).toBe(0);
    expect(await verifyLogin({ username: person.username, password: "their password" }, db)).toEqual({ ok: false, reason: "suspended" });
    expect(await db.selectFrom("reports").select("resolution").where("target_id", "=", person.id).execute()).toEqual([{ resolution: "suspended" }]);

    const lifted = await admin("unsuspend", person.username);
    expect(lifted).toMatchObject({ code: 0, err: [] });
    expect((await userRow(person.id)).suspended_at).toBeNull();
    expect(await verifyLogin({ username: person.username, password: "their password" }, db)).toMatchObject({ ok: true });
    expect(await logOf(person.id)).toEqual([
      { moderator_id: null, action: "suspend", target_kind: "user", target_id: person.id, target_user_id: person.id, summary: person.username, why: "Spam from the shell" },
      { moderator_id: null, action: "unsuspend", target_kind: "user", target_id: person.id, target_user_id: person.id, summary: person.username, why: "" },
    ]);
  });

  it("refuses suspending twice, an admin, a reason too long, unsuspending someone not suspended, changing nothing", async () => {
    const person = await makeUser();
    expect((await admin("suspend", person.username)).code).toBe(0);
    const other = await makeUser();
    const before = await snapshot();
    for (const [argv, message] of [
      [["suspend", person.username], /suspended already/],
      [["suspend", keeper.username], /Administrators cannot be suspended/],
      [["suspend", other.username, "--why", "x".repeat(501)], /keep the reason/],
      [["unsuspend", other.username], /not suspended/],
      [["unsuspend", other.username, "--why", "no"], /takes no --why/],
      [["suspend", other.username, "--why"], /argument missing/],
    ] as const) {
      const result = await admin(...argv);
      expect(result.code, argv.join(" ")).toBe(1);
      expect(result.err).toHaveLength(1);
      expect(result.err[0]).toMatch(message);
    }
    expect(await snapshot()).toBe(before);
  });
});

describe("promote and demote", () => {
  it("promote makes an ADMIN, demote a USER again, each logged; twice is refused", async () => {
    const person = await makeUser();
    expect(await admin("promote", person.username)).toMatchObject({ code: 0, err: [] });
    expect((await userRow(person.id)).role).toBe("ADMIN");
    expect((await admin("promote", person.username)).err).toEqual([`promote: ${person.username} is an admin already.`]);
    expect(await admin("demote", person.username)).toMatchObject({ code: 0, err: [] });
    expect((await userRow(person.id)).role).toBe("USER");
    expect((await admin("demote", person.username)).err).toEqual([`demote: ${person.username} is not an admin.`]);
    expect(await logOf(person.id)).toEqual([
      { moderator_id: null, action: "promote", target_kind: "user", target_id: person.id, target_user_id: person.id, summary: person.username, why: "" },
      { moderator_id: null, action: "demote", target_kind: "user", target_id: person.id, target_user_id: person.id, summary: person.username, why: "" },
    ]);
  });

  it("refuses to promote a suspended account (an admin cannot be unsuspended)", async () => {
    const person = await makeUser();
    expect((await admin("suspend", person.username)).code).toBe(0);
    const before = await snapshot();
    expect(await admin("promote", person.username)).toMatchObject({ code: 1, err: [`promote: ${person.username} is suspended; unsuspend them first.`] });
    expect(await snapshot()).toBe(before);
  });

  it("never demotes the last admin", async () => {
    // Every admin but the keeper steps down first, through the command itself.
    const others = await db.selectFrom("users").select("username").where("role", "=", "ADMIN").where("id", "<>", keeper.id).execute();
    for (const { username } of others) expect((await admin("demote", username)).code).toBe(0);
    const before = await snapshot();
    expect(await admin("demote", keeper.username)).toMatchObject({ code: 1, err: ["demote: You cannot remove the last admin's role."] });
    expect(await snapshot()).toBe(before);
    expect((await userRow(keeper.id)).role).toBe("ADMIN");
  });
});

describe("what every command refuses", () => {
  it("an unknown name, for every command that takes one, changes nothing", async () => {
    const before = await snapshot();
    for (const command of ["reset-password", "suspend", "unsuspend", "promote", "demote"]) {
      expect(await admin(command, "nobody_here"), command).toEqual({ code: 1, out: [], err: [`${command}: No account is named nobody_here.`], text: "" });
    }
    for (const argv of [["promote"], ["promote", "a", "b"], ["stats", "extra"], ["demote", "--force", keeper.username]]) {
      const result = await admin(...argv);
      expect(result.code, argv.join(" ")).toBe(1);
      expect(result.err).toHaveLength(1);
      expect(result.err[0]).toMatch(/Usage: /);
    }
    expect(await snapshot()).toBe(before);
  });

  it("an unknown command exits 1 with one line; --help and no command list every command", async () => {
    const before = await snapshot();
    const unknown = await admin("drop-everything", "admin");
    expect(unknown).toMatchObject({ code: 1, out: [], err: ["Unknown command: drop-everything (npm run admin -- --help lists them)."] });
    for (const argv of [["--help"], [], ["suspend", "--help"]]) {
      const help = await admin(...argv);
      expect(help.code).toBe(0);
      for (const command of ["create-admin NAME", "reset-password NAME", "suspend NAME [--why TEXT]", "unsuspend NAME", "promote NAME", "demote NAME", "stats", "--help"]) {
        expect(help.text).toMatch(new RegExp(`^  ${command.replace(/[[\]]/g, "\\$&")} +\\S`, "m"));
      }
    }
    expect(await snapshot()).toBe(before);
  });
});

describe("stats", () => {
  it("counts people and content, and names the engine and the latest migration", async () => {
    const cook = await makeUser();
    const fan = await makeUser();
    const made = await makeRecipeWithPost({ userId: cook.id });
    await db.insertInto("likes").values({ user_id: fan.id, post_id: made.postId!, created_at: new Date().toISOString() }).execute();
    await follow(fan.id, cook.id);
    await db.updateTable("recipes").set({ photo: "/uploads/0123456789abcdef.webp" }).where("id", "=", made.recipeId).execute();
    await db.updateTable("posts").set({ photo: "/uploads/0123456789abcdef.webp" }).where("id", "=", made.postId!).execute();

    const count = async (table: "users" | "recipes" | "posts" | "comments" | "likes" | "follows") =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
    const users = await db.selectFrom("users").select(["role", "suspended_at"]).execute();
    const latest = Object.keys(await migrationProvider.getMigrations()).sort().at(-1);
    const result = await admin("stats");
    expect(result).toMatchObject({ code: 0, err: [] });
    const value = (label: string) => new RegExp(`^${label}: +(.+)$`, "m").exec(result.text)?.[1];
    expect(value("users")).toBe(String(users.length));
    expect(value("admins")).toBe(String(users.filter((u) => u.role === "ADMIN").length));
    expect(value("suspended")).toBe(String(users.filter((u) => u.suspended_at !== null).length));
    for (const table of ["recipes", "posts", "comments", "likes", "follows"] as const) expect(value(table), table).toBe(String(await count(table)));
    expect(Number(value("likes"))).toBeGreaterThan(0);
    expect(value("stored photos")).toBe("1");
    expect(value("database")).toMatch(engineOf(db).name === "postgres" ? /^PostgreSQL/ : /^SQLite/);
    expect(value("latest migration")).toBe(latest);
  });
});

describe("the moderation log page", () => {
  it("lists the command line's entries with no moderator name", async () => {
    const person = await makeUser();
    expect((await admin("promote", person.username)).code).toBe(0);
    const page = await adminReportsLoader(routeArgs(getRequest("/ReciPals/Account/Admin/Reports", await signedInCookie(keeper.id))));
    expect(page.log[0]).toMatchObject({ action: "promote", moderator: null, summary: person.username });
  });
});

describe("the script", () => {
  let dir = "";
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "recipals-admin-cli-"));
    const database = openDatabase(path.join(dir, "recipals.db"));
    await migrateToLatest(database);
    await createUser({ name: "Only One", username: "only_one", passwordHash: "not-a-real-hash", role: "ADMIN" }, database);
    await closeDatabaseHandle(database);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("node scripts/admin.js --help and stats run against DATABASE_PATH", { timeout: 120_000 }, async () => {
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ["scripts/admin.js", ...args], {
        cwd: root,
        // The file database only: not this run's PostgreSQL, if any.
        env: { ...process.env, DATABASE_URL: undefined, DATABASE_PATH: path.join(dir, "recipals.db") },
        timeout: 100_000,
      });
    const help = await run("--help");
    expect(help.stdout).toMatch(/^ {2}create-admin NAME /m);
    expect(help.stdout).toMatch(/^ {2}stats /m);
    const stats = await run("stats");
    expect(stats.stdout).toMatch(/^users: +1$/m);
    expect(stats.stdout).toMatch(/^admins: +1$/m);
    expect(stats.stdout).toMatch(new RegExp(`^database: +SQLite \\(${path.join(dir, "recipals.db").replace(/[.]/g, "\\.")}\\)$`, "m"));
    expect(stats.stdout).toMatch(new RegExp(`^latest migration: +${Object.keys(await migrationProvider.getMigrations()).sort().at(-1)}$`, "m"));
    const unknown = await run("nonsense").then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(unknown).toMatchObject({ code: 1, stderr: "Unknown command: nonsense (npm run admin -- --help lists them).\n" });
  });
});
