import { parseArgs } from "node:util";

import { Migrator } from "kysely";

import { migrationProvider } from "../../../migrations/index";
import { hashPassword, randomPassword } from "../auth/password.server";
import { CacheScope, changing } from "../cache/scopes.server";
import { db, engineOf, type DB } from "../db/connection.server";
import { env } from "../env.server";
import { mailOrigin } from "../mail/mailer.server";
import { UPLOADS_URL_PREFIX } from "../media/storage.server";
import { writeLog, type ModerationAction } from "../queries/reports.server";
import { createUser, isLastAdmin, isUsernameTaken, updateUserProfile, UsernameTakenError } from "../queries/users.server";
import { emailStateOf, sendPasswordResetFor } from "../services/account-mail-service.server";
import { suspendAs, unsuspendAs } from "../services/moderation-service.server";
import { LAST_ADMIN_MESSAGES } from "../services/users-service.server";
import { done, refusal, refusing, RefusedError, type Outcome } from "../services/outcome-service.server";
import { nameField, usernameField } from "../validation/auth-schema.server";

// The operator's command line (`npm run admin -- <command>`, docs/operator-guide.md#admin-command-line):
// what someone with a shell on the server, but perhaps no admin account left, needs to get back in
// and to moderate. Each change goes through the services the pages use where one fits, runs in one
// transaction with its entry in the moderation log, and names no moderator there (moderator_id
// null: the command line is nobody's account). A refusal changes nothing and is one line on stderr.

/** Where a command writes: `out` for what it did (stdout), `err` for a refusal (stderr). */
export interface AdminOutput {
  out(line: string): void;
  err(line: string): void;
}

export const consoleOutput: AdminOutput = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
};


interface Account {
  id: string;
  username: string;
  role: "USER" | "ADMIN";
  suspended_at: string | null;
}

/** The account a username names, whatever its letter case (usernames are one person whatever their case). */
function accountNamed(name: string, database: DB): Promise<Account | undefined> {
  return database
    .selectFrom("users")
    .select(["id", "username", "role", "suspended_at"])
    .where(engineOf(database).equalsIgnoringCase("username", name))
    .executeTakeFirst();
}

/** Thrown by a command that refuses: its message is the one line on stderr. */
class Refused extends Error {}

async function mustFind(name: string, database: DB): Promise<Account> {
  const account = await accountNamed(name, database);
  if (!account) throw new Refused(`No account is named ${name}.`);
  return account;
}

/** A service's refusal becomes the command's. */
function orRefuse<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Refused(outcome.message);
  return outcome.value;
}

const logEntry = (action: ModerationAction, account: { id: string; username: string }, why = "") => ({
  moderatorId: null,
  action,
  kind: "user" as const,
  targetId: account.id,
  targetUserId: account.id,
  summary: account.username,
  why,
});

interface Context {
  name: string;
  why: string;
  database: DB;
  output: AdminOutput;
}

async function createAdmin({ name, database, output }: Context): Promise<void> {
  // The sign-up's rules for a username; the display name starts as the username.
  const username = usernameField.safeParse(name);
  if (!username.success) throw new Refused(username.error.issues[0]?.message ?? "That username is not valid.");
  const displayName = nameField.parse(username.data);
  if (await isUsernameTaken(username.data, database)) throw new Refused(`An account named ${username.data} exists already; nothing was changed (promote makes it an admin).`);
  const password = randomPassword();
  const passwordHash = await hashPassword(password);
  try {
    await changing(
      [CacheScope.people],
      async (trx) => {
        const user = await createUser({ name: displayName, username: username.data, passwordHash, role: "ADMIN" }, trx);
        await writeLog(logEntry("create-admin", user), trx);
      },
      database,
    );
  } catch (error) {
    // Someone took the name between the check and the insert.
    if (error instanceof UsernameTakenError) throw new Refused(`An account named ${username.data} exists already; nothing was changed.`);
    throw error;
  }
  output.out(`Created the admin account ${username.data}.`);
  output.out(`One-time password (shown only now): ${password}`);
  output.out("Sign in with it and choose your own password in the profile editor.");
}

async function resetPassword({ name, database, output }: Context): Promise<void> {
  const account = await mustFind(name, database);
  const { emailConfirmed } = await emailStateOf(account.id, database);
  // Mail is set up when it leaves through SMTP and its links can be made (PUBLIC_URL): otherwise
  // the link would land in the outbox folder, or not be sent at all.
  const mailReady = Boolean(env.SMTP_URL) && mailOrigin() !== null;
  if (mailReady && emailConfirmed) {
    // The admin panel's "Send password reset"; logged once the mail went, as there.
    const sent = orRefuse(await sendPasswordResetFor(account.id, null, database));
    await writeLog(logEntry("password-reset", account), database);
    output.out(`Sent a password reset link to ${account.username}'s confirmed address ${sent.email}.`);
    return;
  }
  const password = randomPassword();
  const passwordHash = await hashPassword(password);
  // As a password change in the profile editor: the new hash, and every session of theirs ends.
  await changing(
    [CacheScope.user(account.id)],
    async (trx) => {
      await updateUserProfile({ id: account.id, passwordHash }, trx);
      await writeLog(logEntry("password-set", account), trx);
    },
    database,
  );
  const why = !env.SMTP_URL ? "SMTP_URL is not set" : mailOrigin() === null ? "PUBLIC_URL is not set" : "the account has no confirmed email address";
  output.out(`No reset mail (${why}): set a one-time password for ${account.username}, and ended every session of theirs.`);
  output.out(`One-time password (shown only now): ${password}`);
  if (account.suspended_at) output.out(`${account.username} is suspended: they cannot sign in until unsuspend.`);
}

async function suspend({ name, why, database, output }: Context): Promise<void> {
  const account = await mustFind(name, database);
  if (account.suspended_at) throw new Refused(`${account.username} is suspended already.`);
  orRefuse(await suspendAs({ moderatorId: null, userId: account.id, why }, database));
  output.out(`Suspended ${account.username}: signed out everywhere, cannot sign in, and what they made is hidden from everyone but admins.`);
}

async function unsuspend({ name, database, output }: Context): Promise<void> {
  const account = await mustFind(name, database);
  orRefuse(await unsuspendAs({ moderatorId: null, userId: account.id }, database));
  output.out(`Lifted the suspension of ${account.username}.`);
}

async function promote({ name, database, output }: Context): Promise<void> {
  const account = await mustFind(name, database);
  if (account.role === "ADMIN") throw new Refused(`${account.username} is an admin already.`);
  // Administrators cannot be suspended (docs/rules.md#suspension), nor unsuspended: lift it first.
  if (account.suspended_at) throw new Refused(`${account.username} is suspended; unsuspend them first.`);
  await changing(
    [CacheScope.user(account.id)],
    async (trx) => {
      await updateUserProfile({ id: account.id, role: "ADMIN" }, trx);
      await writeLog(logEntry("promote", account), trx);
    },
    database,
  );
  output.out(`${account.username} is an admin now.`);
}

async function demote({ name, database, output }: Context): Promise<void> {
  const account = await mustFind(name, database);
  if (account.role !== "ADMIN") throw new Refused(`${account.username} is not an admin.`);
  const outcome = await refusing(async () => {
    await changing(
      [CacheScope.user(account.id)],
      async (trx) => {
        // Checked where the role changes, as the profile editor does: two demotions at once cannot both pass.
        if (await isLastAdmin(account.id, trx)) throw new RefusedError(refusal(409, LAST_ADMIN_MESSAGES.demote));
        await updateUserProfile({ id: account.id, role: "USER" }, trx);
        await writeLog(logEntry("demote", account), trx);
      },
      database,
    );
    return done();
  });
  orRefuse(outcome);
  output.out(`${account.username} is a user now, no longer an admin.`);
}

/** The number a `count(*) as n` query answers (PostgreSQL answers a bigint as text). */
async function counted(query: { executeTakeFirstOrThrow(): Promise<{ n: string | number | bigint }> }): Promise<number> {
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** Photos in our own store that something shows (TheMealDB addresses and the default pictures are not ours). */
async function storedPhotos(database: DB): Promise<number> {
  // UNION drops duplicates: a photo shown by a recipe and its post, or chosen twice, is one file.
  const urls = database
    .selectFrom("cooks")
    .select("photo as url")
    .union(database.selectFrom("recipes").select("photo as url"))
    .union(database.selectFrom("posts").select("photo as url"))
    .union(database.selectFrom("users").select("profile as url"));
  return counted(
    database
      .selectFrom(urls.as("p"))
      .select((eb) => eb.fn.countAll().as("n"))
      .where("p.url", "like", `${UPLOADS_URL_PREFIX}%`),
  );
}

async function stats({ database, output }: Context): Promise<void> {
  const migrations = await new Migrator({ db: database, provider: migrationProvider }).getMigrations();
  const latest = migrations.filter((migration) => migration.executedAt !== undefined).at(-1)?.name ?? "(none)";
  const engine = engineOf(database).name === "postgres" ? "PostgreSQL" : "SQLite";
  const where = engine === "SQLite" && database === db ? ` (${env.DATABASE_PATH})` : "";
  const all = (table: "users" | "recipes" | "posts" | "comments" | "likes" | "follows") => counted(database.selectFrom(table).select((eb) => eb.fn.countAll().as("n")));
  const users = database.selectFrom("users").select((eb) => eb.fn.countAll().as("n"));
  const lines: [string, number | string][] = [
    ["users", await all("users")],
    ["admins", await counted(users.where("role", "=", "ADMIN"))],
    ["suspended", await counted(users.where("suspended_at", "is not", null))],
    ["recipes", await all("recipes")],
    ["posts", await all("posts")],
    ["comments", await all("comments")],
    ["likes", await all("likes")],
    ["follows", await all("follows")],
    ["stored photos", await storedPhotos(database)],
    ["database", `${engine}${where}`],
    ["latest migration", latest],
  ];
  for (const [label, value] of lines) output.out(`${`${label}:`.padEnd(18)}${value}`);
}

interface Command {
  usage: string;
  summary: string;
  /** Takes NAME (all but stats). */
  named: boolean;
  /** Takes `--why TEXT`. */
  why?: boolean;
  run(context: Context): Promise<void>;
}

const COMMANDS: Record<string, Command> = {
  "create-admin": { usage: "create-admin NAME", summary: "create the admin account NAME with a one-time password, printed once", named: true, run: createAdmin },
  "reset-password": {
    usage: "reset-password NAME",
    summary: "mail NAME a reset link if mail is set up, else print a one-time password (signs them out)",
    named: true,
    run: resetPassword,
  },
  suspend: { usage: "suspend NAME [--why TEXT]", summary: "suspend NAME: signed out, cannot sign in, what they made hidden; TEXT goes to the log", named: true, why: true, run: suspend },
  unsuspend: { usage: "unsuspend NAME", summary: "lift NAME's suspension", named: true, run: unsuspend },
  promote: { usage: "promote NAME", summary: "make NAME an admin", named: true, run: promote },
  demote: { usage: "demote NAME", summary: "make the admin NAME a user (never the last admin)", named: true, run: demote },
  stats: { usage: "stats", summary: "counts of people and content, the database engine and its latest migration", named: false, run: stats },
};

export function helpText(): string[] {
  const width = Math.max(...Object.values(COMMANDS).map((command) => command.usage.length)) + 2;
  return [
    "Usage: npm run admin -- <command>",
    "",
    ...Object.values(COMMANDS).map((command) => `  ${command.usage.padEnd(width)}${command.summary}`),
    `  ${"--help".padEnd(width)}this list`,
    "",
    "Works on the configured database (DATABASE_PATH or DATABASE_URL). Every change is written to the",
    "moderation log, by the command line; a refused command changes nothing and exits with 1.",
  ];
}

/**
 * Runs one command line (`argv` without node and the script) against `database`: writes what it
 * did to `output` and answers the exit code, 0 done, 1 refused (nothing changed) or unknown.
 */
export async function runAdminCommand(argv: readonly string[], output: AdminOutput = consoleOutput, database: DB = db): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help" || rest.includes("--help")) {
    for (const line of helpText()) output.out(line);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    output.err(`Unknown command: ${name} (npm run admin -- --help lists them).`);
    return 1;
  }
  try {
    let parsed: { values: { why?: string }; positionals: string[] };
    try {
      parsed = parseArgs({ args: [...rest], options: { why: { type: "string" } }, allowPositionals: true, strict: true });
    } catch (error) {
      throw new Refused(`${(error as Error).message.split("\n")[0]!.replace(/\.?$/, ".")} Usage: ${command.usage}`);
    }
    if (parsed.values.why !== undefined && !command.why) throw new Refused(`${name} takes no --why. Usage: ${command.usage}`);
    const expected = command.named ? 1 : 0;
    if (parsed.positionals.length !== expected) throw new Refused(`Usage: ${command.usage}`);
    await command.run({ name: parsed.positionals[0] ?? "", why: parsed.values.why ?? "", database, output });
    return 0;
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    output.err(`${name}: ${error.message}`);
    return 1;
  }
}
